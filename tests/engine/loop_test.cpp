// Loops that do not unroll (`loop … over t in a..b while COND`): the zoo's LSTM written as a loop
// over its cell trains to the bits of nn.lstm's unrolled reference, on one IPU and on a recomputed
// two-stage pipeline; a greedy decoder stops at its end token in predict; the loop is priced once
// per iteration; bad loops are refused where they are written.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "iputrain/iputrain.hpp"

using namespace iputrain;

namespace {
namespace loop_test {

// examples/zoo/lstm_classifier.ipu in small, its LSTM either nn.lstm unrolled or the same cell
// written as a `loop` (the layer is named lstm, so its parameters are named, and drawn, alike).
const char* kLstm = R"(import nn

layer lstm(x: f32[b, t, c], units: int, lengths) {
  param kernel: f32[c, 4 * units] = glorot_uniform()
  param recurrent_kernel: f32[units, 4 * units] = orthogonal()
  param bias: f32[4 * units] = lstm_bias(forget = 1.0)
  xw = x @ kernel + bias
  counts = reshape(cast(lengths, "f32"), [b, 1])
  u = units
  loop (h = full([b, u], 0.0), c = full([b, u], 0.0)) over s in 0..t {
    z = xw[:, s] + h @ recurrent_kernel
    i = sigmoid(z[:, :u])
    f = sigmoid(z[:, u:2 * u])
    o = sigmoid(z[:, 3 * u:])
    valid = cast(counts > cast(s, "f32"), "f32")
    c = valid * (f * c + i * tanh(z[:, 2 * u:3 * u])) + (1.0 - valid) * c
    h = valid * (o * tanh(c)) + (1.0 - valid) * h
  }
  return h
}

model lstm_classifier(batch: int = 4, seq: int = 6, units: int = 5, classes: int = 4, as_loop: bool = true) {
  input x: f32[batch, seq, 3]
  input label: i32[batch]
  stage rnn {
    lengths = label + 3
    if as_loop {
      h = lstm(x, units, lengths)
    } else {
      h = nn.lstm(x, units, lengths = lengths, unroll = true)
    }
  }
  stage head {
    logits = nn.dense(h, classes)
    loss = mean(softmax_cross_entropy(logits, label))
  }
  minimize loss
  output loss
}
)";

std::string loop_config(const std::string& layout = "", const std::string& model = "") {
  return "[ipu]\nauto_select_ipus = " + std::string(layout.empty() ? "1" : "2") + "\n" +
         (layout.empty() ? "" : "allow_recompute = true\n") + "[model]\n" + model + layout +
         "[optimizer]\ntype = \"adam\"\nlearning_rate = 0.02\n"
         "[data]\ntrain = \"synthetic:samples=64,classes=4\"\ntest = \"synthetic:samples=8,classes=4\"\nbatch_size = "
         "4\n"
         "[training]\nsteps = 8\nseed = 11\n";
}

std::vector<WeightInfo> train(const std::string& model, const std::string& config_text) {
  const Config c = config::parse(config_text, "loop.toml");
  Session session(Model::parse(model, "loop.ipu", c), c);
  session.train();
  return session.weights();
}

const std::string kPipeline =
    "[pipeline]\ngradient_accumulation_count = 4\ndevice_mapping = [0, 1]\n"
    "recomputation_mode = \"recompute_then_backpropagate\"\n";

}  // namespace loop_test
}  // namespace

using namespace loop_test;

TEST_CASE("loop: the zoo's LSTM as a loop over its cell trains to the bits of nn.lstm unrolled") {
  const auto looped = train(kLstm, loop_config());
  const auto unrolled = train(kLstm, loop_config("", "as_loop = false\n"));
  REQUIRE(looped.size() == unrolled.size());
  REQUIRE(looped.size() == 5);
  for (size_t i = 0; i < looped.size(); ++i) {
    INFO(looped[i].name);
    CHECK(looped[i].name == unrolled[i].name);
    CHECK(looped[i].values == unrolled[i].values);
  }
  // It trained: the weights moved from their initial values.
  const Config c = config::parse(loop_config(), "loop.toml");
  Session fresh(Model::parse(kLstm, "loop.ipu", c), c);
  CHECK(fresh.weights()[1].values != looped[1].values);
}

// nn.gru and nn.augru, looped (their default here) and unrolled: bitwise where the cell reads each
// weight once per step (reset_after = true), within rounding where it reads the recurrent kernel
// twice (reset_after = false, augru's default: the two reads are summed first).
const char* kGru = R"(import nn

model gru_tagger(batch: int = 4, seq: int = 5, unroll: bool = false, reset_after: bool = true) {
  input x: f32[batch, seq, 3]
  input label: i32[batch]
  h = nn.gru(x, 4, activation = softsign, reset_after = reset_after, unroll = unroll)
  a = nn.augru(x, softmax(x[:, :, 0]), 4, reset_after = reset_after, unroll = unroll)
  loss = mean(softmax_cross_entropy(nn.dense(h + a, 4), label))
  minimize loss
  output loss
}
)";

TEST_CASE("loop: nn.gru and nn.augru looped train as unrolled") {
  for (const bool reset_after : {true, false}) {
    CAPTURE(reset_after);
    const std::string flag = std::string("reset_after = ") + (reset_after ? "true" : "false") + "\n";
    const auto looped = train(kGru, loop_config("", flag));
    const auto unrolled = train(kGru, loop_config("", flag + "unroll = true\n"));
    REQUIRE(looped.size() == unrolled.size());
    for (size_t i = 0; i < looped.size(); ++i) {
      INFO(looped[i].name);
      REQUIRE(looped[i].values.size() == unrolled[i].values.size());
      for (size_t k = 0; k < looped[i].values.size(); ++k) {
        if (reset_after) {
          CHECK(looped[i].values[k] == unrolled[i].values[k]);
        } else {
          CHECK(looped[i].values[k] == doctest::Approx(unrolled[i].values[k]).epsilon(1e-4));
        }
      }
    }
  }
}

TEST_CASE("loop: the same bits as unrolled with half-precision compute") {
  // Every float result in the body rounded to f16 as the unrolled ops' results are, the gradient's
  // partial sums too.
  const std::string half = "precision = \"f16\"\n";
  auto with_half = [&](const std::string& model) {
    std::string text = loop_config("", model);
    return text.replace(text.find("[training]\n") + 11, 0, half);
  };
  const auto looped = train(kLstm, with_half(""));
  const auto unrolled = train(kLstm, with_half("as_loop = false\n"));
  const auto in_f32 = train(kLstm, loop_config());
  REQUIRE(looped.size() == unrolled.size());
  for (size_t i = 0; i < looped.size(); ++i) {
    INFO(looped[i].name);
    CHECK(looped[i].values == unrolled[i].values);
  }
  CHECK(looped[1].values != in_f32[1].values);  // the rounding acted
}

TEST_CASE("loop: the same bits on a two-stage pipeline with recomputation as on one IPU") {
  const std::string rest =
      "[optimizer]\ntype = \"adam\"\nlearning_rate = 0.02\n"
      "[data]\ntrain = \"synthetic:samples=64,classes=4\"\nbatch_size = 4\n"
      "[training]\nsteps = 8\nseed = 11\n";
  const auto reference =
      train(kLstm, "[ipu]\nauto_select_ipus = 1\n[pipeline]\ngradient_accumulation_count = 4\n" + rest);
  const auto piped = train(kLstm, "[ipu]\nauto_select_ipus = 2\nallow_recompute = true\n" + kPipeline + rest);
  REQUIRE(piped.size() == reference.size());
  for (size_t i = 0; i < piped.size(); ++i) {
    INFO(piped[i].name);
    CHECK(piped[i].values == reference[i].values);
  }
}

// A greedy decoder (argmax of its logits each step) whose logits favour the previous token minus one,
// so each sample counts down from label + 2; it stops once every sample of the micro-batch has
// produced the end token 0 (at most 5 of the 8 iterations allowed). It collects token + 100, so the
// rows of iterations that did not run (zeros) show. h carries a trained state.
const char* kDecoder = R"(import nn

model decoder(batch: int = 4, dim: int = 3, steps: int = 8) {
  input x: f32[batch, dim]
  input label: i32[batch]
  param table: f32[8, dim] = glorot_uniform()
  param proj: f32[dim, 8] = glorot_uniform()
  start = label + 2
  loop (h = x, tok = start, done = cast(start == 0, "f32")) over t in 0..steps while min(done) < 1.0 {
    h = tanh(gather(table, tok) + h)
    logits = one_hot(maximum(tok - 1, 0), 8) * 10.0 + 0.01 * (h @ proj)
    tok = argmax(logits, axis = -1)
    done = maximum(done, cast(tok == 0, "f32"))
    collect tokens = tok + 100
    collect hs = h
  }
  loss = mean(softmax_cross_entropy(nn.dense(h, 4), label))
  minimize loss
  output loss
  output per_sample decoded = transpose(tokens, [1, 0])
  output per_sample start_token = start
}
)";

TEST_CASE("loop: a decoder stops at its end token in predict, and trains") {
  const Config c = config::parse(
      "[ipu]\nauto_select_ipus = 1\n[optimizer]\ntype = \"sgd\"\nlearning_rate = 0.1\n"
      "[data]\ntrain = \"synthetic:samples=32,classes=4\"\ntest = \"synthetic:samples=8,classes=4\"\n"
      "batch_size = 4\n[training]\nsteps = 4\nseed = 2\n",
      "decoder.toml");
  Session session(Model::parse(kDecoder, "decoder.ipu", c), c);
  session.train();
  const std::vector<Prediction> p = session.predict("test", {"decoded", "start_token"});
  REQUIRE(p.size() == 2);
  const Prediction& decoded = p[0].name == "decoded" ? p[0] : p[1];
  const Prediction& start = p[0].name == "decoded" ? p[1] : p[0];
  REQUIRE(start.values.size() == 8);
  REQUIRE(decoded.values.size() == 8 * 8);
  int64_t stopped_early = 0;
  for (size_t mb = 0; mb < 2; ++mb) {
    // The micro-batch runs until its largest start has counted down to 0.
    double most = 0;
    for (size_t i = 0; i < 4; ++i) {
      most = std::max(most, start.values[mb * 4 + i]);
    }
    const auto ran = static_cast<size_t>(most);
    stopped_early += ran < 8 ? 1 : 0;
    for (size_t i = 0; i < 4; ++i) {
      const size_t sample = mb * 4 + i;
      for (size_t t = 0; t < 8; ++t) {
        const double want = t < ran ? 100.0 + std::max(0.0, start.values[sample] - 1.0 - static_cast<double>(t)) : 0.0;
        INFO("sample " << sample << " iteration " << t);
        CHECK(decoded.values[sample * 8 + t] == want);
      }
    }
  }
  CHECK(stopped_early == 2);
}

TEST_CASE("loop: priced once per iteration") {
  // The LSTM's loop over 6 and over 24 steps: the loop's cycles grow with the iterations (the
  // product of the inputs outside the loop grows too, and the fixed costs stay).
  auto cycles = [](int seq) {
    const Config c = config::parse(loop_config("", "seq = " + std::to_string(seq) + "\n"), "loop.toml");
    const Plan plan = Plan::make(Model::parse(kLstm, "loop.ipu", c), c);
    return plan.cycles_per_update();
  };
  const double six = cycles(6);
  const double many = cycles(24);
  MESSAGE("cycles per update: " << six << " over 6 steps, " << many << " over 24");
  CHECK(many > 2.5 * six);
  CHECK(many < 4.5 * six);
}

TEST_CASE("loop: bad loops are refused where they are written") {
  auto refused = [](const std::string& body, const std::string& header = "loop (h = x) over t in 0..4") {
    const std::string model = "model m(batch: int = 2) {\n  input x: f32[batch, 3]\n  input y: f16[batch, 3]\n  " +
                              header + " {\n    " + body + "\n  }\n  output h\n}\n";
    try {
      Model::parse(model, "bad.ipu");
    } catch (const Error& e) {
      return e.diagnostic().message + " | " + e.diagnostic().hint + " @" + std::to_string(e.diagnostic().span.line);
    }
    return std::string("accepted");
  };
  CHECK(refused("h = x[:, 0:2]").find("f32[2, 3] when the loop starts but f32[2, 2] after an iteration") !=
        std::string::npos);
  CHECK(refused("h = h", "loop (h = x) over t in 4..4").find("at least one") != std::string::npos);
  CHECK(refused("h = h", "loop (h = 3) over t in 0..4").find("a loop carries tensors") != std::string::npos);
  CHECK(refused("h = h", "loop (h = x) over t in 0..4 while true").find("compile-time bool") != std::string::npos);
  CHECK(refused("h = h", "loop (h = y) over t in 0..4").find("f32, i32 and bool") != std::string::npos);
  CHECK(refused("h = cross_replica_sum(h)").find("a collective across replicas cannot run in a loop body") !=
        std::string::npos);
  CHECK(refused("input y: f32[2]").find("'input' is not allowed in a loop body") != std::string::npos);
  CHECK(refused("collect a = h\n    collect a = h").find("collected twice") != std::string::npos);
  CHECK(refused("h = h", "loop (h = x, h) over t in 0..4").find("carried twice") != std::string::npos);
  CHECK(refused("h = h * cast(t, \"f32\")") == "accepted");
}

TEST_CASE("loop: a name the body rebinds keeps its value from before the loop after it") {
  // `z` is named before the loop and assigned in its body: after the loop it is the value from
  // before (the body's names are its own), and predict's --output z gives that value.
  const Config c = config::parse(loop_config(), "loop.toml");
  Session session(Model::parse(R"(model m(batch: int = 4) {
  input x: f32[batch, 3]
  input label: i32[batch]
  z = x * 2.0
  loop (h = x) over t in 0..3 {
    z = h + 1.0
    h = tanh(z)
  }
  output per_sample twice = x * 2.0
  output per_sample hh = h
}
)",
                               "names.ipu", c),
                  c);
  const std::vector<Prediction> p = session.predict("test", {"z", "twice"});
  REQUIRE(p.size() == 2);
  CHECK(p[0].values.size() == 8 * 3);
  CHECK(p[0].values == p[1].values);
}
