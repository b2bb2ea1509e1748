#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <thread>

#include "../scratch_dir.hpp"
#include "iputrain/iputrain.hpp"
#include "test_models.hpp"

using namespace iputrain;

namespace {
Session make(const std::string& config_text, const std::string& model_text = testing::kMlp) {
  Config config = config::parse(config_text, "test.toml");
  return Session(Model::parse(model_text, "mlp.ipu", config.model), config);
}
}  // namespace

TEST_CASE("training on synthetic data lowers the loss") {
  Config config = config::parse(testing::synthetic_config(300), "test.toml");
  Session session(Model::parse(testing::kMlp, "mlp.ipu"), config);
  const EvalResult before = session.evaluate("train");
  std::vector<double> losses;
  session.train([&](const Progress& p) {
    for (const auto& r : p.records) {
      losses.push_back(r.values[0]);
    }
  });
  const EvalResult after = session.evaluate("train");
  REQUIRE(losses.size() == 300);
  CHECK(after.means.at("loss") < 0.6 * before.means.at("loss"));
  CHECK(after.means.at("accuracy") > before.means.at("accuracy") + 0.2);
}

TEST_CASE("the rates are over the device executions, and the steady one leaves out the first") {
  Session session = make(testing::synthetic_config(10, 0.05, "steps_per_execution = 4\n"));
  int calls = 0;
  int64_t done = 0;
  double executions = 0;  // the executions' own seconds, each from its steps and its rate
  const TrainSummary s = session.train([&](const Progress& p) {
    if (calls++ == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));  // slow host work (a validation, a log)
    }
    CHECK(p.samples == p.step * session.global_batch());
    CHECK(p.train_seconds <= p.elapsed_seconds);
    executions += static_cast<double>((p.step - done) * session.global_batch()) / p.samples_per_second;
    done = p.step;
    // The training time is the executions' only: the sleep after the first is not in the second's.
    CHECK(p.train_seconds == doctest::Approx(executions));
  });
  CHECK(calls == 3);  // 4 + 4 + 2 steps
  CHECK(s.train_seconds == doctest::Approx(executions));
  // The host's 0.3 s is in the wall time: lower bounds a sleep sets, which load only widens.
  CHECK(s.seconds >= 0.3);
  CHECK(s.train_seconds + 0.29 < s.seconds);
  CHECK(s.samples_per_second == doctest::Approx(static_cast<double>(s.samples) / s.train_seconds));
  CHECK(s.steady_samples_per_second > 0);
  // One execution: there is no steady state apart from it.
  Session once = make(testing::synthetic_config(4, 0.05, "steps_per_execution = 4\n"));
  const TrainSummary one = once.train();
  CHECK(one.steady_samples_per_second == one.samples_per_second);
}

TEST_CASE("the outfeed carries every step in order, steps_per_execution at a time") {
  Session session = make(testing::synthetic_config(10, 0.05, "steps_per_execution = 4\n"));
  std::vector<int64_t> calls;
  std::vector<int64_t> steps;
  session.train([&](const Progress& p) {
    calls.push_back(static_cast<int64_t>(p.records.size()));
    for (const auto& r : p.records) {
      steps.push_back(r.step);
    }
  });
  CHECK(calls == std::vector<int64_t>{4, 4, 2});
  CHECK(steps == std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
}

TEST_CASE("same model, config and seed give the same bits") {
  auto run = [] {
    Session s = make(testing::synthetic_config(25));
    s.train();
    return s.weights();
  };
  const auto a = run();
  const auto b = run();
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].name == b[i].name);
    CHECK(std::memcmp(a[i].values.data(), b[i].values.data(), a[i].values.size() * 4) == 0);
  }
}

TEST_CASE("a different seed gives different initial weights") {
  Session a = make(testing::synthetic_config(1));
  Session b = make(testing::synthetic_config(1));
  const auto wa = a.weights();
  const auto wb = b.weights();
  CHECK(wa[0].values == wb[0].values);  // same seed
  Config other = config::parse(testing::synthetic_config(1), "t.toml", {"training.seed=8"});
  Session s8(Model::parse(testing::kMlp, "mlp.ipu"), other);
  CHECK(s8.weights()[0].values != wa[0].values);
}

TEST_CASE("weights round-trip through safetensors, and training resumes from them") {
  const auto dir = iputrain_tests::scratch_dir("session_test");
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "w.safetensors").string();
  Session a = make(testing::synthetic_config(20));
  a.train();
  a.save_weights(path);
  Session b = make(testing::synthetic_config(20));
  b.load_weights(path);
  const auto wa = a.weights();
  const auto wb = b.weights();
  REQUIRE(wa.size() == 4);
  CHECK(wa[0].name == "features/dense/kernel");
  CHECK(wa[0].shape == std::vector<int64_t>{64, 32});
  for (size_t i = 0; i < wa.size(); ++i) {
    CHECK(wa[i].values == wb[i].values);
  }
  CHECK(a.evaluate("test").means.at("loss") == doctest::Approx(b.evaluate("test").means.at("loss")));
  std::filesystem::remove_all(dir);
}

TEST_CASE("weights of another model are rejected with the tensor named") {
  const auto dir = iputrain_tests::scratch_dir("session_test2");
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "w.safetensors").string();
  Session small = make(testing::synthetic_config(1) + "[model]\nhidden = 16\n");
  small.save_weights(path);
  Session big = make(testing::synthetic_config(1));
  try {
    big.load_weights(path);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("features/dense/kernel") != std::string::npos);
    CHECK(std::string(e.what()).find("[64, 16]") != std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("batch size in the config must match the model") {
  Config bad = config::parse(testing::synthetic_config(1), "t.toml", {"data.batch_size=8"});
  try {
    Session s(Model::parse(testing::kMlp, "mlp.ipu"), bad);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Config);
    CHECK(std::string(e.what()).find("batch") != std::string::npos);
  }
}

TEST_CASE("ipu.select_ipus runs the plan on the IPUs of the devices it lists") {
  // Device 26 is the quad of IPUs 8 to 11: one replica of mlp4's four stages.
  const std::string text = "[ipu]\nselect_ipus = [26]\n[pipeline]\ngradient_accumulation_count = 8\n"
                           "[data]\ntrain = \"synthetic:samples=256,classes=10\"\n[training]\nsteps = 2\n";
  Config config = config::parse(text, "select.toml");
  Session session(Model::parse(testing::kMlp4, "mlp4.ipu", config.model), config);
  session.train();
  const RunReport report = session.run_report();
  REQUIRE(report.ipus.size() == 4);
  for (size_t k = 0; k < 4; ++k) {
    CHECK(report.ipus[k].physical == 8 + static_cast<int32_t>(k));
    CHECK(report.ipus[k].memory_peak == report.ipus[k].memory_estimate);
  }
  // IPU 5 alone and the pair [2, 3] are three IPUs: not a whole number of four-IPU replicas.
  Config three = config::parse(text, "select.toml", {"ipu.select_ipus=[5, 17]"});
  CHECK_THROWS_AS(Session(Model::parse(testing::kMlp4, "mlp4.ipu", three.model), three), Error);
}

// The activations' kinks take PyTorch's one-sided gradients: relu6 passes none at exactly 6 (it
// was built from minimum, whose tie gave half), leaky_relu passes alpha at exactly 0, relu none
// at 0. One SGD step at learning rate 1 from weights of 1 moves each weight by its gradient.
TEST_CASE("activation kinks: relu6 at 6, leaky_relu and relu at 0 take PyTorch's gradients") {
  const std::string model = R"(import activations

model kinks(batch: int = 4) {
  input x: f32[batch, 16]
  input label: i32[batch]
  param w6: f32[1] = ones()
  param w0: f32[1] = ones()
  param wr: f32[1] = ones()
  six = activations.relu6(full([batch, 1], 6.0) * w6)
  leaky = activations.leaky_relu(full([batch, 1], 0.0) + (w0 - 1.0), alpha = 0.25)
  flat = activations.relu(full([batch, 1], 0.0) + (wr - 1.0))
  loss = mean(six) + mean(leaky) + mean(flat) + 0.0 * mean(x)
  minimize loss
  output loss
}
)";
  Session session = make(
      "[optimizer]\ntype = \"sgd\"\nlearning_rate = 1.0\n[data]\ntrain = \"synthetic:samples=8,classes=10\"\n"
      "[training]\nsteps = 1\n",
      model);
  session.train();
  for (const WeightInfo& w : session.weights()) {
    CAPTURE(w.name);
    REQUIRE(w.values.size() == 1);
    const float want = w.name == "w0" ? 0.75f : 1.0f;
    CHECK(w.values[0] == want);
  }
}

TEST_CASE("recurrent and dense layers take Keras' use_bias and initializers") {
  const Config c = config::parse("[data]\ntrain = \"synthetic:samples=64,classes=10\"\n", "layers.toml");
  const Model m = Model::parse(R"(import nn
model layers(batch: int = 2) {
  input image: f32[batch, 4, 3]
  input label: i32[batch]
  a = nn.lstm(image, 5, use_bias = false, kernel_initializer = zeros)
  b = nn.gru(image, 5, recurrent_initializer = ones, bias_initializer = ones)
  c = nn.gru(image, 5, use_bias = false, reset_after = false)
  d = nn.dense(a + b + c, 10, kernel_initializer = ones, bias_initializer = ones)
  loss = mean(softmax_cross_entropy(d, label))
  minimize loss
  output loss
}
)",
                               "layers.ipu", c);
  std::map<std::string, std::vector<float>> w;
  for (const WeightInfo& info : Session(m, c).weights()) {
    w[info.name] = info.values;
  }
  const auto all = [](const std::vector<float>& v, float x) {
    return !v.empty() && std::all_of(v.begin(), v.end(), [x](float e) { return e == x; });
  };
  CHECK(w.count("lstm/bias") == 0);
  CHECK(all(w.at("lstm/kernel"), 0.0F));
  CHECK(all(w.at("gru/recurrent_kernel"), 1.0F));
  CHECK(all(w.at("gru/bias"), 1.0F));
  CHECK(w.count("gru_1/bias") == 0);
  CHECK(all(w.at("dense/kernel"), 1.0F));
  CHECK(all(w.at("dense/bias"), 1.0F));
  // The defaults are Keras': glorot-uniform kernels, which are not constant.
  CHECK_FALSE(all(w.at("gru_1/kernel"), w.at("gru_1/kernel").front()));
}
