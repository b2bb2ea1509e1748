// `train --outfeed FILE` and the profile directory of `[profiling]`: what they hold follows the
// config's outfeed and profiling keys.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../scratch_dir.hpp"
#include "run_cli.hpp"
#include "tests/regex_util.hpp"

namespace fs = std::filesystem;
using cli_test::Run;

namespace {

fs::path fresh(const std::string& name) {
  const fs::path dir = iputrain_tests::scratch_dir("outfeed_profile") / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::vector<std::string> lines_of(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    out.push_back(line);
  }
  return out;
}

std::string text_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// tiny: 2 stages on one IPU, micro-batch 8, steps_per_execution 10; `sets` are extra --set.
Run train(const std::string& sets, const fs::path& outfeed) {
  return cli_test::iputrain(
      "train cases/tiny.ipu cases/tiny.toml --no-eval --set training.steps=4 "
      "--set training.steps_per_execution=2 --set ipu.auto_select_ipus=2 "
      "--set 'pipeline.device_mapping=[0, 1]' --set pipeline.gradient_accumulation_count=4 " +
      sets + " --outfeed " + outfeed.string());
}

}  // namespace

TEST_CASE("--outfeed writes what the outfeed holds, as the outfeed keys say") {
  const fs::path dir = fresh("outfeed");
  // all: one row per micro-batch (4 per step) of every step, every output.
  const Run all = train("", dir / "all.csv");
  REQUIRE_MESSAGE(all.status == 0, all.out);
  auto rows = lines_of(dir / "all.csv");
  REQUIRE(rows.size() == 1 + 4 * 4);
  CHECK(rows[0] == "step,micro_batch,replica,learning_rate,loss,accuracy");
  CHECK(rows[1].rfind("1,0,0,0.1,", 0) == 0);  // optimizer.learning_rate = 0.1, constant
  CHECK(rows[16].rfind("4,3,0,0.1,", 0) == 0);
  CHECK(all.out.find("step 4/4") != std::string::npos);
  CHECK(all.out.find("wrote the outfeed to " + (dir / "all.csv").string()) != std::string::npos);

  // last: only the newest element of each execution (of 2 steps), and the log shows those steps.
  const Run last = train("--set 'training.outfeed_mode=\"last\"'", dir / "last.csv");
  REQUIRE_MESSAGE(last.status == 0, last.out);
  rows = lines_of(dir / "last.csv");
  REQUIRE(rows.size() == 3);
  CHECK(rows[1].rfind("2,3,0,0.1,", 0) == 0);
  CHECK(rows[2].rfind("4,3,0,0.1,", 0) == 0);
  CHECK(last.out.find("step 1/4") == std::string::npos);
  CHECK(last.out.find("step 2/4") != std::string::npos);

  // accumulate_outfeed: one summed element per step.
  const Run summed = train("--set pipeline.accumulate_outfeed=true", dir / "sum.csv");
  REQUIRE_MESSAGE(summed.status == 0, summed.out);
  rows = lines_of(dir / "sum.csv");
  REQUIRE(rows.size() == 5);
  CHECK(rows[1].rfind("1,sum,0,0.1,", 0) == 0);

  // outfeed_loss: the loss alone, in the file and the log; outfeed_mask drops the masked output.
  const Run loss = train("--set pipeline.outfeed_loss=true", dir / "loss.csv");
  CHECK(lines_of(dir / "loss.csv")[0] == "step,micro_batch,replica,learning_rate,loss");
  CHECK(loss.out.find("accuracy") == std::string::npos);
  const Run masked = train("--set 'pipeline.outfeed_mask=[false, true]'", dir / "masked.csv");
  CHECK(lines_of(dir / "masked.csv")[0] == "step,micro_batch,replica,learning_rate,loss");
  CHECK(masked.out.find("accuracy") == std::string::npos);

  // .npy: one array per value, [elements, ...].
  const Run npy = train("", dir / "out.npy");
  REQUIRE_MESSAGE(npy.status == 0, npy.out);
  const std::string bytes = text_of(dir / "out.loss.npy");
  CHECK(bytes.rfind("\x93NUMPY", 0) == 0);
  CHECK(bytes.find("'shape': (16,)") != std::string::npos);
  CHECK(fs::exists(dir / "out.accuracy.npy"));
  // The learning rates: one per element (16), beside the values.
  const std::string rates = text_of(dir / "out.learning_rate.npy");
  CHECK(rates.find("'descr': '<f4'") != std::string::npos);
  CHECK(rates.find("'shape': (16,)") != std::string::npos);

  const Run bad = train("", dir / "out.txt");
  CHECK(bad.status == 2);
  CHECK(bad.out.find("must end in .csv or .npy") != std::string::npos);
}

TEST_CASE("profiling writes a profile directory whose contents follow the profiling keys") {
  const fs::path dir = fresh("profile");
  auto run = [&](const std::string& name, const std::string& sets) {
    const fs::path where = dir / name;
    const Run r = cli_test::iputrain(
        "train cases/tiny.ipu cases/tiny.toml --no-eval --set training.steps=6 "
        "--set training.steps_per_execution=2 --set profiling.enabled=true "
        "--set 'profiling.report_directory=\"" +
        where.string() + "\"' " + sets);
    REQUIRE_MESSAGE(r.status == 0, r.out);
    CHECK(r.out.find("wrote the profile to " + where.string()) != std::string::npos);
    std::vector<fs::path> runs;
    for (const auto& e : fs::directory_iterator(where)) {
      runs.push_back(e.path());
    }
    REQUIRE(runs.size() == 1);
    CHECK(test_regex::matches(runs[0].filename().string(), "tiny-[0-9]{8}-[0-9]{6}"));
    return runs[0];
  };
  const fs::path basic = run("basic", "");
  for (const char* f :
       {"index.html", "plan.json", "plan.txt", "memory.svg", "schedule.svg", "cycles.csv", "run_report.json"}) {
    CAPTURE(f);
    CHECK(fs::exists(basic / f));
  }
  CHECK_FALSE(fs::exists(basic / "execution.json"));
  CHECK_FALSE(fs::exists(basic / "events.csv"));
  // The plan is the one `iputrain plan --format json` prints (the planner's own timings aside).
  const auto strip = [](nlohmann::json j) {
    j.erase("passes");
    return j;
  };
  const Run plan = cli_test::iputrain(
      "plan cases/tiny.ipu cases/tiny.toml --set training.steps=6 --set training.steps_per_execution=2 --format json",
      "2>/dev/null");
  CHECK(strip(nlohmann::json::parse(text_of(basic / "plan.json"))) == strip(nlohmann::json::parse(plan.out)));
  CHECK(nlohmann::json::parse(text_of(basic / "run_report.json"))["updates"] == 6);
  for (const char* svg : {"memory.svg", "schedule.svg"}) {
    const std::string s = text_of(basic / svg);
    CHECK(s.find("<svg") != std::string::npos);
    CHECK(s.find("</svg>") != std::string::npos);
  }
  // index.html is the page `plan --html` writes: the same charts, the op table and the config.
  const std::string page = text_of(basic / "index.html");
  for (const char* part : {"<svg", "id=\"ops\"", "stdlib/nn.ipu:", "steps_per_execution = 2"}) {
    CAPTURE(part);
    CHECK(page.find(part) != std::string::npos);
  }
  // The summary and memory sections are tables (a row per IPU), not terminal text in a scroll box;
  // the config alone is preformatted, and wraps.
  for (const char* part : {"<table id=\"summary-table\"", "<table id=\"predicted-table\"", "<th>bubble</th>",
                           "<table id=\"memory-table\"", "<tr><td class=\"num\">0</td>", "white-space: pre-wrap"}) {
    CAPTURE(part);
    CHECK(page.find(part) != std::string::npos);
  }
  CHECK(page.find("<pre>") == page.rfind("<pre>"));  // one: the config
  const auto cycles = lines_of(basic / "cycles.csv");
  REQUIRE(cycles.size() > 2);
  CHECK(cycles[0] == "stage,pass,ipu,op,source,cycles");
  CHECK(cycles[1].find("stdlib/nn.ipu:") != std::string::npos);

  // profile_execution adds the execution trace; enable_ipu_events the events; every Nth keeps
  // executions 0, N, 2N (0: the first only).
  const fs::path traced = run("traced", "--set 'profiling.profile_execution=\"device_profile\"' "
                                         "--set profiling.enable_ipu_events=true");
  CHECK(nlohmann::json::parse(text_of(traced / "execution.json")).contains("traceEvents"));
  const auto first_only = lines_of(traced / "events.csv").size();
  const fs::path every = run("every", "--set profiling.enable_ipu_events=true --set profiling.report_every_nth_execution=1");
  const fs::path second = run("second", "--set profiling.enable_ipu_events=true --set profiling.report_every_nth_execution=2");
  const auto all_rows = lines_of(every / "events.csv").size();
  const auto every_second = lines_of(second / "events.csv").size();
  CHECK(all_rows - 1 == 3 * (first_only - 1));     // 3 executions of 2 steps
  CHECK(every_second - 1 == 2 * (first_only - 1));  // executions 0 and 2

  // A file over max_report_size is left out, and the profile says so.
  const fs::path small = run("small", "--set profiling.max_report_size=1000");
  CHECK_FALSE(fs::exists(small / "plan.json"));
  CHECK(text_of(small / "omitted.txt").find("plan.json:") != std::string::npos);

  // enable_ipu_events alone: the events, no reports.
  const fs::path events_only = dir / "events_only";
  const Run e = cli_test::iputrain(
      "train cases/tiny.ipu cases/tiny.toml --no-eval --set training.steps=2 "
      "--set profiling.enable_ipu_events=true --set 'profiling.report_directory=\"" +
      events_only.string() + "\"'");
  REQUIRE_MESSAGE(e.status == 0, e.out);
  const fs::path only = fs::directory_iterator(events_only)->path();
  CHECK(fs::exists(only / "events.csv"));
  CHECK_FALSE(fs::exists(only / "plan.json"));
}

TEST_CASE("ipu.serialization_output_folder saves what the session runs") {
  const fs::path dir = fresh("executable");
  const Run r = cli_test::iputrain(
      "train cases/tiny.ipu cases/tiny.toml --no-eval --set training.steps=1 "
      "--set 'ipu.serialization_output_folder=\"" +
      (dir / "exe").string() + "\"'");
  REQUIRE_MESSAGE(r.status == 0, r.out);
  CHECK(nlohmann::json::parse(text_of(dir / "exe" / "tiny.plan.json"))["model"] == "tiny");
  const auto programs = lines_of(dir / "exe" / "tiny.programs.txt");
  REQUIRE(programs.size() > 2);
  CHECK(programs[0] == "ipu 0:");
  CHECK(text_of(dir / "exe" / "tiny.programs.txt").find("update") != std::string::npos);
}
