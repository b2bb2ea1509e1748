// Ops a program registers in C++ (include/iputrain/custom_op.hpp), through the public API only:
// called by name from a model, trained on pipelined replicated IPUs with their gradient, priced
// (FLOPs, scratch) by the planner, refused with located errors, and kept out of the gradient when
// they declare none.
#include <doctest/doctest.h>

#include <algorithm>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "iputrain/iputrain.hpp"

using namespace iputrain;

namespace {
namespace custom_op_test {

// softplus(beta x) / beta, its derivative sigmoid(beta x); declares FLOPs and scratch from its size.
void register_softplus() {
  static const bool once = [] {
    CustomOp op;
    op.name = "api_softplus";
    op.attributes = {{"beta", 1.0}};
    op.shape = [](const CustomShapes& in, const CustomAttributes&) { return in[0]; };
    op.forward = [](const CustomCall& c) {
      const double beta = c.attributes.get("beta");
      for (int64_t i = 0; i < c.output.size; ++i) {
        c.output.data[i] = static_cast<float>(std::log1p(std::exp(beta * c.inputs[0].data[i])) / beta);
      }
    };
    op.backward = [](const CustomGradCall& c) {
      const double beta = c.attributes.get("beta");
      for (int64_t i = 0; i < c.grad.size; ++i) {
        c.grad.data[i] = static_cast<float>(c.dy.data[i] / (1.0 + std::exp(-beta * c.inputs[0].data[i])));
      }
    };
    op.flops = [](const CustomShapes& in, const CustomAttributes&) {
      double n = 1;
      for (int64_t d : in[0]) {
        n *= static_cast<double>(d);
      }
      return 40 * n;  // exp and log1p
    };
    op.temporary_bytes = [](const CustomShapes&, const CustomAttributes& a) {
      return static_cast<int64_t>(a.get("scratch_mib") * 1024 * 1024);
    };
    op.attributes["scratch_mib"] = 0;
    op.doc = "softplus(beta x) / beta";
    register_op(std::move(op));
    // Two operands, no gradient: the larger of a and b rounded to the nearest integer.
    CustomOp round_max;
    round_max.name = "api_round_max";
    round_max.inputs = {"a", "b"};
    round_max.shape = [](const CustomShapes& in, const CustomAttributes&) {
      if (in[0] != in[1]) {
        throw std::invalid_argument("a and b must have one shape");
      }
      return in[0];
    };
    round_max.forward = [](const CustomCall& c) {
      for (int64_t i = 0; i < c.output.size; ++i) {
        const float v = std::max(c.inputs[0].data[i], c.inputs[1].data[i]);
        if (std::isnan(v)) {
          throw std::runtime_error("a NaN reached api_round_max");
        }
        c.output.data[i] = std::nearbyint(v);
      }
    };
    register_op(std::move(round_max));
    return true;
  }();
  (void)once;
}

std::string model_with(const std::string& activation, const std::string& extra = "") {
  return R"(import nn
model m(batch: int = 4) {
  input image: f32[batch, 8, 8]
  input label: i32[batch]
  stage a {
    h = nn.dense(flatten(image), 16)
    h = )" +
         activation + R"(
  }
  stage b {
    logits = nn.dense(h, 10))" +
         extra + R"(
    loss = mean(softmax_cross_entropy(logits, label))
  }
  minimize loss
  output loss
}
)";
}

const char* kConfig = R"([ipu]
auto_select_ipus = 4
[pipeline]
device_mapping = [0, 1]
gradient_accumulation_count = 4
[optimizer]
type = "sgd"
learning_rate = 0.1
[data]
train = "synthetic:samples=512,classes=10"
[training]
steps = 8
seed = 3
)";

std::vector<WeightInfo> train(const std::string& model) {
  const Config c = config::parse(kConfig, "custom.toml");
  Session s(Model::parse(model, "custom.ipu", c), c);
  s.train();
  return s.weights();
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return std::string(e.what()) + " | " + e.diagnostic().hint + " @" + std::to_string(e.span().line);
  }
  return "no error";
}

}  // namespace custom_op_test
}  // namespace

using namespace custom_op_test;

TEST_CASE("a registered op trains like the builtins it stands for, gradient included") {
  register_softplus();
  const auto custom = train(model_with("api_softplus(h, beta = 2)"));
  const auto builtin = train(model_with("log(1.0 + exp(2.0 * h)) / 2.0"));
  REQUIRE(custom.size() == builtin.size());
  for (size_t i = 0; i < custom.size(); ++i) {
    CAPTURE(custom[i].name);
    REQUIRE(custom[i].values.size() == builtin[i].values.size());
    for (size_t j = 0; j < custom[i].values.size(); ++j) {
      CHECK(custom[i].values[j] == doctest::Approx(builtin[i].values[j]).epsilon(1e-4));
    }
  }
  // The gradient flowed: the first layer moved from its initial values.
  const Config c = config::parse(kConfig, "custom.toml");
  const Session fresh(Model::parse(model_with("api_softplus(h, beta = 2)"), "custom.ipu", c), c);
  CHECK(fresh.weights()[0].values != custom[0].values);
  CHECK(registered_ops() == std::vector<std::string>{"api_softplus", "api_round_max"});
}

TEST_CASE("the planner prices a registered op's FLOPs and scratch") {
  register_softplus();
  const Config c = config::parse(kConfig, "custom.toml");
  const Plan plain = Plan::make(Model::parse(model_with("api_softplus(h)"), "custom.ipu", c), c);
  const Plan scratch = Plan::make(Model::parse(model_with("api_softplus(h, scratch_mib = 64)"), "custom.ipu", c), c);
  CHECK(scratch.memory()[0].total_peak - plain.memory()[0].total_peak >= 63 * 1024 * 1024);
  const Plan cheap = Plan::make(Model::parse(model_with("relu(h)"), "custom.ipu", c), c);
  CHECK(plain.cycles_per_update() > cheap.cycles_per_update());
}

TEST_CASE("a registered op without a gradient passes none, and its kernel's errors stop the run") {
  register_softplus();
  // Nothing flows back through api_round_max: the first stage's dense layer keeps its initial weights.
  const std::string m = model_with("api_round_max(h, h * 0.5)");
  const Config c = config::parse(kConfig, "custom.toml");
  const Session fresh(Model::parse(m, "custom.ipu", c), c);
  const auto trained = train(m);
  CHECK(trained[0].values == fresh.weights()[0].values);
  CHECK(trained.back().values != fresh.weights().back().values);
  // A NaN reaches the kernel, which throws: the run stops with its message.
  const std::string nan_model = model_with("api_round_max(log(h - 1000.0), h)");
  CHECK(error_of([&] { train(nan_model); }).find("a NaN reached api_round_max") != std::string::npos);
}

TEST_CASE("registered ops: refused names, and located errors in the model") {
  register_softplus();
  CustomOp op;
  op.shape = [](const CustomShapes& in, const CustomAttributes&) { return in[0]; };
  op.forward = [](const CustomCall&) {};
  for (const std::string name : {"relu", "cross_replica_mean", "api_softplus", "2x", "stage", ""}) {
    CAPTURE(name);
    op.name = name;
    CHECK_THROWS_AS(register_op(op), Error);
  }
  op.name = "api_no_forward";
  op.forward = nullptr;
  CHECK(error_of([&] { register_op(op); }).find("needs a shape rule and a forward kernel") != std::string::npos);
  // A checkpoint records the version on one line.
  op.name = "api_two_line_version";
  op.forward = [](const CustomCall&) {};
  op.version = "1\n2";
  CHECK(error_of([&] { register_op(op); }).find("its version is not one line of text") != std::string::npos);
  const std::vector<std::string> names = registered_ops();
  CHECK(std::find(names.begin(), names.end(), "api_two_line_version") == names.end());
  // The shape rule's refusal, at the call (line 7 of the model).
  const std::string shapes = error_of([] { Model::parse(model_with("api_round_max(h, flatten(image))")); });
  CHECK(shapes.find("a and b must have one shape") != std::string::npos);
  CHECK(shapes.find("@7") != std::string::npos);
  CHECK(error_of([] { Model::parse(model_with("api_softplus(cast(h, dtype = \"i32\"))")); }).find("must be f32") !=
        std::string::npos);
  CHECK(error_of([] { Model::parse(model_with("api_softplus(h, gamma = 1)")); }).find("gamma") != std::string::npos);
}
