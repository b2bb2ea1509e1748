// Floating-point traps (ipu.floating_point_behaviour.inv|div0|oflo, engine/fp_trap.hpp): each
// class caught by its own flag and no other, on single kernels and in training, evaluation and
// prediction runs, located at the op with its stage and micro-batch; ordinary models run clean.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "../scratch_dir.hpp"
#include "core/ir/graph.hpp"
#include "engine/fp_trap.hpp"
#include "graph_runner.hpp"
#include "iputrain/iputrain.hpp"
#include "test_models.hpp"

using namespace iputrain;
namespace fs = std::filesystem;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

// ---- single kernels on a virtual IPU -------------------------------------------------------------

struct KernelCase {
  const char* name;
  ir::OpKind op;
  std::vector<float> a;
  std::vector<float> b;  // empty: a unary op
  ir::Attrs attrs;
  uint8_t expected;  // the class trapped, 0: none
};

engine::FpTrapSite site(uint8_t mask) {
  engine::FpTrapSite s;
  s.traps.mask = mask;
  s.run = "evaluation";
  s.step = 1;
  return s;
}

// Runs the case's op on a virtual IPU with traps `mask`; returns the error's text, if any.
std::optional<std::string> run_kernel(const KernelCase& c, uint8_t mask) {
  ir::Graph g;
  const auto n = static_cast<int64_t>(c.a.size());
  std::vector<ir::ValueId> ins{g.add_input("a", TensorType{DType::F32, {n}})};
  if (!c.b.empty()) {
    ins.push_back(g.add_input("b", TensorType{DType::F32, {n}}));
  }
  const ir::ValueId y = g.add(c.op, ins, c.attrs);
  std::vector<ir::ValueId> order = ins;
  order.push_back(y);
  test_support::GraphRunner ipu(g, {order});
  std::copy(c.a.begin(), c.a.end(), ipu.tensor(ins[0]).f32());
  if (!c.b.empty()) {
    std::copy(c.b.begin(), c.b.end(), ipu.tensor(ins[1]).f32());
  }
  const engine::FpTrapSite s = site(mask);
  try {
    ipu.run(ipu.program(0), ir::ExecContext{}, &s);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Runtime);
    return e.render();
  }
  return std::nullopt;
}

const char* key_of(uint8_t c) {
  return c == engine::kFpInvalid ? "`ipu.floating_point_behaviour.inv`"
         : c == engine::kFpDivByZero ? "`ipu.floating_point_behaviour.div0`"
                                     : "`ipu.floating_point_behaviour.oflo`";
}

const std::vector<KernelCase>& kernel_cases() {
  using ir::OpKind;
  static const std::vector<KernelCase> cases = {
      // Arithmetic: the thread's IEEE flags tell the class.
      {"1 / 0", OpKind::Div, {1, 2, 3, 4}, {1, 1, 0, 1}, {}, engine::kFpDivByZero},
      {"-1 / 0", OpKind::Div, {1, -2, 3, 4}, {1, 0, 1, 1}, {}, engine::kFpDivByZero},
      {"0 / 0", OpKind::Div, {0, 2, 3, 4}, {0, 1, 1, 1}, {}, engine::kFpInvalid},
      {"1e30 / 1e-30", OpKind::Div, {1e30f, 1, 1, 1}, {1e-30f, 1, 1, 1}, {}, engine::kFpOverflow},
      {"1e30 * 1e30", OpKind::Mul, {1e30f, 1, 1, 1}, {1e30f, 1, 1, 1}, {}, engine::kFpOverflow},
      {"3e38 + 3e38", OpKind::Add, {3e38f, 1, 1, 1}, {3e38f, 1, 1, 1}, {}, engine::kFpOverflow},
      {"inf - inf", OpKind::Sub, {kInf, 1, 1, 1}, {kInf, 1, 1, 1}, {}, engine::kFpInvalid},
      {"0 * inf", OpKind::Mul, {0, 1, 1, 1}, {kInf, 1, 1, 1}, {}, engine::kFpInvalid},
      {"square(1e20)", OpKind::Square, {1e20f, 1, 1, 1}, {}, {}, engine::kFpOverflow},
      // Eigen's vectorised functions make their specials without raising flags.
      {"log(-1)", OpKind::Log, {1, -1, 2, 3}, {}, {}, engine::kFpInvalid},
      {"log(0)", OpKind::Log, {1, 0, 2, 3}, {}, {}, engine::kFpDivByZero},
      {"sqrt(-1)", OpKind::Sqrt, {1, 4, -1, 9}, {}, {}, engine::kFpInvalid},
      {"rsqrt(0)", OpKind::Rsqrt, {1, 4, 0, 9}, {}, {}, engine::kFpDivByZero},
      {"exp(100)", OpKind::Exp, {1, 100, 2, 3}, {}, {}, engine::kFpOverflow},
      // Not traps: underflow, values carried from an operand, infinities a kernel absorbs.
      {"exp(-100) underflows", OpKind::Exp, {-100, -1000, 0, 1}, {}, {}, 0},
      {"exp(-inf) = 0", OpKind::Exp, {-kInf, 0, 1, 2}, {}, {}, 0},
      {"inf + 1 carries inf", OpKind::Add, {kInf, 1, 1, 1}, {1, 1, 1, 1}, {}, 0},
      {"log(nan) carries nan", OpKind::Log, {kNan, 1, 1, 1}, {}, {}, 0},
      {"exp(inf) carries inf", OpKind::Exp, {kInf, 1, 1, 1}, {}, {}, 0},
      {"softmax over a -inf mask", OpKind::Softmax, {-kInf, 0.5f, -kInf, 2}, {}, {}, 0},
      {"log_softmax over a -inf mask", OpKind::LogSoftmax, {-1e9f, 0.5f, -1e9f, 2}, {}, {}, 0},
      {"max with a -inf entry", OpKind::Max, {-kInf, 0.5f, -3, 2}, {}, {}, 0},
      {"relu(1e38)", OpKind::Relu, {1e38f, -1, 2, 3}, {}, {}, 0},
      {"tanh(1e30)", OpKind::Tanh, {1e30f, -1e30f, 2, 3}, {}, {}, 0},
      {"sigmoid(-1e30)", OpKind::Sigmoid, {1e30f, -1e30f, 2, 3}, {}, {}, 0},
  };
  return cases;
}

// ---- training runs on tiny IDX data ----------------------------------------------------------

void put_be32(std::vector<uint8_t>& out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) {
    out.push_back(static_cast<uint8_t>(v >> s));
  }
}

void write_file(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// PREFIX-images-idx3-ubyte with 1 x 2 images of the given bytes (read back as the bytes 0..255; the
// models divide by 255).
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
  write_file(prefix.string() + "-images-idx3-ubyte", images);
  write_file(prefix.string() + "-labels-idx1-ubyte", labels);
}

// Sixteen samples of two pixels; the only zero (and the only pixel below 0.5) is in sample 3, so
// with micro-batches of 2 the first bad one is micro-batch 1.
const std::vector<uint8_t> kPixels = {255, 200, 180, 255, 255, 255, 0,   255, 200, 255, 255,
                                      180, 255, 200, 180, 255, 255, 200, 180, 255, 255, 255,
                                      200, 255, 200, 255, 255, 180, 255, 200, 180, 255};

fs::path data_dir(const std::string& name) {
  const fs::path dir = iputrain_tests::scratch_dir("fp_traps_test") / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  write_idx(dir / "train", kPixels);
  write_idx(dir / "test", kPixels);
  return dir;
}

// A one-stage model whose stage computes `expr` of the flattened image x (line 6, column 9).
std::string one_stage(const std::string& expr) {
  return "import nn\n"
         "model trap(batch: int = 2) {\n"
         "  input image: f32[batch, 1, 2]\n"
         "  input label: i32[batch]\n"
         "  stage s { x = flatten(image) / 255.0\n"
         "    q = " + expr + "\n"
         "    logits = nn.dense(q, 4)\n"
         "    loss = mean(softmax_cross_entropy(logits, label))\n"
         "  }\n"
         "  minimize loss\n"
         "  output loss\n"
         "  output q\n"
         "}\n";
}

// Two stages; the second computes log(x) (line 9, column 9), so a zero pixel is a division by
// zero in stage 1.
const std::string kTwoStages = R"(import nn
model trap2(batch: int = 2) {
  input image: f32[batch, 1, 2]
  input label: i32[batch]
  stage a {
    h = nn.dense(flatten(image) / 255.0, 4, activation = relu)
  }
  stage b {
    l = log(flatten(image) / 255.0)
    logits = nn.dense(h, 4) + nn.dense(l, 4)
    loss = mean(softmax_cross_entropy(logits, label))
  }
  minimize loss
  output loss
}
)";

std::string config_toml(const fs::path& data, const std::string& extra) {
  return "[optimizer]\nlearning_rate = 0.01\n[data]\ntrain = \"idx:" + (data / "train").string() +
         "\"\ntest = \"idx:" + (data / "test").string() +
         "\"\nshuffle = false\n[training]\nsteps = 2\nseed = 3\n" + extra;
}

const std::string kA4 = "[pipeline]\ngradient_accumulation_count = 4\n";

struct Run {
  Config cfg;
  Model model;
  Session session;
  Run(const std::string& model_text, const std::string& cfg_text)
      : cfg(config::parse(cfg_text, "fp_traps_test.toml")),
        model(Model::parse(model_text, "trap.ipu", cfg.model)),
        session(model, cfg) {}
};

// Trains; returns the rendered error (empty: the run completed).
std::string train_error(const std::string& model_text, const std::string& cfg_text, TrainSummary* summary = nullptr) {
  Run r(model_text, cfg_text);
  try {
    const TrainSummary s = r.session.train();
    if (summary != nullptr) {
      *summary = s;
    }
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Runtime);
    CHECK(e.span().valid());
    return e.render();
  }
  return {};
}

bool has(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) {
    return true;
  }
  MESSAGE("looked for: " << part << "\nin:\n" << text);
  return false;
}

std::string flag(const char* name, bool on = true) {
  return fmt::format("[ipu.floating_point_behaviour]\n{} = {}\n", name, on ? "true" : "false");
}

}  // namespace

TEST_CASE("each class is trapped by its own flag only, on single kernels") {
  for (const KernelCase& c : kernel_cases()) {
    CAPTURE(c.name);
    const std::optional<std::string> all = run_kernel(c, engine::kFpInvalid | engine::kFpDivByZero | engine::kFpOverflow);
    if (c.expected == 0) {
      CHECK_FALSE(all.has_value());
      continue;
    }
    REQUIRE(all.has_value());
    CHECK(has(*all, key_of(c.expected)));
    CHECK(has(*all, fmt::format("`{}` (value %", ir::op_name(c.op))));
    CHECK(has(*all, "in evaluation batch 1"));
    // Only its own flag catches it, and no flag means no check at all.
    CHECK(run_kernel(c, c.expected).has_value());
    CHECK_FALSE(run_kernel(c, static_cast<uint8_t>(7 & ~c.expected)).has_value());
    CHECK_FALSE(run_kernel(c, 0).has_value());
  }
}

TEST_CASE("div0: a division by an input holding 0 stops training at its op, stage and micro-batch") {
  const fs::path data = data_dir("div0");
  const std::string model = one_stage("1.0 / x");
  const std::string e = train_error(model, config_toml(data, kA4 + flag("div0")));
  CHECK(has(e, "trap.ipu:6:9: error: `div` (value %"));
  CHECK(has(e, "forward pass of stage 0 's') produced a division by zero"));
  CHECK(has(e, "in training step 1, micro-batch 1 of replica 0 (global micro-batch 1)"));
  CHECK(has(e, "q = 1.0 / x"));
  CHECK(has(e, "hint: trapped by `ipu.floating_point_behaviour.div0`"));
  CHECK(has(e, "set `ipu.floating_point_behaviour.div0` to false"));
  // The other flags let the infinity through; without any the run completes, its loss not finite.
  TrainSummary s;
  CHECK(train_error(model, config_toml(data, kA4 + flag("oflo")), &s).empty());
  CHECK(train_error(model, config_toml(data, kA4), &s).empty());
  CHECK_FALSE(std::isfinite(s.last_values[0]));
}

TEST_CASE("inv: log of a negative and 0 * inf, each at its own op") {
  const fs::path data = data_dir("inv");
  // Pixel 0 of sample 3 is the only one below 0.5.
  const std::string log_model = one_stage("log(x - 0.5)");
  const std::string e = train_error(log_model, config_toml(data, kA4 + flag("inv")));
  CHECK(has(e, "trap.ipu:6:9: error: `log` (value %"));
  CHECK(has(e, "produced an invalid operation (NaN from operands without NaN)"));
  CHECK(has(e, "micro-batch 1 of replica 0 (global micro-batch 1)"));
  CHECK(train_error(log_model, config_toml(data, kA4 + flag("div0") + "oflo = true\n")).empty());

  // exp(1000 x) overflows everywhere; with only inv on, the NaN of 0 * inf is the first trap.
  const std::string mul_model = one_stage("(x * 0.0) * exp(x * 1000.0)");
  const std::string m = train_error(mul_model, config_toml(data, kA4 + flag("inv")));
  CHECK(has(m, "error: `mul` (value %"));
  CHECK(has(m, "in training step 1, micro-batch 0 of replica 0 (global micro-batch 0)"));
  // With oflo on as well, the exp comes first.
  const std::string o = train_error(mul_model, config_toml(data, kA4 + flag("inv") + "oflo = true\n"));
  CHECK(has(o, "error: `exp` (value %"));
  CHECK(has(o, "produced an overflow"));
}

TEST_CASE("oflo: exp of a large value") {
  const fs::path data = data_dir("oflo");
  const std::string model = one_stage("exp(x * 100.0)");
  const std::string e = train_error(model, config_toml(data, flag("oflo")));
  CHECK(has(e, "trap.ipu:6:9: error: `exp` (value %"));
  CHECK(has(e, "produced an overflow (a finite result beyond the f32 range) in training step 1, micro-batch 0"));
  CHECK(has(e, "hint: trapped by `ipu.floating_point_behaviour.oflo`"));
  // Left alone, the infinities meet in the loss (inf - inf), which inv catches there.
  CHECK(train_error(model, config_toml(data, flag("div0"))).empty());
  CHECK(has(train_error(model, config_toml(data, flag("inv"))), "error: `softmax_cross_entropy` (value %"));
}

TEST_CASE("set_all traps too, and the hint says to clear it") {
  const fs::path data = data_dir("set_all");
  const std::string e = train_error(one_stage("1.0 / x"), config_toml(data, kA4 + flag("set_all")));
  CHECK(has(e, "`div`"));
  CHECK(has(e, "set `ipu.floating_point_behaviour.div0` and `ipu.floating_point_behaviour.set_all` to false"));
}

TEST_CASE("a 2-stage pipeline traps in stage 1, named, and the cluster stops without a hang") {
  const fs::path data = data_dir("pipeline");
  const std::string pipeline = "[ipu]\nauto_select_ipus = 2\n[pipeline]\ngradient_accumulation_count = 4\n";
  const std::string e = train_error(kTwoStages, config_toml(data, pipeline + flag("div0")));
  CHECK(has(e, "trap.ipu:9:9: error: `log` (value %"));
  CHECK(has(e, "forward pass of stage 1 'b') produced a division by zero"));
  CHECK(has(e, "micro-batch 1 of replica 0 (global micro-batch 1)"));
  // Two replicas of the pipeline: replica 1's micro-batches (samples 8 to 15) are clean, replica 0
  // traps as before while replica 1 waits for it at the reduction.
  const std::string replicated =
      "[ipu]\nauto_select_ipus = 4\n[pipeline]\ngradient_accumulation_count = 4\n";
  const std::string r = train_error(kTwoStages, config_toml(data, replicated + flag("div0")));
  CHECK(has(r, "forward pass of stage 1 'b') produced a division by zero"));
  CHECK(has(r, "micro-batch 1 of replica 0 (global micro-batch 1)"));
  // Off, the same runs complete.
  CHECK(train_error(kTwoStages, config_toml(data, pipeline)).empty());
}

TEST_CASE("a trap in the backward pass names it") {
  // sqrt is 0 at 0, its gradient 0.5 / sqrt(x) infinite (Eigen's rsqrt, which raises no flag).
  const fs::path data = data_dir("backward");
  const std::string e = train_error(one_stage("sqrt(nn.dense(x, 2) * 0.0)"), config_toml(data, kA4 + flag("div0")));
  CHECK(has(e, "trap.ipu:6:9: error: `unary_grad` (value %"));
  CHECK(has(e, "backward pass of stage 0 's') produced a division by zero"));
  CHECK(has(e, "micro-batch 0 of replica 0"));
}

TEST_CASE("evaluation and prediction trap with the batch") {
  const fs::path data = data_dir("eval");
  // Untrained weights will do: the test split's batch 2 holds the zero.
  Run r(one_stage("log(x)"), config_toml(data, flag("div0")));
  try {
    r.session.evaluate("test");
    FAIL("evaluation did not trap");
  } catch (const Error& e) {
    CHECK(has(e.render(), "trap.ipu:6:9: error: `log` (value %"));
    CHECK(has(e.render(), "in evaluation batch 2"));
  }
  try {
    r.session.predict("test", {"q"});
    FAIL("prediction did not trap");
  } catch (const Error& e) {
    CHECK(has(e.render(), "in prediction batch 2"));
  }
}

TEST_CASE("ordinary models train clean with every trap on") {
  const std::string traps = "[ipu.floating_point_behaviour]\ninv = true\ndiv0 = true\noflo = true\n";
  Config cfg = config::parse(testing::synthetic_config(20, 0.05, traps), "fp_traps_test.toml");
  Model model = Model::parse(testing::kMlp4, "mlp4.ipu", cfg.model);
  Session s(model, cfg);
  const TrainSummary sum = s.train();
  CHECK(std::isfinite(sum.last_values.at(0)));
  CHECK(std::isfinite(s.evaluate("test").means.at("loss")));
}
