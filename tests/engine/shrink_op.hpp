// A registered op the engine tests share (throwaway_op_test, checkpoint_ops_test): x - alpha tanh(x),
// its gradient 1 - alpha (1 - tanh(x)^2), its attribute alpha with the default given; and a model
// that calls one.
#pragma once

#include <cmath>
#include <string>

#include "iputrain/custom_op.hpp"

namespace iputrain::testing {

inline CustomOp tanh_shrink_op(const std::string& name, double alpha) {
  CustomOp op;
  op.name = name;
  op.attributes = {{"alpha", alpha}};
  op.shape = [](const CustomShapes& in, const CustomAttributes&) { return in[0]; };
  op.forward = [](const CustomCall& c) {
    const double a = c.attributes.get("alpha");
    for (int64_t i = 0; i < c.output.size; ++i) {
      const double x = c.inputs[0].data[i];
      c.output.data[i] = static_cast<float>(x - a * std::tanh(x));
    }
  };
  op.backward = [](const CustomGradCall& c) {
    const double a = c.attributes.get("alpha");
    for (int64_t i = 0; i < c.grad.size; ++i) {
      const double t = std::tanh(static_cast<double>(c.inputs[0].data[i]));
      c.grad.data[i] = static_cast<float>(c.dy.data[i] * (1.0 - a * (1.0 - t * t)));
    }
  };
  return op;
}

// Two stages; `call` is what stage b makes of the first stage's result `h`.
inline std::string shrink_model(const std::string& call) {
  return R"(import nn

model tiny(batch: int = 4) {
  input x: f32[batch, 8]
  input label: i32[batch]
  stage a {
    h = nn.dense(x, 16, activation = tanh)
  }
  stage b {
    g = )" +
         call + R"(
    logits = nn.dense(g, 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }
  minimize loss
  output loss
}
)";
}

}  // namespace iputrain::testing
