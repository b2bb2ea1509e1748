// Intra-op parallelism keeps the determinism contract: the kernels split their work by output
// blocks whose boundaries depend on the shapes only (core/parallel.hpp), so the trained weights are
// bitwise the same for any engine.threads, and a pipelined, replicated plan on any thread count
// still gives the one-IPU run's bits. The models are sized so that products, convolutions,
// softmaxes and elementwise ops are large enough to be split (tens of blocks per kernel).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "iputrain/iputrain.hpp"
#include "test_models.hpp"

using namespace iputrain;

namespace {

const std::string kWideMlp = R"(import nn

model wide(batch: int = 64, hidden: int = 512) {
  input image: f32[batch, 16, 16]
  input label: i32[batch]

  stage features {
    h = nn.dense(flatten(image), hidden, activation = relu)
    h2 = nn.dropout(nn.dense(h, hidden, activation = gelu), 0.1)
  }
  stage classifier {
    logits = nn.dense(h2, 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }

  minimize loss
  output loss
}
)";

const std::string kConv = R"(import nn

model conv(batch: int = 16) {
  input image: f32[batch, 20, 20]
  input label: i32[batch]

  stage features {
    x = reshape(image, [batch, 20, 20, 1])
    x = nn.conv2d(x, 16, kernel_size = 5, padding = "same", activation = relu)
    x = nn.max_pool(x, 2)
    x = nn.conv2d(x, 32, kernel_size = 3, activation = tanh)
  }
  stage classifier {
    logits = nn.dense(flatten(x), 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }

  minimize loss
  output loss
}
)";

// Depthwise (the direct kernels, a depth multiplier too) and grouped convolutions of 32 channels per
// group (per-group GEMMs).
const std::string kGroupedConv = R"(import nn

model grouped(batch: int = 16) {
  input image: f32[batch, 20, 20]
  input label: i32[batch]

  stage features {
    x = nn.conv2d(reshape(image, [batch, 20, 20, 1]), 64, kernel_size = 3, padding = "same", activation = relu)
    x = nn.depthwise_conv2d(x, 3, strides = 2, padding = "same", activation = relu)
    x = nn.conv2d(x, 64, kernel_size = 3, groups = 2, activation = relu)
    x = nn.depthwise_conv2d(x, 3, depth_multiplier = 2, padding = "same")
  }
  stage classifier {
    logits = nn.dense(nn.global_avg_pool(x), 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }

  minimize loss
  output loss
}
)";

const std::string kAttention = R"(import nn

model attention(batch: int = 8, seq: int = 32, dim: int = 64) {
  input x: f32[batch, seq, dim]
  input label: i32[batch]

  stage body {
    h = nn.transformer_block(x, heads = 4, causal = true)
    h = nn.transformer_block(h, heads = 4, causal = true)
  }
  stage head {
    logits = nn.dense(mean(nn.layer_norm(h), axis = 1), 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }

  minimize loss
  output loss
}
)";

std::string config_text(int threads, const std::string& extra = "") {
  return "[engine]\nthreads = " + std::to_string(threads) +
         "\n[optimizer]\ntype = \"adam\"\nlearning_rate = 0.002\n"
         "[data]\ntrain = \"synthetic:samples=1024,classes=10\"\n"
         "[training]\nsteps = 6\nseed = 11\n" +
         extra;
}

std::vector<WeightInfo> train(const std::string& model, const std::string& text) {
  Config config = config::parse(text, "threads.toml");
  Session session(Model::parse(model, "threads.ipu", config.model), config);
  session.train();
  return session.weights();
}

}  // namespace

TEST_CASE("the weights are bitwise the same for engine.threads = 1, 2, 3 and 8") {
  const std::vector<std::pair<std::string, const std::string*>> models = {
      {"wide mlp", &kWideMlp}, {"conv", &kConv}, {"grouped conv", &kGroupedConv}, {"attention", &kAttention}};
  for (const auto& [name, model] : models) {
    CAPTURE(name);
    const std::vector<WeightInfo> one = train(*model, config_text(1));
    REQUIRE(!one.empty());
    for (int threads : {2, 3, 8}) {
      CAPTURE(threads);
      CHECK(testing::same_bits(train(*model, config_text(threads)), one));
    }
  }
}

TEST_CASE("lion's update splits over threads without changing a bit") {
  const auto lion = [](int threads) {
    std::string text = config_text(threads);
    const std::string adam = "type = \"adam\"";
    return text.replace(text.find(adam), adam.size(), "type = \"lion\"\nweight_decay = 0.1");
  };
  CHECK(testing::same_bits(train(kWideMlp, lion(3)), train(kWideMlp, lion(1))));
}

TEST_CASE("a pipelined replicated plan on 3 threads gives the bits of one IPU on 1 thread") {
  // Equal micro-batch and global batch (2 replicas x 2 accumulated = 1 replica x 4).
  const std::string one_ipu = config_text(1,
                                          "[pipeline]\nauto_stages = 1\ngradient_accumulation_count = 4\n"
                                          "reduction_method = \"mean\"\n");
  const std::string plan = config_text(3,
                                       "[ipu]\nauto_select_ipus = 4\n[pipeline]\ndevice_mapping = [0, 1]\n"
                                       "schedule = \"interleaved\"\ngradient_accumulation_count = 2\n"
                                       "reduction_method = \"mean\"\n");
  CHECK(testing::same_bits(train(kWideMlp, plan), train(kWideMlp, one_ipu)));
}

TEST_CASE("engine.threads is read and 0 means every core") {
  Config c = config::parse("[engine]\nthreads = 3\n", "t.toml");
  CHECK(config::resolve(c).plain.engine_threads == 3);
  CHECK(config::resolve(Config{}).plain.engine_threads == 0);
  CHECK_THROWS_AS(config::parse("[engine]\nthreads = -1\n", "t.toml"), Error);
}
