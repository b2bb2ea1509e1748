// Loading good configs: values, types, defaults, spans, files.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "../scratch_dir.hpp"
#include "iputrain/config_loader.hpp"

using iputrain::Config;
namespace config = iputrain::config;
using iputrain::ParamValue;

namespace {

const char* kGood = R"(# a complete first-cut config
[model]
hidden = 256
dropout = 0.25
use_bias = true
activation = "relu"

[ipu]
auto_select_ipus = 4

[optimizer]
type = "SGD"
learning_rate = 1

[data]
train = "idx:/usr/share/datasets/fashion-mnist/train"
test = "synthetic:samples=64"
batch_size = 32
shuffle = false
seed = 7
prefetch_depth = 3

[training]
steps = 2000
steps_per_execution = 100
seed = 5
log_every = 50
)";

}  // namespace

TEST_CASE("defaults") {
  Config c;
  CHECK(c.model.empty());
  CHECK(c.plain.ipu_auto_select_ipus == 1);
  CHECK(c.plain.optimizer_type == "sgd");
  CHECK(c.plain.optimizer_learning_rate == doctest::Approx(0.01));
  CHECK(c.plain.data_train.empty());
  CHECK(c.plain.data_batch_size == 0);
  CHECK(c.plain.data_shuffle);
  CHECK(c.plain.data_prefetch_depth == 2);
  CHECK(c.plain.training_steps == 0);
  CHECK(c.plain.training_seed == 42);
  CHECK(c.path().empty());
  CHECK_FALSE(c.span_of("data.batch_size").valid());
  REQUIRE(c.sources() != nullptr);

  Config empty = config::parse("", "empty.toml");
  CHECK(empty.plain.training_seed == 42);
  CHECK(empty.path() == "empty.toml");
}

TEST_CASE("a complete config fills every section") {
  Config c = config::parse(kGood, "good.toml");
  REQUIRE(c.model.size() == 4);
  CHECK(std::get<int64_t>(c.model.at("hidden")) == 256);
  CHECK(std::get<double>(c.model.at("dropout")) == doctest::Approx(0.25));
  CHECK(std::get<bool>(c.model.at("use_bias")));
  CHECK(std::get<std::string>(c.model.at("activation")) == "relu");
  CHECK(c.plain.ipu_auto_select_ipus == 4);
  CHECK(c.plain.optimizer_type == "sgd");         // enum values are matched case-insensitively, stored canonically
  CHECK(c.plain.optimizer_learning_rate == 1.0);  // an integer is accepted for a float key
  CHECK(c.plain.data_train == "idx:/usr/share/datasets/fashion-mnist/train");
  CHECK(c.plain.data_test == "synthetic:samples=64");
  CHECK(c.plain.data_batch_size == 32);
  CHECK_FALSE(c.plain.data_shuffle);
  CHECK(c.plain.data_seed == 7);
  CHECK(c.plain.data_prefetch_depth == 3);
  CHECK(c.plain.training_steps == 2000);
  CHECK(c.plain.training_epochs == 0);
  CHECK(c.plain.training_steps_per_execution == 100);
  CHECK(c.plain.training_seed == 5);
  CHECK(c.plain.training_log_every == 50);
}

TEST_CASE("epochs, inline tables and dotted keys") {
  Config c = config::parse("training.epochs = 2.5\ndata = { batch_size = 8, shuffle = true }\n", "x.toml");
  CHECK(c.plain.training_epochs == doctest::Approx(2.5));
  CHECK(c.plain.training_steps == 0);
  CHECK(c.plain.data_batch_size == 8);
  Config d = config::parse("[training]\nepochs = 3\n");
  CHECK(d.plain.training_epochs == 3.0);
}

TEST_CASE("spans point at the key and its value") {
  Config c = config::parse(kGood, "good.toml");
  auto s = c.span_of("data.batch_size");
  REQUIRE(s.valid());
  CHECK(s.line == 18);
  CHECK(s.col == 1);
  CHECK(s.length == static_cast<int32_t>(std::string("batch_size = 32").size()));
  CHECK(c.sources()->path(s.file) == "good.toml");

  auto m = c.span_of("model.hidden");
  REQUIRE(m.valid());
  CHECK(m.line == 3);
  CHECK(m.length == static_cast<int32_t>(std::string("hidden = 256").size()));

  auto t = c.span_of("data");
  REQUIRE(t.valid());
  CHECK(t.line == 15);
  CHECK(t.col == 2);  // the name inside `[data]`
  CHECK_FALSE(c.span_of("training.epochs").valid());
  CHECK_FALSE(c.span_of("no.such.key").valid());
}

TEST_CASE("fail_at raises a located error for later stages") {
  Config c = config::parse(kGood, "good.toml");
  try {
    c.fail_at("data.batch_size", "batch size 32 does not divide the 10 samples", "use a smaller batch",
              iputrain::ErrorKind::Data);
    FAIL("fail_at returned");
  } catch (const iputrain::Error& e) {
    CHECK(e.kind() == iputrain::ErrorKind::Data);
    CHECK(e.render() ==
          "good.toml:18:1: error: batch size 32 does not divide the 10 samples\n"
          "    batch_size = 32\n"
          "    ^~~~~~~~~~~~~~~\n"
          "hint: use a smaller batch\n");
  }
  // A key that came from the defaults has no location; the message still renders.
  try {
    c.fail_at("training.epochs", "no epochs");
    FAIL("fail_at returned");
  } catch (const iputrain::Error& e) {
    CHECK(e.kind() == iputrain::ErrorKind::Config);
    CHECK(e.render() == "error: no epochs\n");
  }
}

TEST_CASE("load reads files and reports missing ones as I/O errors") {
  namespace fs = std::filesystem;
  fs::path dir = iputrain_tests::scratch_dir("config_test");
  fs::create_directories(dir);
  fs::path file = dir / "run.toml";
  std::ofstream(file) << "[data]\nbatch_size = 16\n";
  Config c = config::load(file.string(), {"training.steps=3"});
  CHECK(c.plain.data_batch_size == 16);
  CHECK(c.plain.training_steps == 3);
  CHECK(c.path() == file.string());

  try {
    (void)config::load((dir / "missing.toml").string());
    FAIL("loaded a missing file");
  } catch (const iputrain::Error& e) {
    CHECK(e.kind() == iputrain::ErrorKind::Io);
    CHECK(std::string(e.what()).find("missing.toml") != std::string::npos);
    CHECK(std::string(e.what()).find("No such file") != std::string::npos);
  }
  try {
    (void)config::load(dir.string());
    FAIL("loaded a directory");
  } catch (const iputrain::Error& e) {
    CHECK(e.kind() == iputrain::ErrorKind::Io);
  }
  fs::remove_all(dir);
}

TEST_CASE("param_value_str writes TOML literals") {
  CHECK(iputrain::param_value_str(ParamValue{int64_t{-3}}) == "-3");
  CHECK(iputrain::param_value_str(ParamValue{2.0}) == "2.0");
  CHECK(iputrain::param_value_str(ParamValue{0.01}) == "0.01");
  CHECK(iputrain::param_value_str(ParamValue{1e-8}) == "1e-08");
  CHECK(iputrain::param_value_str(ParamValue{true}) == "true");
  CHECK(iputrain::param_value_str(ParamValue{std::string("a\"b\\c")}) == R"("a\"b\\c")");
}

// What follows a data spec's colon is resolved against the config's folder unless the format's row
// says it names no file (DataSourceDef::names_file: synthetic); an unknown kind is resolved too.
TEST_CASE("data specs resolve their path by their format's row") {
  const Config c = config::parse("[data]\ntrain = \"csv:train.csv\"\n", "runs/exp.toml");
  CHECK(c.resolve_data_spec("data.train", "csv:train.csv") == "csv:runs/train.csv");
  CHECK(c.resolve_data_spec("data.train", "images:pics,resize=bilinear") == "images:runs/pics,resize=bilinear");
  CHECK(c.resolve_data_spec("data.train", "synthetic:samples=8") == "synthetic:samples=8");
  CHECK(c.resolve_data_spec("data.train", "nosuchkind:x.bin") == "nosuchkind:runs/x.bin");
  CHECK(c.resolve_data_spec("data.train", "no-colon") == "no-colon");
}
