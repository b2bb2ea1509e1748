// Issue 33, item 5: the training log as a Keras user reads it. The learning rate on the step lines
// and in the outfeed file (warmup and cosine decay), the throughput without validation time, one
// summary whose times add up, one bubble figure unless --verbose, plain words, one metric order on
// every line, an ETA in a piped log, and `--log-format json` for tools.
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

// tiny (loss, then accuracy) with a warmup of 5 updates, then cosine decay over 30 to 0, a line
// per step and a validation every 10 steps.
fs::path schedule_config() {
  const fs::path dir = iputrain_tests::scratch_dir("log_test");  // removed when the process exits
  std::ofstream(dir / "s.toml") << "extends = \"" << fs::absolute("cases/tiny.toml").string() << "\"\n"
                                << "[data]\nvalidation_split = 0.25\n"
                                << "[optimizer]\nwarmup_steps = 5\nlr_schedule = \"cosine\"\ndecay_steps = 30\n"
                                << "[training]\nsteps = 40\nsteps_per_execution = 2\nlog_every = 1\n"
                                << "validate_every = 10\nvalidate_every_unit = \"steps\"\n";
  return dir;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    out.push_back(line);
  }
  return out;
}

std::string line_starting(const std::string& text, const std::string& start) {
  for (const std::string& line : lines(text)) {
    if (line.rfind(start, 0) == 0) {
      return line;
    }
  }
  return {};
}

}  // namespace

TEST_CASE("log: the step lines show the learning rate through warmup and decay, and the outfeed file has it") {
  const fs::path dir = schedule_config();
  const Run r = cli_test::iputrain("train cases/tiny.ipu " + (dir / "s.toml").string() + " --outfeed " +
                                   (dir / "o.csv").string());
  REQUIRE_MESSAGE(r.status == 0, r.out);
  // Warmup: lr0 (k + 1) / 5; then 0.1 (1 + cos(pi s / 30)) / 2 from s = 0 at step 6, 0 from step 36.
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"step  1/40", "lr 0.02 "},    {"step  2/40", "lr 0.04 "},    {"step  5/40", "lr 0.1 "},
      {"step 10/40", "lr 0.09568 "}, {"step 20/40", "lr 0.05523 "}, {"step 35/40", "lr 0.0002739 "},
      {"step 40/40", "lr 0 "}};
  for (const auto& [step, lr] : expected) {
    const std::string line = line_starting(r.out, step);
    CHECK_MESSAGE(line.find(lr) != std::string::npos, line);
  }
  const std::vector<std::string> rows = lines(cli_test::bytes_of(dir / "o.csv"));
  REQUIRE(rows.size() == 41);
  CHECK(rows[0] == "step,micro_batch,replica,learning_rate,loss,accuracy");
  CHECK(rows[1].rfind("1,0,0,0.02,", 0) == 0);
  CHECK(rows[10].rfind("10,0,0,0.09567727,", 0) == 0);
  CHECK(rows[40].rfind("40,0,0,0,", 0) == 0);
  // The summary's values carry the last rate too.
  CHECK(line_starting(r.out, "mean of step 40:").find("  lr 0  val_loss ") != std::string::npos);
}

TEST_CASE("log: one metric order, an ETA when piped, plain words, one summary whose times add up") {
  const fs::path dir = schedule_config();
  const Run r = cli_test::iputrain("train cases/tiny.ipu " + (dir / "s.toml").string());
  REQUIRE_MESSAGE(r.status == 0, r.out);
  // The model's output order (loss, then accuracy) on the step, validation, summary and test lines.
  const std::string step = R"(^step +\d+/40  epoch \d+\.\d\d  loss \d+\.\d{4}  accuracy \d\.\d{4}  lr [0-9.e-]+  )"
                           R"(\d+ samples/s(  ETA \d+:\d\d)?$)";
  const std::string validation = R"(^validation at step \d+ \(epoch \d\.\d\d\):  val_loss \d+\.\d{4}  )"
                                 R"(val_accuracy \d\.\d{4}$)";
  int steps = 0;
  int etas = 0;
  int validations = 0;
  for (const std::string& line : lines(r.out)) {
    if (line.rfind("step ", 0) == 0) {
      CHECK_MESSAGE(test_regex::matches(line, step), line);
      ++steps;
      etas += line.find("  ETA ") != std::string::npos ? 1 : 0;
    } else if (line.rfind("validation at", 0) == 0) {
      CHECK_MESSAGE(test_regex::matches(line, validation), line);
      ++validations;
    }
  }
  CHECK(steps == 40);
  CHECK(etas == 39);  // a piped log (no terminal) has the ETA on every line but the last
  CHECK(validations == 4);
  CHECK(test_regex::found(r.out, R"(\ntest:  loss \d+\.\d{4}  accuracy \d\.\d{4}  \(64 samples\)\n)"));
  CHECK(test_regex::found(r.out,
                          R"(\nmean of step 40:  loss \d+\.\d{4}  accuracy \d\.\d{4}  lr 0  val_loss \d+\.\d{4}  )"
                          R"(val_accuracy \d\.\d{4}\n)"));
  CHECK(r.out.find("outfed") == std::string::npos);
  // One summary: wall = training + validation + the rest; the run report repeats no real time.
  const std::vector<std::string> m =
      test_regex::search(r.out, R"(trained 40 steps \(320 samples\) to epoch 1\.67 in (\d+\.\d\d) s: (\d+\.\d\d) s )"
                                R"(training at \d+ samples/s \(\d+ after the first execution\), (\d+\.\d\d) s )"
                                R"(validation, (\d+\.\d\d) s checkpoints and host\n)");
  REQUIRE_MESSAGE(m.size() == 5, r.out);
  const double parts = std::stod(m[2]) + std::stod(m[3]) + std::stod(m[4]);
  CHECK(std::abs(parts - std::stod(m[1])) <= 0.021);  // each rounded to 0.01 s
  CHECK(r.out.find("updates in") == std::string::npos);
  CHECK(test_regex::found(r.out, R"(\nrun: 1 virtual IPU \(1 replica x 1\); the 40 updates take )"));
}

TEST_CASE("log: one IPU has no bubble: the default figure is the plan's, the same on every run") {
  // Issue 44, item 8: the default line showed the measured idle time (2-17 % between identical runs
  // of one IPU, whose plan has none).
  const Run r = cli_test::iputrain("train cases/tiny.ipu cases/tiny.toml --no-eval");  // one IPU, both stages
  REQUIRE_MESSAGE(r.status == 0, r.out);
  CHECK_MESSAGE(r.out.find("\nbubble: 0% of the IPUs' time idle in the pipeline, as planned") != std::string::npos,
                r.out);
}

TEST_CASE("log: one bubble figure by default, all four with --verbose") {
  const std::string cmd = "train cases/tiny.ipu cases/tiny.toml --no-eval";
  const Run plain = cli_test::iputrain(cmd);
  REQUIRE(plain.status == 0);
  CHECK(test_regex::found(plain.out, R"(\nbubble: \d+% of the IPUs' time idle in the pipeline, as planned )"
                                     R"(\(--verbose: measured, simulated\)\n)"));
  CHECK(plain.out.find("analytic") == std::string::npos);
  const Run verbose = cli_test::iputrain(cmd + " --verbose");
  REQUIRE(verbose.status == 0);
  CHECK(test_regex::found(verbose.out, R"(\nbubble: \d+% planned, \d+% on the simulated clocks, \d+% )"
                                       R"(analytic, \d+% measured on this host\n)"));
}

TEST_CASE("log: the summary's values are the last log line's means, the last batch alone only with --verbose") {
  // Issue 44, item 5: the summary printed the last batch's outputs ("final values"), which a reader
  // takes for the run's result. 40 steps logged every 4: the last window is steps 37-40.
  const fs::path dir = schedule_config();
  std::ofstream(dir / "w.toml") << "extends = \"s.toml\"\n[training]\nlog_every = 4\n";
  for (const bool verbose : {false, true}) {
    CAPTURE(verbose);
    const Run r = cli_test::iputrain("train cases/tiny.ipu " + (dir / "w.toml").string() + " --no-eval -q" +
                                     (verbose ? " --verbose" : ""));
    REQUIRE_MESSAGE(r.status == 0, r.out);
    const std::string summary = line_starting(r.out, "mean of steps 37-40:");
    REQUIRE_MESSAGE(!summary.empty(), r.out);
    CHECK((line_starting(r.out, "last batch alone (step 40):").empty() == !verbose));
    // The same figures as the log's line of step 40 (printed when not quiet).
    const Run logged = cli_test::iputrain("train cases/tiny.ipu " + (dir / "w.toml").string() + " --no-eval");
    REQUIRE(logged.status == 0);
    const std::string line = line_starting(logged.out, "step 40/40");
    const std::string means = line.substr(line.find("  loss"), line.find("  lr") - line.find("  loss"));
    CHECK_MESSAGE(summary.find(means + "  lr ") != std::string::npos, summary << " | " << line);
  }
  const Run json = cli_test::iputrain(
      "train cases/tiny.ipu " + (dir / "w.toml").string() + " --no-eval --log-format json", "2>/dev/null");
  REQUIRE(json.status == 0);
  const std::string last = json.out.substr(json.out.rfind("{\"event\":\"summary\""));
  CHECK(last.find("\"metrics_steps\":[37,40]") != std::string::npos);
  CHECK(last.find("\"last_batch_metrics\":{\"loss\":") != std::string::npos);
}

TEST_CASE("log: --log-format json writes one object per line, steps, validations, summary and test") {
  const fs::path dir = schedule_config();
  const Run r =
      cli_test::iputrain("train cases/tiny.ipu " + (dir / "s.toml").string() + " --log-format json", "2>/dev/null");
  REQUIRE(r.status == 0);
  std::vector<nlohmann::ordered_json> events;
  for (const std::string& line : lines(r.out)) {
    events.push_back(nlohmann::ordered_json::parse(line));  // every line of stdout is one JSON object
  }
  REQUIRE(events.size() == 40 + 4 + 2);
  const nlohmann::ordered_json& first = events.front();
  CHECK(first["event"] == "step");
  CHECK(first["step"] == 1);
  CHECK(first["steps"] == 40);
  CHECK(first["learning_rate"] == 0.02);            // the applied f32 rate as its shortest decimal
  CHECK(first["metrics"].begin().key() == "loss");  // the model's output order
  CHECK(first["metrics"].size() == 2);
  CHECK(first["samples_per_second"].get<double>() > 0);
  CHECK(first["eta_seconds"].is_number());
  int validations = 0;
  for (const auto& e : events) {
    if (e["event"] == "validation") {
      ++validations;
      CHECK(e["metrics"].begin().key() == "val_loss");
    }
  }
  CHECK(validations == 4);
  const nlohmann::ordered_json& summary = events[events.size() - 2];
  REQUIRE(summary["event"] == "summary");
  CHECK(summary["steps"] == 40);
  CHECK(summary["samples"] == 320);
  CHECK(summary["learning_rate"] == 0.0);
  CHECK(summary["validation"].contains("val_accuracy"));
  // The rate is over the training time alone, which validation is not part of.
  const double train = summary["train_seconds"].get<double>();
  CHECK(train + summary["validation_seconds"].get<double>() <= summary["seconds"].get<double>());
  CHECK(summary["samples_per_second"].get<double>() * train == doctest::Approx(320.0));
  const nlohmann::ordered_json& test = events.back();
  CHECK(test["event"] == "test");
  CHECK(test["samples"] == 64);
  CHECK(test["metrics"].begin().key() == "loss");
  // The human words went to stderr.
  const Run both =
      cli_test::iputrain("train cases/tiny.ipu " + (dir / "s.toml").string() + " --log-format json", "2>&1 >/dev/null");
  CHECK(both.out.find("training tiny on 1 virtual IPU") != std::string::npos);
  CHECK(both.out.find("bubble: ") != std::string::npos);
}
