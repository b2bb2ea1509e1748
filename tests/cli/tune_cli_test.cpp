// `iputrain tune` and the config's [tune] section (issue 32): a range that cannot be met is a
// located error with a hint (golden text), and the command's flags override the [tune] keys.
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "../scratch_dir.hpp"
#include "run_cli.hpp"

namespace {

// The error `tune` prints for cases/CASE.toml, which sets one bad [tune] key on line 16.
std::string error_of(const std::string& name) {
  const cli_test::Run r = cli_test::iputrain("tune cases/four_stage.ipu cases/" + name + ".toml --time 10");
  CHECK(r.status == 2);
  return r.out;
}

}  // namespace

TEST_CASE("a [tune] range that cannot be met is a located error") {
  CHECK(error_of("tune_range_reversed") ==
        "cases/tune_range_reversed.toml:16:1: error: `tune.micro_batch` = [8, 2] is an empty range: its min is "
        "above its max\n"
        "    micro_batch = [8, 2]\n"
        "    ^~~~~~~~~~~~~~~~~~~~\n"
        "hint: write [2, 8]\n");
  CHECK(error_of("tune_range_one") ==
        "cases/tune_range_one.toml:16:1: error: `tune.ipus_per_replica` is a range [min, max], found 1 value\n"
        "    ipus_per_replica = [3]\n"
        "    ^~~~~~~~~~~~~~~~~~~~~~\n"
        "hint: for exactly 3, write [3, 3]\n");
  CHECK(error_of("tune_ipus_indivisible") ==
        "cases/tune_ipus_indivisible.toml:16:1: error: no number of IPUs per replica in [3, 3] divides the 4 IPUs\n"
        "    ipus_per_replica = [3, 3]\n"
        "    ^~~~~~~~~~~~~~~~~~~~~~~~~\n"
        "hint: a replica's IPUs divide the IPUs in all: widen the range, or change --ipus\n");
  CHECK(error_of("tune_empty_list") ==
        "cases/tune_empty_list.toml:16:1: error: `tune.recomputation` lists no value: the search could try nothing\n"
        "    recomputation = []\n"
        "    ^~~~~~~~~~~~~~~~~~\n"
        "hint: list the values to try, or remove the key to let the search choose\n");
  CHECK(error_of("tune_stages_none") ==
        "cases/tune_stages_none.toml:16:1: error: no layout of cases/four_stage.ipu on 4 IPUs has 5 to 8 stages\n"
        "    stages = [5, 8]\n"
        "    ^~~~~~~~~~~~~~~\n"
        "hint: the layouts searched have 2 or 4 stages: widen the range\n");
}

TEST_CASE("a [tune] global batch that no layout divides is located at the key") {
  CHECK(error_of("tune_batch_undividable") ==
        "cases/tune_batch_undividable.toml:16:1: error: no layout of cases/four_stage.ipu on 4 IPUs holds a global "
        "batch of 30\n"
        "    global_batch = 30\n"
        "    ^~~~~~~~~~~~~~~~~\n"
        "hint: the global batch must be micro-batch x accumulation x replicas, the accumulation a multiple of what "
        "the schedule needs: choose a global batch with more factors of 2, or allow --batch-tolerance ([tune] "
        "batch_tolerance)\n");
  // The flag overrides the key: a global batch of 32 is met.
  const cli_test::Run r = cli_test::iputrain(
      "tune cases/four_stage.ipu cases/tune_batch_undividable.toml --global-batch 32 --format json", "2>/dev/null");
  REQUIRE(r.status == 0);
  CHECK(nlohmann::json::parse(r.out)["global_batch"] == 32);
}

TEST_CASE("when nothing fits, tune names the closest candidate, its IPU and by how much, and what it did not try") {
  const cli_test::Run r = cli_test::iputrain(
      "tune cases/four_stage.ipu cases/tune_limits.toml --set device.memory_per_tile=2000 --global-batch 256");
  CHECK(r.status == 2);
  CHECK(r.out ==
        "error: no layout of the 8 planned fits the IPUs\n"
        "  closest: ipu.convolutions.poplar_options={ availableMemoryProportion = \"0.6\" } "
        "ipu.matmuls.poplar_options={ availableMemoryProportion = \"0.6\" } pipeline.device_mapping=[0, 0, 0, 0] "
        "pipeline.offload_gradient_accumulation_buffers=true pipeline.offload_weight_update_variables=true "
        "pipeline.replicated_optimizer_state_sharding=true pipeline.replicated_weight_sharding=true "
        "pipeline.schedule=sequential\n"
        "    (declared stages on IPUs [0, 0, 0, 0]): IPU 0 of a replica needs 3.2 MiB at its peak, 351.2 KiB (12.2%) "
        "more than its 2.8 MiB\n"
        "hint: not tried: 0 candidates of the space; other values of the knobs held at one (accumulators, "
        "accumulation order, batch serialization). Give more IPUs, a smaller global batch, more time (--time), or "
        "list values of those knobs in [tune] (or --vary-layout)\n");
}

TEST_CASE("tune's flags override the [tune] keys, which limit the search") {
  // [tune] top = 1, schedules grouped and sequential, recomputation off, one memory proportion.
  const auto run = [](const std::string& flags) {
    const cli_test::Run r =
        cli_test::iputrain("tune cases/four_stage.ipu cases/tune_limits.toml --format json " + flags, "2>/dev/null");
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(r.out);
  };
  const nlohmann::json keys = run("");
  CHECK(keys["ranked"].size() == 1);
  const nlohmann::json flags = run("--top 3");
  REQUIRE(flags["ranked"].size() == 3);
  for (const auto& plan : flags["ranked"]) {
    CAPTURE(plan["summary"]);
    CHECK((plan["schedule"] == "grouped" || plan["schedule"] == "sequential"));
    for (const auto& change : plan["changes"]) {
      const std::string c = change;
      CHECK(c.find("recompute") == std::string::npos);  // off, as the input config has it
      if (c.find("availableMemoryProportion") != std::string::npos) {
        CHECK(c.find("\"0.6\"") != std::string::npos);  // the one value [tune] lists
      }
    }
  }
}

TEST_CASE("--keep-layout keeps the layout a [tune] vary_layout frees, and tune --help says so") {
  const auto run = [](const std::string& flags) {
    const cli_test::Run r =
        cli_test::iputrain("tune cases/four_stage.ipu cases/tune_vary.toml --format json " + flags, "2>/dev/null");
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(r.out);
  };
  const nlohmann::json freed = run("");
  const nlohmann::json kept = run("--keep-layout");
  // [tune] vary_layout searches the mapping, the schedule and the batch; --keep-layout only the
  // knobs the config leaves free (the offloading: 4 candidates), on the config's own layout.
  CHECK(kept["space"] == 4);
  CHECK(freed["space"] > 4);
  for (const auto& change : kept["ranked"][0]["changes"]) {
    const std::string c = change;
    CHECK(c.find("device_mapping") == std::string::npos);
    CHECK(c.find("schedule") == std::string::npos);
  }
  CHECK(cli_test::iputrain("tune cases/four_stage.ipu cases/tune_vary.toml --keep-layout --vary-layout").status != 0);
  const std::string help = cli_test::iputrain("tune --help").out;
  CHECK(help.find("--keep-layout") != std::string::npos);
  CHECK(help.find("[tune] vary_layout") != std::string::npos);
}

TEST_CASE("the REPL's tune keeps to the config's [tune] time and top") {
  const auto repl = [](const std::string& config, const std::string& input) {
    const std::string in = (iputrain_tests::scratch_dir("repl_tune") / "input.txt").string();
    std::ofstream(in) << input;
    return cli_test::iputrain("repl cases/four_stage.ipu " + config, "< " + in + " 2>&1").out;
  };
  // [tune] time = 20, top = 1.
  const std::string limits = repl("cases/tune_limits.toml", "tune\n");
  CHECK(limits.find("of a 20 s budget") != std::string::npos);
  CHECK(limits.find("top 1 (of 1 shown)") != std::string::npos);
  // SECONDS overrides [tune] time.
  CHECK(repl("cases/tune_limits.toml", "tune 15\n").find("of a 15 s budget") != std::string::npos);
  // No [tune] section: the REPL's own 30 s and top 3.
  const std::string plain = repl("cases/four_stage_grouped.toml", "tune\n");
  CHECK(plain.find("of a 30 s budget") != std::string::npos);
  CHECK(plain.find("top 3 (of 3 shown)") != std::string::npos);
}

TEST_CASE("tune names a global batch it took from the input config on other IPUs; --global-batch keeps its own") {
  const cli_test::Run r =
      cli_test::iputrain("tune ../../examples/mnist_mlp.ipu ../../configs/mnist.toml --ipus 4 --plans 8");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("candidates hold a global batch of 256:") != std::string::npos);
  CHECK(r.out.find("the global batch is the input config's on these IPUs: 4 IPUs for its 1 and 256 samples per "
                   "update for its 32; --global-batch 32 keeps its own\n") != std::string::npos);
  const cli_test::Run kept = cli_test::iputrain(
      "tune ../../examples/mnist_mlp.ipu ../../configs/mnist.toml --ipus 4 --global-batch 32 --plans 8");
  REQUIRE(kept.status == 0);
  CHECK(kept.out.find("candidates hold a global batch of 32:") != std::string::npos);
  CHECK(kept.out.find("the global batch is the input config's") == std::string::npos);
  const cli_test::Run json = cli_test::iputrain(
      "tune ../../examples/mnist_mlp.ipu ../../configs/mnist.toml --ipus 4 --plans 8 --format json", "2>/dev/null");
  REQUIRE(json.status == 0);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  CHECK(j["own_ipus"] == 1);
  CHECK(j["own_global_batch"] == 32);
  CHECK(j["global_batch"] == 256);
}
