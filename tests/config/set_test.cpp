// `--set key=value` overrides.
#include <doctest/doctest.h>

#include "iputrain/config_loader.hpp"

using iputrain::Config;
namespace config = iputrain::config;

namespace {

iputrain::Error set_error(const std::string& text, const std::vector<std::string>& sets) {
  try {
    (void)config::parse(text, "c.toml", sets);
  } catch (const iputrain::Error& e) {
    return e;
  }
  FAIL("no error for --set");
  return iputrain::Error(iputrain::ErrorKind::Internal, "unreachable");
}

}  // namespace

TEST_CASE("--set parses each value by its key's type") {
  Config c = config::parse(
      "[data]\nbatch_size = 32\n", "c.toml",
      {"data.batch_size=64", "optimizer.learning_rate=1e-3", "data.shuffle=false", "data.train=idx:some/dir/train",
       "data.test=\"synthetic:samples=8\"", "optimizer.type=SGD", " training.seed = 9 ", "optimizer.learning_rate=2"});
  CHECK(c.plain.data_batch_size == 64);
  CHECK(c.plain.optimizer_learning_rate == 2.0);
  CHECK_FALSE(c.plain.data_shuffle);
  CHECK(c.plain.data_train == "idx:some/dir/train");
  CHECK(c.plain.data_test == "synthetic:samples=8");
  CHECK(c.plain.optimizer_type == "sgd");
  CHECK(c.plain.training_seed == 9);
}

TEST_CASE("--set model parameters: int, then float, then bool, else string") {
  Config c = config::parse("[model]\nhidden = 10\n", "c.toml",
                           {"model.hidden=256", "model.rate=0.5", "model.flag=true", "model.name=relu",
                            "model.quoted=\"42\"", "model.neg=-7"});
  CHECK(std::get<int64_t>(c.model.at("hidden")) == 256);
  CHECK(std::get<double>(c.model.at("rate")) == 0.5);
  CHECK(std::get<bool>(c.model.at("flag")));
  CHECK(std::get<std::string>(c.model.at("name")) == "relu");
  CHECK(std::get<std::string>(c.model.at("quoted")) == "42");
  CHECK(std::get<int64_t>(c.model.at("neg")) == -7);
}

TEST_CASE("--set lists, tables and tri-state values are parsed as TOML") {
  Config c = config::parse(
      "", "c.toml",
      {"pipeline.device_mapping=[0, [1, 2], 3]", "pipeline.stages=[\"a\",\"b\",\"c\"]", "ipu.auto_select_ipus=4",
       "ipu.matmuls.poplar_options={ availableMemoryProportion = \"0.3\" }", "pipeline.offload_activations=auto",
       "pipeline.offload_weights=false", "pipeline.schedule=Sequential", "pipeline.outfeed_mask=[true, false]"});
  CHECK(c.plain.pipeline_device_mapping == std::vector<std::vector<int64_t>>{{0}, {1, 2}, {3}});
  CHECK(c.plain.pipeline_stages == std::vector<std::string>{"a", "b", "c"});
  CHECK(c.plain.ipu_matmuls_poplar_options.at("availableMemoryProportion") == "0.3");
  CHECK_FALSE(c.plain.pipeline_offload_activations.has_value());
  CHECK(c.plain.pipeline_offload_weights == false);
  CHECK(config::resolve(c).plain.pipeline_schedule == "sequential");
  CHECK(c.plain.pipeline_outfeed_mask == std::vector<bool>{true, false});

  // An element error is located at the element inside the --set line.
  auto e = set_error("", {"pipeline.device_mapping=[0, -1]"});
  REQUIRE(e.span().valid());
  CHECK(e.span().line == 1);
  CHECK(e.span().col == 29);
  CHECK(std::string(e.what()).find("`pipeline.device_mapping[1]` (from `--set") != std::string::npos);
}

TEST_CASE("--set values keep a span in the --set pseudo-file") {
  Config c = config::parse("[data]\nbatch_size = 32\n", "c.toml", {"training.steps=5", "data.batch_size=64"});
  auto s = c.span_of("data.batch_size");
  REQUIRE(s.valid());
  CHECK(c.sources()->path(s.file) == "--set");
  CHECK(s.line == 2);
  CHECK(s.col == 1);
  CHECK(s.length == 18);
}

TEST_CASE("--set of one exclusive key replaces its partner from the file") {
  Config c = config::parse("[training]\nsteps = 100\n", "c.toml", {"training.epochs=2"});
  CHECK(c.plain.training_epochs == 2.0);
  CHECK(c.plain.training_steps == 0);
  CHECK_FALSE(c.span_of("training.steps").valid());
}

TEST_CASE("--set errors") {
  auto unknown = set_error("", {"data.batchsize=64"});
  CHECK(unknown.kind() == iputrain::ErrorKind::Config);
  CHECK(unknown.render() ==
        "--set:1:1: error: unknown config key `data.batchsize` in `--set data.batchsize=64`\n"
        "    data.batchsize=64\n"
        "    ^~~~~~~~~~~~~~\n"
        "hint: did you mean `data.batch_size`?\n");

  auto range = set_error("", {"data.batch_size=0"});
  CHECK(range.render() ==
        "--set:1:17: error: `data.batch_size` (from `--set data.batch_size=0`) must be >= 1, found 0\n"
        "    data.batch_size=0\n"
        "                    ^\n"
        "hint: `data.batch_size`: Micro-batch per replica; unset = the model's `batch` parameter.\n");

  auto type = set_error("", {"training.steps=ten"});
  CHECK(std::string(type.what()).find("expected integer, found string") != std::string::npos);

  auto bool_for_float = set_error("", {"optimizer.learning_rate=true"});
  CHECK(std::string(bool_for_float.what()).find("expected float, found boolean") != std::string::npos);

  auto no_eq = set_error("", {"data.batch_size"});
  CHECK(std::string(no_eq.what()).find("key=value") != std::string::npos);

  auto table = set_error("", {"data=5"});
  CHECK(std::string(table.what()).find("names a table") != std::string::npos);

  auto model = set_error("", {"model.=5"});
  CHECK(model.hint().find("model.NAME=VALUE") != std::string::npos);

  auto bad_enum = set_error("", {"optimizer.type=adamx"});
  CHECK(std::string(bad_enum.what()).find("expected one of \"sgd\", \"momentum\"") != std::string::npos);
  CHECK(bad_enum.hint() == "did you mean \"adam\"?");

  auto ext = set_error("", {"extends=base.toml"});
  CHECK(ext.span().valid());
  CHECK(std::string(ext.what()).find("`extends` cannot be set") != std::string::npos);

  // Every error points into the --set pseudo-file.
  for (const auto& e : {no_eq, table, model, type, bool_for_float}) {
    CHECK(e.span().valid());
  }

  // Exclusive keys both given by --set: the later one wins.
  Config c = config::parse("", "c.toml", {"training.steps=10", "training.epochs=1"});
  CHECK(c.plain.training_steps == 0);
  CHECK(c.plain.training_epochs == 1.0);
}
