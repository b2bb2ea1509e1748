// `extends = "base.toml"`: files merged key by key, paths relative to the file, cycles detected,
// errors located in the file that holds the bad key.
#include <doctest/doctest.h>

#include <string>

#include "iputrain/config_loader.hpp"

using iputrain::Config;
namespace config = iputrain::config;

namespace {

const std::string kDir = std::string(IPUTRAIN_TEST_DATA_DIR) + "/config/extends/";

iputrain::Error load_error(const std::string& file) {
  try {
    (void)config::load(kDir + file);
  } catch (const iputrain::Error& e) {
    return e;
  }
  FAIL("loaded " << file);
  return iputrain::Error(iputrain::ErrorKind::Internal, "unreachable");
}

}  // namespace

TEST_CASE("a config extends its base key by key") {
  Config c = config::load(kDir + "grandchild.toml");
  CHECK(c.plain.ipu_auto_select_ipus == 2);        // from base
  CHECK(c.plain.optimizer_learning_rate == 0.25);  // child replaces base
  CHECK(c.plain.training_seed == 7);               // base, untouched by child
  CHECK(c.plain.data_batch_size == 4);             // grandchild
  // epochs in the child replaces steps from the base (exclusive keys).
  CHECK(c.plain.training_epochs == 2.0);
  CHECK(c.plain.training_steps == 0);
  CHECK_FALSE(c.is_set("training.steps"));
  // Spans point into the file that set each key.
  CHECK(c.sources()->path(c.span_of("ipu.auto_select_ipus").file).find("base.toml") != std::string::npos);
  CHECK(c.sources()->path(c.span_of("optimizer.learning_rate").file).find("child.toml") != std::string::npos);
  CHECK(c.path() == kDir + "grandchild.toml");
  // --set still wins over every file.
  Config s = config::load(kDir + "grandchild.toml", {"training.seed=1"});
  CHECK(s.plain.training_seed == 1);
}

TEST_CASE("extends paths are relative to the file that names them") {
  Config c = config::load(kDir + "sub/nested.toml");
  CHECK(c.plain.optimizer_learning_rate == 0.5);
  CHECK(c.plain.training_seed == 9);
  // From text, relative to the given path's directory.
  Config t = config::parse("extends = \"base.toml\"\n", kDir + "virtual.toml");
  CHECK(t.plain.training_steps == 100);
}

TEST_CASE("extends cycles are reported with the chain") {
  auto e = load_error("cycle_a.toml");
  const std::string what = e.what();
  CHECK(what.find("`extends` cycle: ") != std::string::npos);
  CHECK(what.find("cycle_a.toml -> ") != std::string::npos);
  CHECK(what.find("cycle_b.toml -> ") != std::string::npos);
  REQUIRE(e.span().valid());
  CHECK(e.render().find("cycle_b.toml:1:11: error") != std::string::npos);

  auto self = load_error("self.toml");
  CHECK(std::string(self.what()).find("self.toml -> ") != std::string::npos);
}

TEST_CASE("errors in a base file are located in that file") {
  auto e = load_error("uses_bad_base.toml");
  CHECK(e.render().find("bad_base.toml:2:14: error: `data.batch_size` must be >= 1, found 0") != std::string::npos);
}

TEST_CASE("bad extends values") {
  try {
    (void)config::parse("extends = \"missing.toml\"\n", kDir + "x.toml");
    FAIL("loaded");
  } catch (const iputrain::Error& e) {
    CHECK(e.kind() == iputrain::ErrorKind::Config);
    CHECK(std::string(e.what()).find("cannot read `extends` file") != std::string::npos);
    CHECK(e.span().line == 1);
  }
  try {
    (void)config::parse("extends = 3\n", kDir + "x.toml");
    FAIL("loaded");
  } catch (const iputrain::Error& e) {
    CHECK(std::string(e.what()) == "wrong type for `extends`: expected string, found integer");
  }
  try {
    (void)config::parse("[data]\nextends = \"base.toml\"\n", kDir + "x.toml");
    FAIL("loaded");
  } catch (const iputrain::Error& e) {
    CHECK(e.hint() == "did you mean `extends`?");
  }
}
