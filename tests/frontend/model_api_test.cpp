// The public Model API over the example model.
#include <doctest/doctest.h>

#include "core/ir/graph.hpp"
#include "frontend/model_access.hpp"
#include "iputrain/config_loader.hpp"
#include "iputrain/model.hpp"

using iputrain::Model;

namespace {
const std::string kExample = std::string(IPUTRAIN_SOURCE_DIR) + "/examples/mnist_mlp.ipu";
}

TEST_CASE("the example model's summary") {
  const Model m = Model::load(kExample);
  CHECK(m.name() == "mnist_mlp");
  CHECK(m.trainable());
  CHECK(m.batch_size() == 32);
  CHECK(m.stages() == std::vector<std::string>{"features", "classifier"});
  CHECK(m.outputs() == std::vector<std::string>{"loss", "accuracy", "probs", "label_hat"});
  CHECK(m.warnings().empty());

  const auto inputs = m.inputs();
  REQUIRE(inputs.size() == 2);
  CHECK(inputs[0].name == "image");
  CHECK(inputs[0].dtype == "f32");
  CHECK(inputs[0].shape == std::vector<int64_t>{32, 28, 28});
  CHECK(inputs[0].numel() == 32 * 28 * 28);
  CHECK(inputs[1].dtype == "i32");

  const auto params = m.parameters();
  REQUIRE(params.size() == 4);
  CHECK(params[0].name == "features/dense/kernel");
  CHECK(params[0].stage == "features");
  CHECK(params[0].shape == std::vector<int64_t>{784, 128});
  CHECK(params[3].name == "classifier/dense/bias");
  CHECK(params[3].stage == "classifier");
  CHECK(m.parameter_count() == 784 * 128 + 128 + 128 * 10 + 10);

  // The two matmuls dominate: 2·784·128 + 2·128·10 FLOPs per sample, plus elementwise work.
  const double matmul_flops = 2.0 * (784 * 128 + 128 * 10);
  CHECK(m.flops_per_sample() >= matmul_flops);
  CHECK(m.flops_per_sample() < matmul_flops * 1.05);

  const auto& g = graph_of(m);
  CHECK(g.loss != iputrain::ir::kNoValue);
  CHECK(g.type(g.loss).shape.empty());
  CHECK(m.ir_text() == g.str());
  REQUIRE(m.sources());
  CHECK(m.sources()->path(0) == kExample);
}

TEST_CASE("overrides change the compile-time parameters") {
  const Model m = Model::load(kExample, {{"hidden", int64_t{256}}, {"batch", int64_t{8}}});
  CHECK(m.batch_size() == 8);
  const auto params = m.compile_time_params();
  CHECK(params.at("hidden") == iputrain::ParamValue{int64_t{256}});
  CHECK(params.at("batch") == iputrain::ParamValue{int64_t{8}});
  CHECK(m.parameters()[0].shape == std::vector<int64_t>{784, 256});
  CHECK(m.parameter_count() == 784 * 256 + 256 + 256 * 10 + 10);
}

TEST_CASE("a bad override names the nearest parameter") {
  try {
    (void)Model::load(kExample, {{"hiden", int64_t{256}}});
    FAIL("no error");
  } catch (const iputrain::Error& e) {
    CHECK(e.kind() == iputrain::ErrorKind::Config);
    CHECK(e.hint() == "did you mean 'hidden'?");
  }
}

TEST_CASE("a config's [model] overrides are checked by the elaborator, at their keys") {
  const auto error_of = [](const std::string& toml) -> std::string {
    try {
      (void)Model::load(kExample, iputrain::config::parse(toml, "run.toml"));
    } catch (const iputrain::Error& e) {
      return e.render();
    }
    return "no error";
  };
  const std::string unknown = error_of("[model]\nhiden = 3\n");
  CHECK(unknown.find("run.toml:2:1: error: the model has no compile-time parameter `hiden`") != std::string::npos);
  CHECK(unknown.find("hint: did you mean `hidden`?") != std::string::npos);
  const std::string far = error_of("[model]\nwidthxyz = 3\n");
  CHECK(far.find("hint: its parameters are: batch, hidden") != std::string::npos);
  const std::string type = error_of("[model]\nhidden = \"wide\"\n");
  CHECK(type.find("run.toml:2:1: error: model parameter `hidden` takes an integer, got a string") != std::string::npos);
  CHECK(type.find("hint: its default is 128") != std::string::npos);
  CHECK(error_of("[model]\nhidden = 64\n") == "no error");
}

TEST_CASE("data.batch_size builds the model's batch, per batch-serialization slice") {
  const auto batch_of = [](const std::string& toml) {
    return Model::load(kExample, iputrain::config::parse(toml, "run.toml")).batch_size();
  };
  CHECK(batch_of("") == 32);
  CHECK(batch_of("[data]\nbatch_size = 8\n") == 8);
  CHECK(batch_of("[data]\nbatch_size = 8\n[model]\nbatch = 4\n") == 4);  // [model] wins
  CHECK(batch_of("[data]\nbatch_size = 8\n[pipeline]\nschedule = \"sequential\"\n"
                 "device_mapping = [0, 0]\nbatch_serialization_iterations = 4\n") == 2);
}

TEST_CASE("a missing model file is an I/O error") {
  try {
    (void)Model::load("no/such/model.ipu");
    FAIL("no error");
  } catch (const iputrain::Error& e) {
    CHECK(e.kind() == iputrain::ErrorKind::Io);
  }
}

TEST_CASE("the standard library is embedded") {
  // "<model>" has no directory, so nn can only come from the binary.
  const Model m =
      Model::parse("from nn import dense\nmodel t() { input x: f32[2, 3]\n output y = dense(x, 4) }");
  CHECK(m.parameter_count() == 3 * 4 + 4);
  REQUIRE(m.sources()->size() == 2);
  CHECK(m.sources()->path(1) == "stdlib/nn.ipu");
}
