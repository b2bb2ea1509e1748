// Batch-norm moving statistics (planner/moving_statistics.hpp): the update against figures worked
// out by hand, evaluation and prediction normalising with them, checkpoints and weight files,
// the training gradient by finite differences, and what the planner makes of non-trainable state.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "../scratch_dir.hpp"
#include "core/data/safetensors.hpp"
#include "core/ir/graph.hpp"
#include "engine/cluster/moving_average_update.hpp"
#include "frontend/model_access.hpp"
#include "graph_runner.hpp"
#include "iputrain/iputrain.hpp"
#include "planner/autodiff.hpp"
#include "planner/plan.hpp"
#include "planner/program.hpp"
#include "test_models.hpp"
#include "tests/planner/plan_from_config.hpp"

using namespace iputrain;
namespace fs = std::filesystem;

namespace {

// A batch norm straight on the data, so its statistics do not depend on the training: 1 x 2
// images (two channels), two samples per micro-batch.
const std::string kTiny = R"(import nn

model bn(batch: int = 2, momentum: float = 0.9) {
  input image: f32[batch, 1, 2]
  input label: i32[batch]

  stage s {
    x = flatten(image) / 255.0
    y = nn.batch_norm(x, momentum = momentum)
    logits = nn.dense(y, 4)
    loss = mean(softmax_cross_entropy(logits, label))
  }

  minimize loss
  output loss
  output xs = x
  output ys = y
  output y_mean = mean(y)
}
)";

void put_be32(std::vector<uint8_t>& out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) {
    out.push_back(static_cast<uint8_t>(v >> s));
  }
}

void write_bytes(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// PREFIX-images-idx3-ubyte with 1 x 2 images of the given bytes (read back as the bytes 0..255; the
// model divides by 255) and labels 0, 1, 2, 3, 0, …
void write_idx(const fs::path& prefix, const std::vector<uint8_t>& pixels) {
  const auto n = static_cast<uint32_t>(pixels.size() / 2);
  std::vector<uint8_t> images;
  put_be32(images, 0x00000803);
  put_be32(images, n);
  put_be32(images, 1);
  put_be32(images, 2);
  images.insert(images.end(), pixels.begin(), pixels.end());
  std::vector<uint8_t> labels;
  put_be32(labels, 0x00000801);
  put_be32(labels, n);
  for (uint32_t i = 0; i < n; ++i) {
    labels.push_back(static_cast<uint8_t>(i % 4));
  }
  write_bytes(prefix.string() + "-images-idx3-ubyte", images);
  write_bytes(prefix.string() + "-labels-idx1-ubyte", labels);
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = iputrain_tests::scratch_dir("moving_statistics_test") / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Samples (channel 0, channel 1) = (0, 1), (0.2, 0.6) | (0.4, 0.8), (1, 0): micro-batch 0 has
// means (0.1, 0.8) and biased variances (0.01, 0.04), micro-batch 1 (0.7, 0.4) and (0.09, 0.16).
const std::vector<uint8_t> kTrainPixels = {0, 255, 51, 153, 102, 204, 255, 0};
// Far from the training data: batch statistics (0.9, 0.1) and (0.0025, 0.0025).
const std::vector<uint8_t> kTestPixels = {217, 38, 242, 13, 217, 38, 242, 13};

fs::path tiny_data(const std::string& name) {
  const fs::path dir = fresh_dir(name);
  write_idx(dir / "train", kTrainPixels);
  write_idx(dir / "test", kTestPixels);
  return dir;
}

// `plan` goes into [pipeline]/[ipu]; the global batch is 4 samples = the whole training set.
std::string tiny_config(const fs::path& data, int steps, const std::string& plan,
                        const std::string& extra = "") {
  return "[optimizer]\ntype = \"momentum\"\nlearning_rate = 0.1\n"
         "[data]\ntrain = \"idx:" +
         (data / "train").string() + "\"\ntest = \"idx:" + (data / "test").string() +
         "\"\nshuffle = false\n[training]\nsteps = " + std::to_string(steps) + "\nseed = 3\n" + plan + extra;
}

const std::string kOneIpuA2 = "[pipeline]\ngradient_accumulation_count = 2\nreduction_method = \"mean\"\n";
const std::string kTwoReplicas =
    "[ipu]\nauto_select_ipus = 2\n[pipeline]\nschedule = \"sequential\"\ngradient_accumulation_count = 1\n"
    "reduction_method = \"mean\"\n";

struct Run {
  Config config;
  Model model;
  Session session;
  explicit Run(const std::string& text, const std::string& model_text = kTiny)
      : config(config::parse(text, "moving_statistics_test.toml")),
        model(Model::parse(model_text, "bn.ipu", config.model)),
        session(model, config) {}
};

const WeightInfo& weight(const std::vector<WeightInfo>& ws, const std::string& name) {
  const auto it = std::find_if(ws.begin(), ws.end(), [&](const WeightInfo& w) { return w.name == name; });
  REQUIRE_MESSAGE(it != ws.end(), "no weight " << name);
  return *it;
}

}  // namespace

TEST_CASE("the moving update by hand: state * momentum + mean statistic * (1 - momentum)") {
  // The update rule itself: two statistics summed to (0.8, 1.2) over 2 micro-batches.
  float state[2] = {0.0f, 1.0f};
  const float sum[2] = {0.8f, 1.2f};
  engine::apply_moving_average(state, sum, 2, 2, 0.9);
  CHECK(state[0] == doctest::Approx(0.04).epsilon(1e-7));
  CHECK(state[1] == doctest::Approx(0.96).epsilon(1e-7));

  // Through training: per channel, the mean of the two micro-batches' means is (0.4, 0.6) and of
  // their biased variances (0.05, 0.1); from (0, 1) at momentum 0.9 the first update gives
  // mean (0.04, 0.06), variance (0.905, 0.91); the second (0.076, 0.114), (0.8195, 0.829).
  const fs::path data = tiny_data("by_hand");
  for (const std::string& plan : {kOneIpuA2, kTwoReplicas}) {
    CAPTURE(plan);
    Run one(tiny_config(data, 1, plan));
    one.session.train();
    const auto w1 = one.session.weights();
    const WeightInfo& mean1 = weight(w1, "s/batch_norm/moving_mean");
    const WeightInfo& var1 = weight(w1, "s/batch_norm/moving_variance");
    CHECK_FALSE(mean1.trainable);
    CHECK(weight(w1, "s/batch_norm/gamma").trainable);
    REQUIRE(mean1.values.size() == 2);
    CHECK(mean1.values[0] == doctest::Approx(0.04).epsilon(1e-6));
    CHECK(mean1.values[1] == doctest::Approx(0.06).epsilon(1e-6));
    CHECK(var1.values[0] == doctest::Approx(0.905).epsilon(1e-6));
    CHECK(var1.values[1] == doctest::Approx(0.91).epsilon(1e-6));

    Run two(tiny_config(data, 2, plan));
    two.session.train();
    const auto w2 = two.session.weights();
    CHECK(weight(w2, "s/batch_norm/moving_mean").values[0] == doctest::Approx(0.076).epsilon(1e-6));
    CHECK(weight(w2, "s/batch_norm/moving_mean").values[1] == doctest::Approx(0.114).epsilon(1e-6));
    CHECK(weight(w2, "s/batch_norm/moving_variance").values[0] == doctest::Approx(0.8195).epsilon(1e-6));
    CHECK(weight(w2, "s/batch_norm/moving_variance").values[1] == doctest::Approx(0.829).epsilon(1e-6));
    // gamma and beta train as usual (the optimizer moved them); the state is not the optimizer's.
    CHECK(weight(w2, "s/batch_norm/gamma").values != std::vector<float>{1.0f, 1.0f});
  }
  // One IPU accumulating two micro-batches and two replicas of one: the same bits.
  Run a(tiny_config(data, 3, kOneIpuA2));
  Run b(tiny_config(data, 3, kTwoReplicas));
  a.session.train();
  b.session.train();
  CHECK(testing::same_bits(a.session.weights(), b.session.weights()));
}

TEST_CASE("momentum 1 keeps the initial state, momentum 0 takes the last update's statistics") {
  const fs::path data = tiny_data("momentum_ends");
  Run keep(tiny_config(data, 2, kOneIpuA2, "[model]\nmomentum = 1.0\n"));
  keep.session.train();
  CHECK(weight(keep.session.weights(), "s/batch_norm/moving_mean").values == std::vector<float>{0.0f, 0.0f});
  CHECK(weight(keep.session.weights(), "s/batch_norm/moving_variance").values ==
        std::vector<float>{1.0f, 1.0f});
  Run take(tiny_config(data, 2, kOneIpuA2, "[model]\nmomentum = 0.0\n"));
  take.session.train();
  const auto w = take.session.weights();
  CHECK(weight(w, "s/batch_norm/moving_mean").values[0] == doctest::Approx(0.4).epsilon(1e-6));
  CHECK(weight(w, "s/batch_norm/moving_variance").values[1] == doctest::Approx(0.1).epsilon(1e-6));
}

TEST_CASE("evaluation and prediction normalise with the moving statistics, training with the batch's") {
  const fs::path data = tiny_data("eval");
  Run r(tiny_config(data, 5, kOneIpuA2));
  r.session.train();
  const auto w = r.session.weights();
  const auto& mm = weight(w, "s/batch_norm/moving_mean").values;
  const auto& mv = weight(w, "s/batch_norm/moving_variance").values;
  const auto& gamma = weight(w, "s/batch_norm/gamma").values;
  const auto& beta = weight(w, "s/batch_norm/beta").values;

  const std::vector<Prediction> p = r.session.predict("test", {"xs", "ys"});
  REQUIRE(p.size() == 2);
  REQUIRE(p[0].name == "xs");
  REQUIRE(p[0].samples == 4);
  const std::vector<double>& xs = p[0].values;
  const std::vector<double>& ys = p[1].values;
  double worst = 0;
  double batch_gap = 0;  // how far the batch statistics' answer is from the moving one
  double y_sum = 0;
  for (int64_t i = 0; i < 4; ++i) {
    const int64_t first = i / 2 * 2;  // the micro-batch of sample i
    for (int c = 0; c < 2; ++c) {
      const double x = xs[static_cast<size_t>(i * 2 + c)];
      const double want = gamma[c] * (x - mm[c]) / std::sqrt(mv[c] + 1e-3) + beta[c];
      worst = std::max(worst, std::fabs(ys[static_cast<size_t>(i * 2 + c)] - want));
      const double a = xs[static_cast<size_t>(first * 2 + c)];
      const double b = xs[static_cast<size_t>((first + 1) * 2 + c)];
      const double mean = (a + b) / 2;
      const double var = ((a - mean) * (a - mean) + (b - mean) * (b - mean)) / 2;
      const double batch = gamma[c] * (x - mean) / std::sqrt(var + 1e-3) + beta[c];
      batch_gap = std::max(batch_gap, std::fabs(batch - want));
      y_sum += want;
    }
  }
  CHECK(worst < 1e-5);
  CHECK(batch_gap > 0.5);  // the test tells the two apart
  // evaluate() runs the same inference program: the mean of y over the test set.
  const EvalResult e = r.session.evaluate("test");
  CHECK(e.means.at("y_mean") == doctest::Approx(y_sum / 8).epsilon(1e-5));
}

TEST_CASE("checkpoints and weight files hold the moving statistics, and older files start them afresh") {
  const fs::path data = tiny_data("checkpoint");
  const fs::path dir = fresh_dir("checkpoints");
  const std::string keep_dir = "[checkpoint]\ndir = \"" + dir.string() + "\"\n";
  Run straight(tiny_config(data, 4, kOneIpuA2));
  straight.session.train();

  Run first(tiny_config(data, 2, kOneIpuA2, keep_dir));
  first.session.train();
  const std::string written = (dir / "step-00000002.safetensors").string();
  const data::SafetensorsFile file = data::read_safetensors(written);
  std::map<std::string, const data::NamedTensor*> by_name;
  for (const auto& t : file.tensors) {
    by_name[t.name] = &t;
  }
  REQUIRE(by_name.count("s/batch_norm/moving_mean") == 1);
  REQUIRE(by_name.count("s/batch_norm/moving_variance") == 1);
  CHECK(by_name.count("optimizer/0/s/batch_norm/gamma") == 1);        // momentum keeps one slot
  CHECK(by_name.count("optimizer/0/s/batch_norm/moving_mean") == 0);  // the state has none
  CHECK(std::memcmp(by_name["s/batch_norm/moving_variance"]->bytes.data(),
                    weight(first.session.weights(), "s/batch_norm/moving_variance").values.data(), 8) == 0);

  SUBCASE("resume restores them and continues exactly") {
    Run resumed(tiny_config(data, 4, kOneIpuA2));
    const ResumeInfo info = resumed.session.resume(dir.string());
    for (const std::string& note : info.notes) {
      CHECK(note.find("non-trainable") == std::string::npos);  // only the changed config is noted
    }
    CHECK(testing::same_bits(resumed.session.weights(), first.session.weights()));
    resumed.session.train();
    CHECK(testing::same_bits(resumed.session.weights(), straight.session.weights()));
  }
  SUBCASE("a checkpoint without them resumes from their initial values, with a note") {
    std::vector<data::NamedTensor> older;
    for (const auto& t : file.tensors) {
      if (t.name.find("moving_") == std::string::npos) {
        older.push_back(t);
      }
    }
    const fs::path old_dir = fresh_dir("older");
    data::write_safetensors((old_dir / "step-00000002.safetensors").string(), older, file.metadata);
    Run resumed(tiny_config(data, 4, kOneIpuA2));
    const ResumeInfo info = resumed.session.resume(old_dir.string());
    REQUIRE(!info.notes.empty());
    CHECK(info.notes[0].find("no tensor for the non-trainable state `s/batch_norm/moving_mean`, "
                             "`s/batch_norm/moving_variance`") != std::string::npos);
    const auto w = resumed.session.weights();
    CHECK(weight(w, "s/batch_norm/moving_mean").values == std::vector<float>{0.0f, 0.0f});
    CHECK(weight(w, "s/batch_norm/moving_variance").values == std::vector<float>{1.0f, 1.0f});
    CHECK(weight(w, "s/batch_norm/gamma").values ==
          weight(first.session.weights(), "s/batch_norm/gamma").values);
    // The trainable weights never depended on the state, so they continue exactly.
    resumed.session.train();
    CHECK(weight(resumed.session.weights(), "s/dense/kernel").values ==
          weight(straight.session.weights(), "s/dense/kernel").values);
    // Export leaves the missing state out; loading the file warns and starts it afresh.
    const std::string exported = (old_dir / "weights.safetensors").string();
    export_checkpoint_weights(resumed.model, old_dir.string(), exported);
    Run loaded(tiny_config(data, 4, kOneIpuA2));
    const std::vector<std::string> warnings = loaded.session.load_weights(exported);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("non-trainable state") != std::string::npos);
    CHECK(weight(loaded.session.weights(), "s/batch_norm/moving_variance").values ==
          std::vector<float>{1.0f, 1.0f});
  }
  SUBCASE("save_weights and load_weights carry them") {
    const std::string path = (dir / "plain.safetensors").string();
    first.session.save_weights(path);
    Run loaded(tiny_config(data, 4, kOneIpuA2));
    CHECK(loaded.session.load_weights(path).empty());
    CHECK(testing::same_bits(loaded.session.weights(), first.session.weights()));
  }
}

TEST_CASE("batch norm's training gradient agrees with finite differences, and the state gets none") {
  const Model model = Model::parse(R"(import nn
model fd(batch: int = 5) {
  input x: f32[batch, 3]
  input label: i32[batch]
  h = nn.dense(x, 4)
  y = nn.batch_norm(h, momentum = 0.9)
  loss = mean(softmax_cross_entropy(nn.dense(y, 3), label))
  minimize loss
}
)",
                                   "fd.ipu");
  ir::Graph g = graph_of(model);
  const std::vector<planner::GradParts> grads = planner::differentiate(g);
  std::vector<ir::ValueId> roots{g.loss};
  for (const auto& parts : grads) {
    roots.insert(roots.end(), parts.begin(), parts.end());
  }
  test_support::GraphRunner ipu(g, {planner::live_program(g, roots)});
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  auto fill = [&](ir::ValueId v, float lo, float hi) {
    ir::Tensor t = ipu.tensor(v);
    for (int64_t i = 0; i < t.numel(); ++i) {
      t.f32()[i] = lo + (hi - lo) * (u(rng) + 1.0f) / 2;
    }
  };
  fill(g.inputs[0], -2.0f, 2.0f);
  for (int64_t i = 0; i < 5; ++i) {
    ipu.tensor(g.inputs[1]).i32()[i] = static_cast<int32_t>(i % 3);
  }
  int states = 0;
  for (size_t k = 0; k < g.params.size(); ++k) {
    const ir::Node& p = g.node(g.params[k]);
    if (!ir::trainable(p)) {
      ++states;
      CHECK(grads[k].empty());
      fill(g.params[k], 5.0f, 6.0f);  // far from the batch statistics: training must not read them
    } else {
      fill(g.params[k], 0.5f, 1.5f);
    }
  }
  CHECK(states == 2);
  const test_support::Program& program = ipu.program(0);
  const ir::ExecContext train{1, 0, 0, true};
  auto loss = [&] {
    ipu.run(program, train);
    return static_cast<double>(ipu.tensor(g.loss).f32()[0]);
  };
  const double base = loss();
  std::vector<std::vector<float>> analytic(g.params.size());
  for (size_t k = 0; k < g.params.size(); ++k) {
    const int64_t n = g.type(g.params[k]).numel();
    analytic[k].assign(static_cast<size_t>(n), 0.0f);
    for (ir::ValueId part : grads[k]) {
      for (int64_t i = 0; i < n; ++i) {
        analytic[k][static_cast<size_t>(i)] += ipu.tensor(part).f32()[i];
      }
    }
  }
  int checked = 0;
  for (size_t k = 0; k < g.params.size(); ++k) {
    CAPTURE(g.node(g.params[k]).name);
    float* w = ipu.tensor(g.params[k]).f32();
    for (int64_t i = 0; i < g.type(g.params[k]).numel(); ++i) {
      const float w0 = w[i];
      const float h = 1e-2f;
      w[i] = w0 + h;
      const double up = loss();
      w[i] = w0 - h;
      const double down = loss();
      w[i] = w0;
      const double numeric = (up - down) / (static_cast<double>(w0 + h) - static_cast<double>(w0 - h));
      CHECK(analytic[k][static_cast<size_t>(i)] == doctest::Approx(numeric).epsilon(1e-2).scale(1e-2));
      ++checked;
    }
  }
  CHECK(checked == 3 * 4 + 4 + 4 + 4 + 4 + 4 + 4 * 3 + 3);
  CHECK(loss() == base);
  // The same weights in inference read the state, so the loss changes.
  const ir::ExecContext infer{1, 0, 0, false};
  ipu.run(program, infer);
  CHECK(std::fabs(ipu.tensor(g.loss).f32()[0] - base) > 1e-3);
}

TEST_CASE(
    "the planner gives the state no gradient, accumulator or optimizer state and counts it and its sums as "
    "weights") {
  const fs::path data = tiny_data("planner");
  std::vector<uint8_t> three_updates;
  for (int k = 0; k < 3; ++k) {
    three_updates.insert(three_updates.end(), kTrainPixels.begin(), kTrainPixels.end());
  }
  write_idx(data / "train", three_updates);  // 12 samples: two global batches of 6
  Run r(tiny_config(data, 1,
                    "[pipeline]\nschedule = \"sequential\"\ngradient_accumulation_count = 3\n"
                    "reduction_method = \"mean\"\n"));
  const planner::Plan p = planner::make_plan(graph_of(r.model), r.config);
  REQUIRE(p.moving_statistics.size() == 2);
  CHECK(p.moving_statistics[0].momentum == doctest::Approx(0.9));
  CHECK(graph_of(r.model).node(p.moving_statistics[0].state).name == "s/batch_norm/moving_mean");
  CHECK(graph_of(r.model).node(p.moving_statistics[1].state).name == "s/batch_norm/moving_variance");
  for (size_t k = 0; k < p.graph.params.size(); ++k) {
    CHECK(p.grads[k].empty() == !ir::trainable(p.graph.node(p.graph.params[k])));
  }
  // Three micro-batches: leaves 0 and 1 merge, leaf 2 waits beside them, so 2 partial sums.
  CHECK(planner::statistic_buffers(p) == 2);
  // Trainable: gamma, beta (2 each), dense kernel 2 x 4 and bias 4 = 16 floats; momentum: 1 slot.
  CHECK(p.memory[0].optimizer_state == 16 * 4);
  // Weights: all 20 floats, and 2 partial sums of 2 floats for each of the 2 states.
  CHECK(p.memory[0].weights == 20 * 4 + 2 * 2 * 2 * 4);
  CHECK(p.memory[0].accumulators == 2 * 16 * 4);
  // What the engine allocates is what the planner counted.
  r.session.train();
  const RunReport report = r.session.run_report();
  REQUIRE(report.ipus.size() == 1);
  CHECK(report.ipus[0].memory_peak == report.ipus[0].memory_estimate);
}
