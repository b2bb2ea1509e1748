// Text generated from the schema: docs/config.md is up to date, `config explain` covers every key
// and `config show` round-trips. Regenerate the docs with IPUTRAIN_UPDATE_DOCS=1 (or
// `iputrain config docs > docs/config.md`).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend/config/rules.hpp"
#include "frontend/config/schema.hpp"

namespace fs = std::filesystem;
using iputrain::Config;
namespace config = iputrain::config;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

//! show -> load -> show gives the same text and an equal effective config: the same keys set, the
//! same values (a path rebased: absolute, resolved by the path rule).
void check_round_trip(const Config& c, const std::string& what) {
  INFO(what);
  const std::string shown = config::show(c);
  Config back = config::parse(shown, "shown.toml");
  CHECK(config::show(back) == shown);
  for (const auto& k : iputrain::config::schema()) {
    if (k.access.get) {
      INFO(k.path);
      CHECK(back.is_set(k.path) == c.is_set(k.path));
      const iputrain::config::Value v = k.access.get(c);
      const auto* text = std::get_if<std::string>(&v);
      if (k.is_path && text != nullptr && !text->empty()) {
        const std::string rebased = k.path.rfind("data.", 0) == 0 ? c.resolve_data_spec(k.path, *text, true)
                                                                  : c.resolve_path(k.path, *text, true);
        CHECK(std::get<std::string>(k.access.get(back)) == rebased);
      } else {
        CHECK(k.access.get(back) == v);
      }
    }
  }
  CHECK(back.model == c.model);
}

}  // namespace

TEST_CASE("docs/config.md is generated from the schema and up to date") {
  const fs::path file = fs::path(IPUTRAIN_SOURCE_DIR) / "docs" / "config.md";
  const std::string generated = config::reference_markdown();
  if (std::getenv("IPUTRAIN_UPDATE_DOCS") != nullptr) {
    std::ofstream(file, std::ios::binary) << generated;
  }
  CHECK(generated.rfind("<!-- GENERATED", 0) == 0);
  CHECK(generated.find("do not edit") != std::string::npos);
  for (const auto& k : iputrain::config::schema()) {
    CHECK_MESSAGE(generated.find("| `" + k.path + "` |") != std::string::npos, k.path);
  }
  REQUIRE_MESSAGE(fs::exists(file), "docs/config.md is missing; run with IPUTRAIN_UPDATE_DOCS=1");
  CHECK_MESSAGE(read_text(file) == generated,
                "docs/config.md is out of date: run `IPUTRAIN_UPDATE_DOCS=1 test_config` or "
                "`iputrain config docs > docs/config.md`");
}

TEST_CASE("config explain works for every key and table") {
  const auto keys = config::keys();
  CHECK(keys.size() == iputrain::config::schema().size());
  CHECK(keys.size() >= 120);
  for (const auto& key : keys) {
    INFO(key);
    const std::string text = config::explain(key);
    CHECK(text.rfind(key + "\n", 0) == 0);
    CHECK(text.find("  type:") != std::string::npos);
    CHECK(text.find("  default:") != std::string::npos);
    CHECK(text.find("  meaning:") != std::string::npos);
    CHECK(text.find("  status:   ") != std::string::npos);
  }
  for (const auto& s : iputrain::config::sections()) {
    CHECK(config::explain(s.path).rfind("[" + s.path + "]\n", 0) == 0);
  }
  const std::string schedule = config::explain("pipeline.schedule");
  CHECK(schedule.find("allowed:  \"grouped\", \"interleaved\", \"sequential\"") != std::string::npos);
  CHECK(schedule.find("default:  \"grouped\"") != std::string::npos);
  CHECK(schedule.find("rule:") != std::string::npos);
  CHECK(config::explain("ipu.pooling.poplar_options").find("status:   no effect: accepted for compatibility") !=
        std::string::npos);
  CHECK(config::explain("training.checkpoint.dir").rfind("checkpoint.dir\n", 0) == 0);
  CHECK(config::explain("data.batch_size").find("default:  unset\n") != std::string::npos);
}

TEST_CASE("config explain of an unknown key is a located usage error with the nearest key") {
  try {
    (void)config::explain("pipeline.shedule");
    FAIL("explained an unknown key");
  } catch (const iputrain::Error& e) {
    CHECK(e.kind() == iputrain::ErrorKind::Usage);
    CHECK(e.render() ==
          "config explain:1:1: error: unknown config key `pipeline.shedule`\n"
          "    pipeline.shedule\n"
          "    ^~~~~~~~~~~~~~~~\n"
          "hint: did you mean `pipeline.schedule`?\n");
  }
}

TEST_CASE("config show round-trips for every shipped config") {
  for (const auto& e : fs::directory_iterator(fs::path(IPUTRAIN_SOURCE_DIR) / "configs")) {
    if (e.path().extension() == ".toml") {
      check_round_trip(config::load(e.path().string()), e.path().filename().string());
    }
  }
  check_round_trip(config::parse("", "defaults.toml"), "defaults");
  // The resolved device: the preset's figures and the IPU Model's tile count load back the same.
  check_round_trip(config::parse("[ipu.ipu_model]\nversion = \"bow\"\ntiles_per_ipu = 16\n"), "bow, 16 tiles");
}

TEST_CASE("config show round-trips lists, tables, tri-states and comments out inactive keys") {
  Config c = config::parse(R"(
[model]
hidden = 64
name = "m"
[ipu]
select_ipus = [26]
compilation_poplar_options = { "debug.instrument" = "true", "target.deterministicWorkers" = "portable" }
[ipu.floating_point_behaviour]
set_all = true
[ipu.scheduling]
algorithm = "look_ahead"
maximum_scheduler_lookahead_depth = 3
[pipeline]
stages = ["a", "b", "c"]
device_mapping = [0, [1, 2], 3]
schedule = "grouped"
gradient_accumulation_count = 12
forward_propagation_stages_poplar_options = [{ matmul_options = { availableMemoryProportion = "0.3" } }, {}, {}]
weight_update_poplar_options = { convolution_options = { x = "y" } }
offload_activations = false
replicated_weight_sharding = true
outfeed_mask = [false, true]
[optimizer]
type = "adam"
beta2 = 0.99
[training]
epochs = 0.5
checkpoint = { dir = "runs/x", every = 3 }
)",
                           "all.toml");
  const std::string shown = config::show(c);
  CHECK(shown.find("# auto_select_ipus = 1  (unset; exclusive with `ipu.select_ipus`)") != std::string::npos);
  CHECK(shown.find("select_ipus = [26]\n") != std::string::npos);
  CHECK(shown.find("device_mapping = [0, [1, 2], 3]\n") != std::string::npos);
  CHECK(shown.find("compilation_poplar_options = { \"debug.instrument\" = \"true\", "
                   "\"target.deterministicWorkers\" = \"portable\" }\n") != std::string::npos);
  CHECK(shown.find("offload_activations = false\n") != std::string::npos);
  CHECK(shown.find("# offload_weights = \"auto\"  (default)\n") != std::string::npos);
  CHECK(shown.find("# momentum = 0.9  (not used by adam)") != std::string::npos);
  CHECK(shown.find("# steps = 0  (unset)") != std::string::npos);
  CHECK(shown.find("# inv = true  (not set; derived)\n") != std::string::npos);  // from set_all
  CHECK(shown.find("extends") == std::string::npos);
  check_round_trip(c, "all.toml");
  CHECK(config::num_ipus(c) == 4);
}
