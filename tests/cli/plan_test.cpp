// `iputrain plan`: the three formats on the example configs, -o, --dump-after and the errors.
#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../scratch_dir.hpp"
#include "run_cli.hpp"

namespace {

using cli_test::Run;

bool has(const std::string& out, const std::string& text) {
  if (out.find(text) != std::string::npos) {
    return true;
  }
  MESSAGE("looked for: " << text << "\noutput was:\n" << out);
  return false;
}

const std::string kMnist = "../../examples/mnist_mlp.ipu ";

}  // namespace

TEST_CASE("plan: the text report of the pipelined MNIST MLP") {
  const Run r = cli_test::iputrain("plan " + kMnist + "../../configs/mnist_pipeline.toml");
  CHECK(r.status == 0);
  CHECK(has(r.out,
            "plan for mnist_mlp: 2 replicas x 2 IPUs per replica = 4 IPUs; interleaved schedule, "
            "gradient accumulation 8; micro-batch 32, global batch 512\n"));
  // hidden = 256 in the config: 784 x 256 + 256 parameters in `features`; snake order puts the
  // second replica's IPUs on physical 3 and 2.
  CHECK(has(r.out, "\nfeatures           0    0  0,3           200960    785.0 KiB"));
  CHECK(has(r.out, "\nclassifier         1    1  1,2"));
  CHECK(has(r.out, "memory per IPU at its peak timestep, of 897.0 MiB each"));
  CHECK(has(r.out, "  [#"));
  CHECK(has(r.out, "schedule: interleaved, 8 micro-batches per replica in 18 timesteps"));
  CHECK(has(r.out, "IPU 0  |F0   |.    |F1   |B0   |"));
  CHECK(has(r.out, "samples/s over 2 replicas"));
  CHECK(has(r.out, "analytic (interleaved schedule, 8 micro-batches)"));
}

TEST_CASE("plan: JSON for tools, --set applied") {
  const Run r = cli_test::iputrain(
      "plan " + kMnist + "../../configs/mnist_grouped.toml --format json --set pipeline.schedule=sequential",
      "2>/dev/null");
  REQUIRE(r.status == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["schedule"] == "sequential");
  CHECK(j["replicas"] == 1);
  CHECK(j["ipus_per_replica"] == 2);
  CHECK(j["gradient_accumulation_count"] == 4);
  CHECK(j["global_batch"] == 32);
  REQUIRE(j["ipus"].size() == 2);
  CHECK(j["ipus"][1]["stages"] == nlohmann::json::array({"classifier"}));
  for (const char* key : {"weights", "optimizer_state", "accumulators", "activations_peak", "io_buffers",
                          "total_peak", "capacity"}) {
    CAPTURE(key);
    CHECK(j["ipus"][0]["memory"][key].is_number_integer());
  }
  CHECK(j["ipus"][0]["memory"]["weights"] == (784 * 128 + 128) * 4);
  CHECK(j["predicted"]["analytic_bubble_fraction"] == 0.5);  // sequential on 2 IPUs: one busy at a time
  // 4 micro-batches in the canonical tree: 2 partial sums per weight; the sequential order 1.
  const nlohmann::json& acc = j["gradient_accumulation"];
  CHECK(acc["order"] == "canonical");
  CHECK(acc["buffers_per_weight"] == 2);
  CHECK(acc["cost_by_order"]["canonical"]["bytes_per_ipu"][0] == j["ipus"][0]["memory"]["accumulators"]);
  CHECK(acc["cost_by_order"]["sequential"]["buffers_per_weight"] == 1);
  CHECK(acc["cost_by_order"]["sequential"]["bytes_per_ipu"][0] == (784 * 128 + 128) * 4);
  const Run seq = cli_test::iputrain("plan " + kMnist +
                                         "../../configs/mnist_grouped.toml --format json "
                                         "--set pipeline.gradient_accumulation_order=sequential",
                                     "2>/dev/null");
  REQUIRE(seq.status == 0);
  const nlohmann::json s = nlohmann::json::parse(seq.out);
  CHECK(s["gradient_accumulation"]["order"] == "sequential");
  CHECK(s["gradient_accumulation"]["buffers_per_weight"] == 1);
  CHECK(s["ipus"][0]["memory"]["accumulators"] == (784 * 128 + 128) * 4);
}

TEST_CASE("plan: device presets and the IPU Model's tile count reach the JSON report") {
  auto plan_json = [](const std::string& sets) {
    const Run r =
        cli_test::iputrain("plan " + kMnist + "../../configs/mnist_grouped.toml --format json " + sets, "2>/dev/null");
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(r.out);
  };
  const nlohmann::json mk2 = plan_json("");
  const nlohmann::json bow = plan_json("--set device.version=bow");
  const nlohmann::json small = plan_json("--set ipu.ipu_model.tiles_per_ipu=736");
  CHECK(mk2["device"] == "ipu2");
  CHECK(bow["device"] == "bow");
  CHECK(mk2["ipus"][0]["memory"]["capacity"] == 1472LL * 638976);
  CHECK(bow["ipus"][0]["memory"]["capacity"] == mk2["ipus"][0]["memory"]["capacity"]);
  CHECK(bow["predicted"]["samples_per_second"].get<double>() >
        mk2["predicted"]["samples_per_second"].get<double>());
  CHECK(small["ipus"][0]["memory"]["capacity"] == 736LL * 638976);
  // configs/ipu2.toml, which mnist_grouped.toml extends, sets `device.version`: the IPU Model's
  // version may not say otherwise.
  const Run both =
      cli_test::iputrain("plan " + kMnist + "../../configs/mnist_grouped.toml --set ipu.ipu_model.version=bow");
  CHECK(both.status == 2);
  CHECK(has(both.out, "`device.version` = \"ipu2\" contradicts `ipu.ipu_model.version` = \"bow\""));
}

TEST_CASE("plan: DOT written atomically with -o") {
  const auto dir = iputrain_tests::scratch_dir("cli_test");
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "plan.dot").string();
  std::filesystem::remove(file);
  const Run r = cli_test::iputrain("plan " + kMnist + "../../configs/mnist_interleaved.toml --format dot -o " + file);
  CHECK(r.status == 0);
  CHECK(has(r.out, "wrote the plan (dot) to " + file));
  std::ifstream in(file);
  std::stringstream dot;
  dot << in.rdbuf();
  CHECK(dot.str().rfind("digraph \"mnist_mlp\" {\n", 0) == 0);
  CHECK(has(dot.str(), "subgraph cluster_ipu1"));
  CHECK(has(dot.str(), "stage0 -> stage1"));
  // Nothing else is left in the folder (the temporary file was renamed).
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    CHECK(entry.path().filename().string().find(".tmp.") == std::string::npos);
  }
  // A missing folder is made (tests/cli/faults_test.cpp); a path under a file is refused before planning.
  const Run bad = cli_test::iputrain("plan " + kMnist + "../../configs/mnist_grouped.toml -o /dev/null/plan.txt");
  CHECK(bad.status == 1);
  CHECK(has(bad.out, "cannot write -o `/dev/null/plan.txt`: `/dev/null` is a file, not a folder"));
}

TEST_CASE("plan: --dump-after prints the planner's state to stderr, unknown passes are refused") {
  const Run r = cli_test::iputrain(
      "plan " + kMnist + "../../configs/mnist_grouped.toml --format json --dump-after lower", "2>&1 >/dev/null");
  CHECK(r.status == 0);
  CHECK(has(r.out, "after lower"));
  CHECK(has(r.out, "ipu 0: infeed m0; F0.m0;"));
  const Run bad = cli_test::iputrain("plan " + kMnist + "../../configs/mnist_grouped.toml --dump-after lowr");
  CHECK(bad.status == 2);
  CHECK(has(bad.out, "the planner has no pass `lowr`"));
  CHECK(has(bad.out, "did you mean `lower`?"));
}

TEST_CASE("plan: --explain-passes prints the pass table, a row per pass in order") {
  const Run r = cli_test::iputrain("plan " + kMnist + "../../configs/mnist_grouped.toml --explain-passes");
  CHECK(r.status == 0);
  std::istringstream lines(r.out);
  std::string line;
  std::getline(lines, line);
  CHECK(line.rfind("pass ", 0) == 0);
  CHECK(has(line, "reads"));
  CHECK(has(line, "writes"));
  std::vector<std::string> names;
  while (std::getline(lines, line)) {
    names.push_back(line.substr(0, line.find(' ')));
  }
  // The same passes, in the same order, as --dump-after lists when it is given an unknown one.
  const Run bad = cli_test::iputrain("plan " + kMnist + "../../configs/mnist_grouped.toml --dump-after none");
  const size_t listed = bad.out.find("the passes are: ");
  REQUIRE(listed != std::string::npos);
  std::string known = bad.out.substr(listed + 16);
  known = known.substr(0, known.find('\n'));
  std::string joined;
  for (const std::string& name : names) {
    joined += (joined.empty() ? "" : ", ") + name;
  }
  CHECK(joined == known);
  CHECK(names.size() == 11);  // "fuse" joined the ten (issue 48)
  CHECK(has(r.out, "programs.arenas"));
  CHECK(has(r.out, "settings, placement"));
}

TEST_CASE("plan: bad formats and plans that cannot be made exit with status 2") {
  const Run format = cli_test::iputrain("plan " + kMnist + "../../configs/mnist_grouped.toml --format xml");
  CHECK(format.status == 2);
  CHECK(has(format.out, "--format"));
  // A 400,000-wide hidden layer: 1.2 GiB of weights on IPU 0 alone.
  const Run big = cli_test::iputrain("plan " + kMnist + "../../configs/mnist_grouped.toml --set model.hidden=400000");
  CHECK(big.status == 2);
  CHECK(has(big.out, "the plan does not fit in memory: IPU 0"));
  CHECK(has(big.out, "hint:"));
  const Run count = cli_test::iputrain("plan " + kMnist +
                                       "../../configs/mnist_grouped.toml --set pipeline.gradient_accumulation_count=3");
  CHECK(count.status == 2);
  CHECK(has(count.out, "gradient_accumulation_count"));
}

TEST_CASE("plan: --gantt and --memory-svg draw valid SVG pictures") {
  const auto dir = iputrain_tests::scratch_dir("plan_svg_test");
  std::filesystem::create_directories(dir);
  const std::string gantt = (dir / "gantt.svg").string();
  const std::string memory = (dir / "memory.svg").string();
  const Run r = cli_test::iputrain("plan " + kMnist + "../../configs/mnist_pipeline.toml --gantt " + gantt +
                                   " --memory-svg " + memory + " --format json");
  CHECK(r.status == 0);
  for (const std::string& path : {gantt, memory}) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    CHECK(text.str().find("<svg") != std::string::npos);
    CHECK(std::system(("xmllint --noout " + path).c_str()) == 0);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("plan: a GPT-3-sized stack on a Pod256 is refused, with what would make it fit") {
  // 96 blocks of hidden 12288 on 16 IPUs per replica (examples/ipu_scale/gpt3_pod256.toml).
  const Run r = cli_test::iputrain(
      "plan ../../examples/ipu_scale/gpt3.ipu ../../examples/ipu_scale/gpt3_pod256.toml --format json");
  CHECK(r.status == 2);
  CHECK(has(r.out, "the plan does not fit in memory: IPU 0 (physical IPU 0 in replica 0) needs 57.13 GiB"));
  // IPU 0 holds 6 blocks of 12 x 12288^2 (+ 13 x 12288) fp16 weights, 20.25 GiB, with the token
  // table (50304 x 12288, 1.15 GiB) and the positions: 21.45 GiB; one fp16 accumulator per weight
  // and a second one for the table the LM head also reads: 22.60 GiB.
  CHECK(has(r.out, "21.45 GiB  weights"));
  CHECK(has(r.out, "22.60 GiB  gradient accumulators"));
  // Streaming memory: 34 micro-batches x 2 x (21.45 + 22.60) GiB + 2 x 21.45 GiB for the update =
  // 3038.4 GiB per update over 32 GB/s, 102 s; without them the replica still holds 163 GiB, so
  // at least 187 IPUs per replica.
  CHECK(has(r.out,
            "streaming memory (pipeline.replicated_weight_sharding = true with pipeline.offload_weights = "
            "true and pipeline.offload_gradient_accumulation_buffers = true): the weights (21.45 GiB) and "
            "gradient accumulators (22.60 GiB) stream in and out of this IPU at the modelled 32 GB/s "
            "(device.host_bandwidth), 3038.40 GiB per weight update (34 forward and backward passes and the "
            "update), 101.95 s per update"));
  CHECK(has(r.out, "at least 187 IPUs of 897.0 MiB per replica (pod256 has 256 IPUs): peak about 13.08 GiB"));
  CHECK(has(r.out, "more stages on more IPUs: the replica holds 814.90 GiB, so at least 931 IPUs"));
}

TEST_CASE("plan: a host table's bytes and host-link traffic, in text and JSON, outside the IPU's memory") {
  const auto dir = iputrain_tests::scratch_dir("plan_host_table");
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  const std::string model = write("tagger.ipu", R"(import nn

model tagger(host: bool = true) {
  input ids: i32[32, 8]
  input label: i32[32, 8]
  if host {
    e = nn.host_embedding(ids, vocab = 100000, dim = 64)
  } else {
    e = nn.embedding(ids, 100000, 64)
  }
  param decoder: f32[12, 64] = normal(stddev = 0.3)
  minimize mean(softmax_cross_entropy(e @ transpose(decoder), label))
}
)");
  const std::string config = write("tagger.toml",
                                   "[optimizer]\ntype = \"adam\"\nlearning_rate = 0.01\n"
                                   "[data]\ntrain = \"synthetic:samples=512,classes=12\"\n"
                                   "[pipeline]\ngradient_accumulation_count = 4\n");
  const Run text = cli_test::iputrain("plan " + model + " " + config);
  REQUIRE(text.status == 0);
  // 100000 x 64 floats: the table, its gradient, Adam's two moments and two accumulators.
  CHECK(has(text.out, "host tables of IPU 0 in host memory (nn.host_embedding, per replica): 146.5 MiB"));
  CHECK(has(text.out, "per micro-batch the host link carries 64.0 KiB of rows in and 64.0 KiB of row gradients out"));
  auto json = [&](const std::string& sets) {
    const Run r = cli_test::iputrain("plan " + model + " " + config + " --format json " + sets, "2>/dev/null");
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(r.out);
  };
  const nlohmann::json host = json("");
  const nlohmann::json device = json("--set model.host=false");
  const nlohmann::json& h = host["ipus"][0]["memory"];
  CHECK(h["weights"] == 12 * 64 * 4);
  CHECK(device["ipus"][0]["memory"]["weights"] == (100000 + 12) * 64 * 4);
  CHECK(h["host_tables"] == 6 * 100000 * 64 * 4);
  CHECK(h["host_rows_in_per_micro_batch"] == 32 * 8 * 64 * 4);
  CHECK(h["host_grads_out_per_micro_batch"] == 32 * 8 * 64 * 4);
  CHECK(host["predicted"]["host_table_bytes_per_update"] == 4.0 * (32 * 8 * 4 + 2 * 32 * 8 * 64 * 4));
  CHECK_FALSE(device["ipus"][0]["memory"].contains("host_tables"));
  CHECK(host["predicted"]["breakdown_seconds"]["host_io"] > device["predicted"]["breakdown_seconds"]["host_io"]);
}

TEST_CASE("plan: --dump-after fuse names the pairs run as one kernel, and IPUTRAIN_FUSE=off trains the same bits") {
  // tiny.ipu's one dense relu layer: its bias add and relu, one pair of the forward task.
  const Run d = cli_test::iputrain("plan cases/tiny.ipu cases/tiny.toml --dump-after fuse");
  CHECK(d.status == 0);
  CHECK(has(d.out, "// after fuse\nstage 0 forward: %"));
  CHECK(has(d.out, " add + %"));
  CHECK(has(d.out, " relu\n"));
  // The engine runs the plan's pairs fused, or one by one where it is told to: the same weights.
  const auto dir = std::filesystem::temp_directory_path();
  const std::string on = (dir / "iputrain_plan_test_fused.safetensors").string();
  const std::string off = (dir / "iputrain_plan_test_unfused.safetensors").string();
  const std::string args = "train cases/tiny.ipu cases/tiny.toml -q --no-eval --save ";
  CHECK(cli_test::iputrain(args + on).status == 0);
  CHECK(cli_test::iputrain(args + off, "2>&1", "IPUTRAIN_FUSE=off").status == 0);
  const std::string fused = cli_test::bytes_of(on);
  CHECK(!fused.empty());
  CHECK(fused == cli_test::bytes_of(off));
  std::filesystem::remove(on);
  std::filesystem::remove(off);
}
