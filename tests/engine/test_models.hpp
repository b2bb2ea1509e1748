// Small models and configs shared by the engine tests.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "iputrain/session.hpp"

namespace iputrain::testing {

//! The seed's MLP at a small size, trained on a synthetic learnable dataset.
inline const std::string kMlp = R"(import nn

model mlp(batch: int = 16, hidden: int = 32) {
  input image: f32[batch, 8, 8]
  input label: i32[batch]

  stage features {
    h = nn.dense(flatten(image), hidden, activation = relu)
  }
  stage classifier {
    logits = nn.dense(h, 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }

  minimize loss
  output loss
  output accuracy = mean(cast(argmax(logits, axis = -1) == label, dtype = "f32"))
}
)";

//! Four stages with dropout in the second, micro-batch 4: stages, replicas and RNG keys all
//! matter, so moving stages between IPUs must keep the dropout masks (keyed by scope path, step
//! and sample) and the gradient sums the same.
inline const std::string kMlp4 = R"(import nn

model mlp4(batch: int = 4, width: int = 32) {
  input x: f32[batch, 16]
  input label: i32[batch]

  stage s0 {
    h0 = nn.dense(x, width, activation = relu)
  }
  stage s1 {
    h1 = nn.dropout(nn.dense(h0, width, activation = relu), 0.25)
  }
  stage s2 {
    h2 = nn.dense(h1, width, activation = tanh)
  }
  stage s3 {
    logits = nn.dense(h2, 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }

  minimize loss
  output loss
}
)";

//! True when both runs hold the same weights, bit for bit.
inline bool same_bits(const std::vector<WeightInfo>& a, const std::vector<WeightInfo>& b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].values.size() != b[i].values.size() ||
        std::memcmp(a[i].values.data(), b[i].values.data(), a[i].values.size() * sizeof(float)) != 0) {
      return false;
    }
  }
  return true;
}

inline std::string synthetic_config(int steps, double lr = 0.05, const std::string& extra = "") {
  return "[optimizer]\nlearning_rate = " + std::to_string(lr) +
         "\n[data]\ntrain = \"synthetic:samples=512,classes=10\"\n"
         "test = \"synthetic:samples=256,classes=10\"\n[training]\nsteps = " +
         std::to_string(steps) + "\nseed = 7\n" + extra;
}

}  // namespace iputrain::testing
