// Inference on the plan (engine/inference.hpp): eval and predict run the forward program on the
// planned cluster, and every plan gives the one-IPU numbers, bit for bit.
#include <doctest/doctest.h>

#include <unistd.h>
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "frontend/model_access.hpp"
#include "iputrain/iputrain.hpp"
#include "planner/plan.hpp"
#include "test_models.hpp"
#include "tests/planner/plan_from_config.hpp"

using namespace iputrain;
namespace fs = std::filesystem;

namespace {

// Four stages with dropout (off in inference) and per-sample outputs besides the loss.
const std::string kModel = R"(import nn

model mlp4p(batch: int = 4, width: int = 32) {
  input x: f32[batch, 16]
  input label: i32[batch]

  stage s0 {
    h0 = nn.dense(x, width, activation = relu)
  }
  stage s1 {
    h1 = nn.dropout(nn.dense(h0, width, activation = relu), 0.25)
  }
  stage s2 {
    h2 = nn.dense(h1, width, activation = tanh)
  }
  stage s3 {
    logits = nn.dense(h2, 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }

  minimize loss
  output loss
  output accuracy = mean(argmax(logits, axis = -1) == label)
  output per_sample probs = softmax(logits)
  output per_sample label_hat = argmax(logits, axis = -1)
}
)";

// 1001 test samples: 250 whole micro-batches of 4, which no cycle below divides, and a tail of 1.
const std::string kData =
    "[data]\ntrain = \"synthetic:samples=512,classes=10\"\ntest = \"synthetic:samples=1001,classes=10\"\n"
    "[training]\nsteps = 6\nseed = 11\n[optimizer]\nlearning_rate = 0.1\n";

std::string plan_config(int ipus_per_replica, int replicas, const std::string& schedule, int accumulation) {
  std::string t = kData + "[ipu]\nauto_select_ipus = " + std::to_string(ipus_per_replica * replicas) + "\n";
  if (ipus_per_replica == 1 && replicas == 1) {
    return t;
  }
  t += "[pipeline]\n";
  t += ipus_per_replica == 1   ? "auto_stages = 1\n"
       : ipus_per_replica == 2 ? "auto_stages = 2\ndevice_mapping = [0, 1]\n"
                               : "device_mapping = [0, 1, 2, 3]\n";
  return t + "schedule = \"" + schedule + "\"\ngradient_accumulation_count = " + std::to_string(accumulation) + "\n";
}

Session session_for(const std::string& config_text) {
  Config config = config::parse(config_text, "inference.toml");
  return Session(Model::parse(kModel, "inference.ipu", config.model), config);
}

// Trained once on one IPU; every plan below evaluates these weights.
const std::string& trained_weights() {
  static const std::string path = [] {
    const fs::path p = fs::temp_directory_path() / ("iputrain_inference_" + std::to_string(::getpid()) + ".safetensors");
    Session s = session_for(plan_config(1, 1, "grouped", 1));
    s.train();
    s.save_weights(p.string());
    return p.string();
  }();
  static const struct RemoveAtExit {
    ~RemoveAtExit() {
      std::error_code ec;
      fs::remove(path, ec);
    }
  } remove_at_exit;
  return path;
}

struct Ran {
  EvalResult eval;
  std::vector<Prediction> predictions;
};

Ran run(const std::string& config_text) {
  Session s = session_for(config_text);
  s.load_weights(trained_weights());
  Ran r{s.evaluate("test"), s.predict("test")};
  // A named value of the first stage, and an output: predicted wherever they are computed.
  for (Prediction& p : s.predict("test", {"h0", "probs"})) {
    r.predictions.push_back(std::move(p));
  }
  return r;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

}  // namespace

TEST_CASE("eval and predict on every plan give the one-IPU numbers and name the IPUs they ran on") {
  const Ran one = run(plan_config(1, 1, "grouped", 1));
  REQUIRE(one.eval.means.count("accuracy") == 1);
  CHECK(one.eval.samples == 1001);  // the last sample too, as a batch of its own (issue 44)
  CHECK(one.eval.last_batch == 1);
  CHECK(one.eval.skipped == 0);
  CHECK(one.eval.ipus == std::vector<int32_t>{0});
  CHECK(one.eval.means.at("accuracy") > 0.0);
  CHECK(one.eval.means.count("probs") == 0);  // per-sample outputs are predictions, not metrics
  REQUIRE(one.predictions.size() == 4);       // probs and label_hat, then h0 and probs
  CHECK(one.predictions[0].samples == 1001);
  CHECK(one.predictions[2].name == "h0");
  CHECK(one.predictions[2].sample_shape == std::vector<int64_t>{32});
  CHECK(same_bits(one.predictions[3].values, one.predictions[0].values));

  struct Case {
    const char* name;
    int ipus, replicas;
    const char* schedule;
    int accumulation;
  };
  for (const Case& c : {Case{"2 stages x 2 replicas, grouped", 2, 2, "grouped", 4},
                        Case{"4 stages, interleaved", 4, 1, "interleaved", 8},
                        Case{"4 stages, sequential", 4, 1, "sequential", 3},
                        Case{"1 IPU x 4 replicas", 1, 4, "grouped", 2}}) {
    CAPTURE(c.name);
    const Ran r = run(plan_config(c.ipus, c.replicas, c.schedule, c.accumulation));
    CHECK(r.eval.samples == 1001);
    CHECK(r.eval.last_batch == 1);
    CHECK(r.eval.replicas == c.replicas);
    CHECK(r.eval.ipus.size() == static_cast<size_t>(c.ipus * c.replicas));
    for (const auto& [name, value] : one.eval.means) {
      CAPTURE(name);
      CHECK(std::memcmp(&r.eval.means.at(name), &value, sizeof(double)) == 0);
    }
    REQUIRE(r.predictions.size() == one.predictions.size());
    for (size_t k = 0; k < r.predictions.size(); ++k) {
      CHECK(r.predictions[k].samples == 1001);
      CHECK(same_bits(r.predictions[k].values, one.predictions[k].values));
    }
  }
}

namespace {

// Samples first .. first + n - 1 of one fixed stream: sample i is the same in every slice of it.
SampleSource stream(int64_t first, int64_t n) {
  return {n, [first](int64_t index, const std::string& input, void* dst) {
            const int64_t i = first + index;
            if (input == "label") {
              *static_cast<int32_t*>(dst) = static_cast<int32_t>((i * 7) % 10);
              return;
            }
            auto* x = static_cast<float*>(dst);
            for (int64_t j = 0; j < 16; ++j) {
              x[j] = static_cast<float>(((i * 13 + j * 5) % 17) / 8.0 - 1.0);
            }
          }};
}

// The trained model's means over samples first .. first + n - 1 of the stream, under `config_text`.
EvalResult evaluate_slice(const std::string& config_text, int64_t first, int64_t n) {
  Session s = session_for(config_text);
  s.load_weights(trained_weights());
  s.set_data("test", stream(first, n));
  return s.evaluate("test");
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

}  // namespace

TEST_CASE("eval covers every sample: a last partial batch runs at its own size and counts once per sample") {
  // 10 samples in micro-batches of 4: two whole ones and a last one of 2.
  const std::string one_ipu = plan_config(1, 1, "grouped", 1);
  const EvalResult all = evaluate_slice(one_ipu, 0, 10);
  CHECK(all.samples == 10);
  CHECK(all.last_batch == 2);
  CHECK(all.skipped == 0);
  // The reference: one batch at a time, the last (fewer samples than a batch) run as one batch.
  const EvalResult b0 = evaluate_slice(one_ipu, 0, 4);
  const EvalResult b1 = evaluate_slice(one_ipu, 4, 4);
  const EvalResult b2 = evaluate_slice(one_ipu, 8, 2);
  CHECK(b2.samples == 2);  // a split smaller than a batch: all of it, not 0 samples
  CHECK(b2.last_batch == 2);
  for (const auto& [name, value] : all.means) {
    CAPTURE(name);
    // Each batch's mean weighs its samples: 8 in the whole batches, 2 in the last.
    const double whole = (b0.means.at(name) + b1.means.at(name)) / 2;
    const double want = (whole * 8 + b2.means.at(name) * 2) / 10;
    CHECK(same_bits(value, want));
  }
  // A mean over samples: the accuracy is the share of the 10 that predict's labels get right.
  Session s = session_for(one_ipu);
  s.load_weights(trained_weights());
  s.set_data("test", stream(0, 10));
  const std::vector<Prediction> p = s.predict("test", {"label_hat"});
  REQUIRE(p[0].samples == 10);
  int right = 0;
  for (int64_t i = 0; i < 10; ++i) {
    right += static_cast<int64_t>(p[0].values[static_cast<size_t>(i)]) == (i * 7) % 10 ? 1 : 0;
  }
  CHECK(same_bits(all.means.at("accuracy"), right / 10.0));

  // Every plan gives those bits, the last batch and a split smaller than a batch included.
  for (const std::string& config : {plan_config(2, 2, "grouped", 4), plan_config(4, 1, "interleaved", 8)}) {
    CAPTURE(config);
    const EvalResult r = evaluate_slice(config, 0, 10);
    const EvalResult small = evaluate_slice(config, 8, 2);
    CHECK(r.samples == 10);
    CHECK(small.samples == 2);
    for (const auto& [name, value] : all.means) {
      CAPTURE(name);
      CHECK(same_bits(r.means.at(name), value));
      CHECK(same_bits(small.means.at(name), b2.means.at(name)));
    }
  }
}

TEST_CASE("a model that fixes its batch leaves out a last partial batch, and says why") {
  const std::string model = R"(import nn
model fixed() {
  input x: f32[4, 16]
  input label: i32[4]
  logits = nn.dense(x, 10)
  output accuracy = mean(argmax(logits, axis = -1) == label)
}
)";
  Config config = config::parse("[data]\ntest = \"synthetic:samples=10,classes=10\"\n", "fixed.toml");
  Session s(Model::parse(model, "fixed.ipu", config.model), config);
  const EvalResult e = s.evaluate("test");
  CHECK(e.samples == 8);
  CHECK(e.skipped == 2);
  CHECK(e.last_batch == 0);
  CHECK(e.skipped_why.find("model `fixed` fixes its batch") != std::string::npos);
}

TEST_CASE("the inference plan is the forward program only, scheduled, sized and costed") {
  Config config = config::parse(plan_config(2, 2, "grouped", 4), "inference.toml");
  const Model model = Model::parse(kModel, "inference.ipu", config.model);
  planner::PlanOptions options;
  options.inference = true;
  const planner::Plan plan = planner::make_plan(graph_of(model), config, options);
  CHECK_FALSE(plan.decided.training);
  CHECK(plan.train_program.empty());
  REQUIRE(plan.timeline.timesteps() > 0);
  // Grouped inference over 2 positions and 4 micro-batches: 4 + 2 - 1 timesteps, all forward.
  CHECK(plan.timeline.timesteps() == 5);
  for (const auto& ipu : plan.programs.ipus) {
    for (const planner::Instr& in : ipu) {
      CHECK(in.kind != planner::InstrKind::Backward);
      CHECK(in.kind != planner::InstrKind::Accumulate);
      CHECK(in.kind != planner::InstrKind::ReduceReplicas);
      CHECK(in.kind != planner::InstrKind::UpdateWeights);
    }
  }
  const planner::Plan training = planner::make_plan(graph_of(model), config);
  REQUIRE(plan.memory.size() == training.memory.size());
  for (size_t i = 0; i < plan.memory.size(); ++i) {
    CHECK(plan.memory[i].accumulators == 0);
    CHECK(plan.memory[i].optimizer_state == 0);
    CHECK(plan.memory[i].weights == training.memory[i].weights);
    CHECK(plan.memory[i].total_peak < training.memory[i].total_peak);
  }
  CHECK(plan.cost.cycles_per_update > 0);
  CHECK(plan.cost.samples_per_second > training.cost.samples_per_second);
  CHECK(plan.cost.reduce_bytes_per_update == 0);
}

namespace {

// The inference plan of 2 IPUs x 2 replicas, 4 micro-batches, under `schedule`.
planner::Plan inference_plan(const std::string& schedule) {
  const Config config = config::parse(plan_config(2, 2, schedule, 4), schedule + ".toml");
  planner::PlanOptions options;
  options.inference = true;
  return planner::make_plan(graph_of(Model::parse(kModel, "inference.ipu", config.model)), config, options);
}

}  // namespace

TEST_CASE("an interleaved inference plan draws and costs the forwards back to back, as it runs them") {
  const planner::Plan grouped = inference_plan("grouped");
  const planner::Plan interleaved = inference_plan("interleaved");
  // 4 micro-batches through 2 positions: 4 + 2 - 1 timesteps, no idle slot between two forwards.
  CHECK(interleaved.timeline.timesteps() == 5);
  CHECK(interleaved.timeline.timesteps() == grouped.timeline.timesteps());
  CHECK(interleaved.cost.cycles_per_update == grouped.cost.cycles_per_update);
  CHECK(interleaved.cost.bubble_fraction == grouped.cost.bubble_fraction);
}

// Sequential runs one stage at a time: its inference plan draws each forward alone and the cycle
// model keeps to that, where the programs alone would start the next micro-batch's first stage
// while the last one's second stage runs (the grouped plan's cost, which it reported before).
TEST_CASE("a sequential inference plan costs the forwards one stage at a time, as it draws them") {
  const planner::Plan grouped = inference_plan("grouped");
  const planner::Plan sequential = inference_plan("sequential");
  // 4 micro-batches through 2 positions, one at a time: 8 timesteps, one IPU busy in each.
  REQUIRE(sequential.timeline.timesteps() == 8);
  for (const auto& step : sequential.timeline.steps) {
    CHECK(std::count_if(step.begin(), step.end(), [](const auto& tasks) { return !tasks.empty(); }) == 1);
  }
  // Each forward starts after the one before it has ended, on either IPU.
  const planner::CostReport& cost = sequential.cost;
  CHECK(cost.cycles_per_update > grouped.cost.cycles_per_update);
  CHECK(cost.analytic_bubble_fraction == doctest::Approx(0.5));
  CHECK(cost.bubble_fraction == doctest::Approx(cost.analytic_bubble_fraction).epsilon(0.1));
}

TEST_CASE("a model without a loss is planned and run for inference") {
  const std::string model = R"(model sums(batch: int = 1) {
  input a: f32[batch, 2]
  input b: f32[batch, 2]
  stage first { o1 = a + b }
  stage second { out = o1 + a }
  output result = out
}
)";
  Config config = config::parse(
      "[ipu]\nauto_select_ipus = 2\n[pipeline]\ndevice_mapping = [0, 1]\n"
      "[data]\ntest = \"synthetic:samples=5\"\nbatch_size = 1\n",
      "sums.toml");
  Session s(Model::parse(model, "sums.ipu", config.model), config);
  const std::vector<Prediction> p = s.predict("test");
  REQUIRE(p.size() == 1);
  CHECK(p[0].samples == 5);
  const EvalResult e = s.evaluate("test");
  CHECK(e.ipus.size() == 2);
  CHECK(e.samples == 5);
}

TEST_CASE("a session describes the data sources it opens, as inspect_data_sources does without one") {
  Config config = config::parse(testing::synthetic_config(2), "d.toml");
  config.plain.data_validation = "synthetic:samples=64,classes=10";
  const Model model = Model::parse(testing::kMlp, "mlp.ipu", config.model);
  Session session(model, config);
  const std::vector<DataSourceInfo> kept = session.data_sources();
  const std::vector<DataSourceInfo> alone = inspect_data_sources(model, config);
  REQUIRE(kept.size() == 3);
  REQUIRE(alone.size() == kept.size());
  const int64_t samples[] = {512, 256, 64};
  for (size_t i = 0; i < kept.size(); ++i) {
    CAPTURE(kept[i].key);
    CHECK(kept[i].key == alone[i].key);
    CHECK(kept[i].path == alone[i].path);
    CHECK(kept[i].samples == samples[i]);
    CHECK(kept[i].samples == alone[i].samples);
    REQUIRE(kept[i].fields.size() == alone[i].fields.size());
    for (size_t f = 0; f < kept[i].fields.size(); ++f) {
      CHECK(kept[i].fields[f].name == alone[i].fields[f].name);
      CHECK(kept[i].fields[f].shape == alone[i].fields[f].shape);
    }
  }
  // The checks train makes read the sources the session keeps; then it trains from them.
  session.check_training_data();
  CHECK(session.train().steps == 2);
}
