// ipu.floating_point_behaviour.inv / div0 / oflo: the first NaN or infinity an op produces stops the
// run with a located error naming the op, its stage and the micro-batch; each flag traps only its
// own kind, values passed along are not blamed, and with the flags off the run completes.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "iputrain/iputrain.hpp"

using namespace iputrain;

namespace {

// Two stages on two IPUs; `expr` (of `logits`) is computed in the second one, on line 12.
std::string model_with(const std::string& expr) {
  return "import nn\n\nmodel m(batch: int = 4) {\n  input image: f32[batch, 8, 8]\n  input label: i32[batch]\n\n"
         "  stage features {\n    h = nn.dense(flatten(image), 16, activation = relu)\n  }\n  stage classifier {\n"
         "    logits = nn.dense(h, 10)\n    bad = " + expr +
         "\n    loss = mean(softmax_cross_entropy(logits, label)) + mean(bad)\n  }\n\n  minimize loss\n  output loss\n}\n";
}

// Trains two steps; returns the rendered error, or "" when the run completed.
std::string train(const std::string& expr, const std::string& flags) {
  const Config config = Config::parse("[ipu]\nauto_select_ipus = 2\n[pipeline]\ndevice_mapping = [0, 1]\n"
                                      "gradient_accumulation_count = 4\n[ipu.floating_point_behaviour]\n" + flags +
                                          "[data]\ntrain = \"synthetic:samples=64,classes=10\"\n[training]\nsteps = 2\n",
                                      "traps.toml");
  const auto path = std::filesystem::temp_directory_path() / "iputrain_fp_traps.ipu";
  std::ofstream(path) << model_with(expr);
  Session session(Model::load(path.string(), config), config);
  try {
    session.train();
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Runtime);
    return e.render();
  }
  return {};
}

bool has(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) {
    return true;
  }
  MESSAGE("output was:\n" << text);
  return false;
}

}  // namespace

TEST_CASE("each flag traps its own kind of value, where the model computes it") {
  const std::string div0 = train("1.0 / (logits - logits)", "div0 = true\n");
  CHECK(has(div0, "iputrain_fp_traps.ipu:12:11: error: `div` in stage `classifier` (forward pass) produced an "
                  "infinity (a division by zero) at micro-batch 0"));
  CHECK(has(div0, "bad = 1.0 / (logits - logits)"));
  CHECK(has(div0, "hint: `ipu.floating_point_behaviour.div0` stops at the first one"));

  const std::string inv = train("log(logits - logits - 1.0)", "inv = true\n");
  CHECK(has(inv, ":12:11: error: `log` in stage `classifier` (forward pass) produced NaN (an invalid operation)"));

  const std::string oflo = train("exp(logits * 0.0 + 100.0)", "oflo = true\n");
  CHECK(has(oflo, ":12:11: error: `exp` in stage `classifier` (forward pass) produced an infinity (an overflow)"));
}

TEST_CASE("a flag that is off lets its kind through, and values passed along are not blamed") {
  CHECK(train("1.0 / (logits - logits)", "").empty());
  // The infinities and the NaNs they lead to downstream (inf - inf, inf * 0) come from operands
  // that already held them: only the op that made the first one could be blamed, and its flag is off.
  CHECK(train("1.0 / (logits - logits)", "inv = true\noflo = true\n").empty());
  CHECK(train("exp(logits * 0.0 + 100.0)", "div0 = true\ninv = true\n").empty());
  CHECK(train("log(logits - logits - 1.0)", "div0 = true\noflo = true\n").empty());
  // The example of set_all on an ordinary model: nothing to trap.
  CHECK(train("logits * 2.0", "set_all = true\n").empty());
}
