// Validation while training (data.validation, data.validation_split, training.validate_every,
// checkpoint.keep_best): when it runs, what it computes, which samples it holds out, and which
// checkpoint it keeps.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../scratch_dir.hpp"
#include "engine/validation_cadence.hpp"
#include "iputrain/iputrain.hpp"
#include "test_models.hpp"

using namespace iputrain;
namespace fs = std::filesystem;

namespace {

fs::path temp_dir(const std::string& name) {
  const fs::path d = iputrain_tests::scratch_dir("validation") / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

Session session_for(const std::string& config_text, const std::string& path = "validation.toml") {
  Config config = config::parse(config_text, path);
  return Session(Model::parse(testing::kMlp, "validation.ipu", config.model), config);
}

}  // namespace

TEST_CASE("the validation schedule: every N steps, or after the update that completes every N epochs") {
  using iputrain::engine::next_validation;
  CHECK(next_validation(0, 10, false, 0) == 10);
  CHECK(next_validation(10, 10, false, 0) == 20);
  CHECK(next_validation(13, 10, false, 0) == 20);
  // 2.5 updates per epoch: epoch boundaries after updates 2.5, 5, 7.5 -> validate after 3, 5, 8.
  CHECK(next_validation(0, 1, true, 2.5) == 3);
  CHECK(next_validation(3, 1, true, 2.5) == 5);
  CHECK(next_validation(5, 1, true, 2.5) == 8);
  CHECK(next_validation(0, 2, true, 2.5) == 5);
  CHECK(next_validation(5, 2, true, 2.5) == 10);
}

TEST_CASE("validation runs at its steps and at the end, and gives evaluate()'s numbers") {
  Config config = config::parse(
      "[optimizer]\nlearning_rate = 0.1\n"
      "[data]\ntrain = \"synthetic:samples=512,classes=10\"\nvalidation = \"synthetic:samples=96,classes=10\"\n"
      "[training]\nsteps = 25\nsteps_per_execution = 4\nseed = 5\nvalidate_every = 10\nvalidate_every_unit = "
      "\"steps\"\n",
      "validation.toml");
  Session v(Model::parse(testing::kMlp, "validation.ipu", config.model), config);
  std::vector<int64_t> seen;
  const TrainSummary summary = v.train([&](const Progress& p) {
    for (const ValidationRecord& r : p.validations) {
      seen.push_back(r.step);
    }
  });
  CHECK(seen == std::vector<int64_t>{10, 20, 25});
  REQUIRE(summary.validations.size() == 3);
  CHECK(v.validation_names() == std::vector<std::string>{"val_loss", "val_accuracy"});
  // The last validation is the mean over the validation set with the final weights.
  const EvalResult e = v.evaluate("validation");
  CHECK(std::memcmp(&summary.validations.back().values[0], &e.means.at("loss"), sizeof(double)) == 0);
  CHECK(e.samples == 96);
  // Cutting executions at validation steps does not change training: same weights as without.
  Config plain = config::parse(
      "[optimizer]\nlearning_rate = 0.1\n[data]\ntrain = \"synthetic:samples=512,classes=10\"\n"
      "[training]\nsteps = 25\nsteps_per_execution = 4\nseed = 5\n",
      "plain.toml");
  Session p(Model::parse(testing::kMlp, "plain.ipu", plain.model), plain);
  p.train();
  CHECK(testing::same_bits(p.weights(), v.weights()));
}

TEST_CASE("a validation split holds out the last training samples: training never reads them") {
  // 64 samples of image f32[8, 8]: the last 16 hold 1e30, which would overflow the loss if trained on.
  const fs::path dir = temp_dir("split");
  {
    std::ofstream csv(dir / "data.csv");
    csv << "label";
    for (int j = 0; j < 64; ++j) {
      csv << ",image." << j;
    }
    csv << "\n";
    for (int i = 0; i < 64; ++i) {
      csv << i % 10;
      for (int j = 0; j < 64; ++j) {
        csv << "," << (i >= 48 ? "1e30" : std::to_string(((i * 7 + j * 3) % 11) / 10.0));
      }
      csv << "\n";
    }
  }
  Config held = config::parse(
      "[optimizer]\nlearning_rate = 0.05\n[data]\ntrain = \"csv:data.csv\"\nvalidation_split = 0.25\n"
      "[training]\nsteps = 30\nseed = 1\nvalidate_every = 1\n",
      (dir / "held.toml").string());
  Session s(Model::parse(testing::kMlp, "split.ipu", held.model), held);
  CHECK(s.planned_steps() == 30);
  const TrainSummary t = s.train();
  // Every training loss is finite: no held-out sample was trained on ...
  REQUIRE(!t.last_values.empty());
  CHECK(std::isfinite(t.last_values[0]));
  for (const WeightInfo& w : s.weights()) {
    for (float x : w.values) {
      REQUIRE(std::isfinite(x));
    }
  }
  // ... and validation read exactly them: 16 samples, one micro-batch, a loss no trained model has.
  const EvalResult e = s.evaluate("validation");
  CHECK(e.samples == 16);
  CHECK(!(e.means.at("loss") < 1e6));
  // One epoch is the 48 kept samples: 3 micro-batches of 16, so validation every epoch ran 10 times.
  CHECK(t.validations.size() == 10);
  // Without the split, the same data overflows training.
  Config all = config::parse(
      "[optimizer]\nlearning_rate = 0.05\n[data]\ntrain = \"csv:data.csv\"\n"
      "[training]\nsteps = 30\nseed = 1\n",
      (dir / "all.toml").string());
  Session a(Model::parse(testing::kMlp, "split.ipu", all.model), all);
  const TrainSummary u = a.train();
  bool overflowed = false;
  for (const WeightInfo& w : a.weights()) {
    for (float x : w.values) {
      overflowed = overflowed || !std::isfinite(x);
    }
  }
  CHECK((overflowed || !std::isfinite(u.last_values[0])));
}

TEST_CASE("keep_best keeps the checkpoint of the best validation value, and it resumes to that value") {
  const fs::path dir = temp_dir("best");
  for (const char* mode : {"min", "max"}) {
    CAPTURE(mode);
    const std::string metric = std::string(mode) == "min" ? "val_loss" : "val_accuracy";
    Config config = config::parse(
        "[optimizer]\nlearning_rate = 0.8\n"  // a large rate: validation values go up and down
        "[data]\ntrain = \"synthetic:samples=512,classes=10\"\nvalidation = \"synthetic:samples=64,classes=10\"\n"
        "[training]\nsteps = 24\nsteps_per_execution = 2\nseed = 9\nvalidate_every = 2\nvalidate_every_unit = "
        "\"steps\"\n"
        "[checkpoint]\ndir = \"ck_" +
            std::string(mode) + "\"\nkeep = 1\nevery = 2\nkeep_best = \"" + metric + "\"\nkeep_best_mode = \"" + mode +
            "\"\n",
        (dir / "best.toml").string());
    const std::string model = testing::kMlp;
    Session s(Model::parse(model, "best.ipu", config.model), config);
    const TrainSummary t = s.train();
    REQUIRE(t.validations.size() == 12);
    const size_t k = std::string(mode) == "min" ? 0 : 1;
    std::vector<double> values;
    for (const ValidationRecord& v : t.validations) {
      values.push_back(v.values.at(k));
    }
    const double best = std::string(mode) == "min" ? *std::min_element(values.begin(), values.end())
                                                   : *std::max_element(values.begin(), values.end());
    CHECK(t.best_value == best);
    REQUIRE(fs::path(t.best_checkpoint).filename() == "best.safetensors");
    CHECK(fs::exists(t.best_checkpoint));
    // checkpoint.keep = 1 rotated every step-* but the newest away; best.safetensors stayed.
    int steps_kept = 0;
    for (const auto& e : fs::directory_iterator(fs::path(t.best_checkpoint).parent_path())) {
      steps_kept += e.path().filename().string().starts_with("step-") ? 1 : 0;
    }
    CHECK(steps_kept == 1);
    // The best file holds the weights that scored `best`.
    Session r(Model::parse(model, "best.ipu", config.model), config);
    r.resume(t.best_checkpoint);
    CHECK(r.evaluate("validation").means.at(k == 0 ? "loss" : "accuracy") == best);
  }
}

TEST_CASE("keep_best_min_delta: only an improvement by more than it replaces the best checkpoint") {
  const fs::path dir = temp_dir("best_delta");
  int run = 0;  // a checkpoint directory of its own per run
  for (const double delta : {0.0, 0.05, 1e9}) {
    CAPTURE(delta);
    Config config = config::parse(
        "[optimizer]\nlearning_rate = 0.8\n"
        "[data]\ntrain = \"synthetic:samples=512,classes=10\"\nvalidation = \"synthetic:samples=64,classes=10\"\n"
        "[training]\nsteps = 24\nsteps_per_execution = 2\nseed = 9\nvalidate_every = 2\nvalidate_every_unit = "
        "\"steps\"\n"
        "[checkpoint]\ndir = \"ck_delta_" +
            fmt::format("{}", run++) + "\"\nkeep = 1\nevery = 2\nkeep_best = \"val_loss\"\nkeep_best_min_delta = " +
            fmt::format("{}", delta) + "\n",
        (dir / "best.toml").string());
    Session s(Model::parse(testing::kMlp, "best.ipu", config.model), config);
    const TrainSummary t = s.train();
    REQUIRE(t.validations.size() == 12);
    // The rule by hand: the first value is the best until one is lower by more than delta.
    double best = t.validations.front().values.at(0);
    for (const ValidationRecord& v : t.validations) {
      best = v.values.at(0) < best - delta ? v.values.at(0) : best;
    }
    CHECK(t.best_value == best);
    if (delta > 1e6) {
      CHECK(t.best_value == t.validations.front().values.at(0));  // nothing beats the first by that much
      double lowest = best;
      for (const ValidationRecord& v : t.validations) {
        lowest = std::min(lowest, v.values.at(0));
      }
      CHECK(t.best_value > lowest);  // without the delta a later value would have been kept
    }
  }
  // Without keep_best it would do nothing: refused at its line.
  CHECK_THROWS_WITH_AS(
      config::parse("[checkpoint]\ndir = \"ck\"\nkeep_best_min_delta = 0.1\n", "d.toml"),
      doctest::Contains("`checkpoint.keep_best_min_delta` has no effect without `checkpoint.keep_best`"), Error);
}

TEST_CASE("keep_best naming an output the model lacks is a located error with the nearest name") {
  try {
    Session s = session_for(
        "[data]\ntrain = \"synthetic:samples=256,classes=10\"\nvalidation_split = 0.25\n"
        "[training]\nsteps = 4\n[checkpoint]\ndir = \"ck\"\nkeep_best = \"val_los\"\n");
    s.train();
    FAIL("accepted");
  } catch (const Error& e) {
    const std::string r = e.render();
    CHECK(r.find("validation.toml:8:1: error: `checkpoint.keep_best` = \"val_los\" is not a validation metric") !=
          std::string::npos);
    CHECK(r.find("did you mean \"val_loss\"?") != std::string::npos);
  }
}
