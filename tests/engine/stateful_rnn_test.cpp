// Stateful recurrent layers (planner/recurrent_states.hpp): a sequence cut into consecutive
// micro-batches gives the outputs and final states of the whole sequence at once; every plan of
// one replica (accumulation, pipelines, recomputation, half compute) trains the one-IPU bits,
// states included; the states are reset where the docs say, saved and resumed; the combinations
// they cannot follow are refused, saying why.
#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "../scratch_dir.hpp"
#include "iputrain/iputrain.hpp"
#include "test_models.hpp"

using namespace iputrain;
namespace fs = std::filesystem;

namespace {

// Two samples of 8 steps, or the same cut into halves: batch 0 holds the first 4 steps of each,
// batch 1 the last 4.
constexpr int64_t kChannels = 3;

std::vector<float> sequences() {
  std::vector<float> x(2 * 8 * kChannels);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>((static_cast<int64_t>(i) * 37 % 23) - 11) / 7.0F;
  }
  return x;
}

std::vector<float> halves(const std::vector<float>& whole) {
  std::vector<float> out(whole.size());
  for (int64_t half = 0; half < 2; ++half) {
    for (int64_t sample = 0; sample < 2; ++sample) {
      for (int64_t step = 0; step < 4; ++step) {
        for (int64_t c = 0; c < kChannels; ++c) {
          out[static_cast<size_t>(((half * 2 + sample) * 4 + step) * kChannels + c)] =
              whole[static_cast<size_t>((sample * 8 + half * 4 + step) * kChannels + c)];
        }
      }
    }
  }
  return out;
}

// `layer` is nn.lstm or nn.gru over `t` steps; the per-sample outputs are the sequence and the
// final states.
std::string model_text(const std::string& layer, int t, const std::string& options) {
  const bool lstm = layer == "lstm";
  return "import nn\nmodel m(batch: int = 2) {\n  input x: f32[batch, " + std::to_string(t) +
         ", 3]\n  input label: i32[batch]\n  r = nn." + layer + "(x, 4, return_sequences = true, return_state = true" +
         options + ")\n  logits = nn.dense(r[0][:, " + std::to_string(t - 1) +
         "], 2)\n  loss = mean(softmax_cross_entropy(logits, label))\n  minimize loss\n  output loss\n"
         "  output per_sample seq = r[0]\n  output per_sample h = r[1]\n" +
         (lstm ? "  output per_sample c = r[2]\n" : "") + "}\n";
}

const std::string kConfig =
    "[optimizer]\ntype = \"sgd\"\nlearning_rate = 0.1\n[data]\nshuffle = false\n[training]\nsteps = 1\nseed = 5\n";

struct Run {
  Config config;
  Session session;
  Run(const std::string& model, const std::string& config_text)
      : config(config::parse(config_text, "stateful.toml")),
        session(Model::parse(model, "stateful.ipu", config.model), config) {}
};

std::map<std::string, std::vector<double>> predict(Session& s, const std::vector<float>& x, int64_t samples, int t) {
  const std::vector<int32_t> labels(static_cast<size_t>(samples), 1);
  s.set_data("test", {ArrayData::f32("x", {samples, t, kChannels}, x.data()),
                      ArrayData::i32("label", {samples}, labels.data())});
  std::map<std::string, std::vector<double>> out;
  for (const Prediction& p : s.predict("test")) {
    out[p.name] = p.values;
  }
  return out;
}

std::map<std::string, std::vector<float>> weights_of(const Session& s) {
  std::map<std::string, std::vector<float>> out;
  for (const WeightInfo& w : s.weights()) {
    out[w.name] = w.values;
  }
  return out;
}

std::map<std::string, std::vector<float>> weights_of_run(const std::string& model, const std::string& config_text) {
  Run r(model, config_text);
  r.session.train();
  return weights_of(r.session);
}

std::vector<WeightInfo> weights_list(const std::string& model, const std::string& config_text) {
  Run r(model, config_text);
  r.session.train();
  return r.session.weights();
}

std::string error_of(const std::string& model, const std::string& config_text) {
  try {
    Run r(model, config_text);
    r.session.train();
  } catch (const Error& e) {
    return e.render();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a sequence cut in two consecutive micro-batches gives the whole sequence's outputs and states") {
  const std::vector<float> whole = sequences();
  const std::vector<float> cut = halves(whole);
  for (const std::string layer : {"lstm", "gru"}) {
    CAPTURE(layer);
    Run full(model_text(layer, 8, ""), kConfig);
    Run stateful(model_text(layer, 4, ", stateful = true"), kConfig);
    // One layer name, one seed: the same initial weights.
    auto w = weights_of(stateful.session);
    for (const auto& [name, values] : weights_of(full.session)) {
      CHECK(w.at(name) == values);
    }
    CHECK(w.at(layer + "/h_state") == std::vector<float>(8, 0.0F));

    // Prediction keeps the states from batch to batch, as Keras' predict does.
    const auto want = predict(full.session, whole, 2, 8);
    const auto got = predict(stateful.session, cut, 4, 4);
    for (int64_t sample = 0; sample < 2; ++sample) {
      for (int64_t half = 0; half < 2; ++half) {
        for (int64_t k = 0; k < 16; ++k) {
          CHECK(got.at("seq")[static_cast<size_t>((half * 2 + sample) * 16 + k)] ==
                want.at("seq")[static_cast<size_t>(sample * 32 + half * 16 + k)]);
        }
      }
    }
    for (const std::string& state : {std::string("h"), std::string(layer == "lstm" ? "c" : "h")}) {
      for (size_t k = 0; k < 8; ++k) {
        CHECK(got.at(state)[8 + k] == want.at(state)[k]);  // batch 1's final states: the whole sequence's
      }
    }
    // Each prediction starts from zero states: a second one gives the same numbers.
    CHECK(predict(stateful.session, cut, 4, 4) == got);

    // Training: one update of two micro-batches (the weights fixed within it) leaves the final
    // states of the whole sequences in the state parameters.
    const std::vector<int32_t> labels = {0, 1, 0, 1};
    Run trained(model_text(layer, 4, ", stateful = true"), kConfig + "[pipeline]\ngradient_accumulation_count = 2\n");
    trained.session.set_data(
        "train", {ArrayData::f32("x", {4, 4, kChannels}, cut.data()), ArrayData::i32("label", {4}, labels.data())});
    trained.session.train();
    const auto states = weights_of(trained.session);
    for (size_t k = 0; k < 8; ++k) {
      CHECK(states.at(layer + "/h_state")[k] == static_cast<float>(want.at("h")[k]));
      if (layer == "lstm") {
        CHECK(states.at("lstm/c_state")[k] == static_cast<float>(want.at("c")[k]));
      }
    }
  }
}

TEST_CASE("nn.augru: stateful and go_backwards carry the attention with the steps") {
  auto text = [](int t, const std::string& options) {
    return "import nn\nmodel m(batch: int = 2) {\n  input x: f32[batch, " + std::to_string(t) +
           ", 3]\n  input att: f32[batch, " + std::to_string(t) +
           "]\n  input label: i32[batch]\n  r = nn.augru(x, att, 4, return_sequences = true" + options +
           ")\n  loss = mean(softmax_cross_entropy(nn.dense(r[:, 0], 2), label))\n  minimize loss\n  output loss\n"
           "  output per_sample seq = r\n}\n";
  };
  const std::vector<float> whole = sequences();
  const std::vector<float> cut = halves(whole);
  std::vector<float> att(16), att_cut(16);
  for (int64_t i = 0; i < 16; ++i) {
    att[static_cast<size_t>(i)] = static_cast<float>(i % 5) / 4.0F;
  }
  for (int64_t half = 0; half < 2; ++half) {
    for (int64_t sample = 0; sample < 2; ++sample) {
      for (int64_t step = 0; step < 4; ++step) {
        att_cut[static_cast<size_t>((half * 2 + sample) * 4 + step)] =
            att[static_cast<size_t>(sample * 8 + half * 4 + step)];
      }
    }
  }
  auto run = [&](const std::string& model, const std::vector<float>& x, const std::vector<float>& a, int64_t n, int t) {
    Run r(model, kConfig);
    const std::vector<int32_t> labels(static_cast<size_t>(n), 0);
    r.session.set_data("test", {ArrayData::f32("x", {n, t, kChannels}, x.data()),
                                ArrayData::f32("att", {n, t}, a.data()), ArrayData::i32("label", {n}, labels.data())});
    return r.session.predict("test", {"seq"}).at(0).values;
  };
  const auto want = run(text(8, ""), whole, att, 2, 8);
  const auto got = run(text(4, ", stateful = true"), cut, att_cut, 4, 4);
  for (int64_t sample = 0; sample < 2; ++sample) {
    for (int64_t half = 0; half < 2; ++half) {
      for (int64_t k = 0; k < 16; ++k) {
        CHECK(got[static_cast<size_t>((half * 2 + sample) * 16 + k)] ==
              want[static_cast<size_t>(sample * 32 + half * 16 + k)]);
      }
    }
  }
  // go_backwards reverses the attention with the steps.
  std::string reversed = text(8, "");
  reversed.replace(reversed.find("nn.augru(x, att,"), 16, "nn.augru(x[:, ::-1], att[:, ::-1],");
  CHECK(run(text(8, ", go_backwards = true"), whole, att, 2, 8) == run(reversed, whole, att, 2, 8));
}

namespace {

const std::string kStaged = R"(import nn
model staged(batch: int = 4) {
  input image: f32[batch, 8, 8]
  input label: i32[batch]
  stage s0 {
    seq = nn.lstm(image, 6, return_sequences = true, stateful = true)
    h = nn.gru(seq, 5, stateful = true, go_backwards = true)
  }
  stage s1 {
    logits = nn.dense(h, 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }
  minimize loss
  output loss
}
)";

// `more` joins [training], `ipu` joins [ipu].
std::string staged_config(int ipus, const std::string& pipeline, int accumulation, const std::string& more = "",
                          const std::string& ipu = "") {
  return "[optimizer]\ntype = \"momentum\"\nlearning_rate = 0.05\n[data]\ntrain = "
         "\"synthetic:samples=64,classes=10\"\nshuffle = false\n[training]\nsteps = 5\nsteps_per_execution = 2\n"
         "seed = 3\n" +
         more + "[ipu]\nauto_select_ipus = " + std::to_string(ipus) + "\n" + ipu + "[pipeline]\n" + pipeline +
         "gradient_accumulation_count = " + std::to_string(accumulation) + "\n";
}

std::vector<WeightInfo> train_staged(const std::string& config_text) {
  Run r(kStaged, config_text);
  r.session.train();
  return r.session.weights();
}

}  // namespace

TEST_CASE("stateful layers: accumulation, pipelines and recomputation train the one-IPU bits, states included") {
  for (const std::string precision : {"f32", "f16"}) {
    CAPTURE(precision);
    const std::string half = "precision = \"" + precision + "\"\n";
    auto config = [&](int ipus, const std::string& pipeline, const std::string& ipu = "") {
      return staged_config(ipus, pipeline, 4, half, ipu);
    };
    const std::vector<WeightInfo> reference = train_staged(config(1, ""));
    bool moved = false;
    for (const WeightInfo& w : reference) {
      if (w.name == "s0/lstm/h_state" || w.name == "s0/gru/h_state") {
        CHECK_FALSE(w.trainable);
        moved = moved || std::any_of(w.values.begin(), w.values.end(), [](float v) { return v != 0.0F; });
      }
    }
    CHECK(moved);
    const std::string two = "device_mapping = [0, 1]\nschedule = ";
    const std::vector<std::pair<std::string, std::string>> plans = {
        {"2 stages on 2 IPUs, grouped", config(2, two + "\"grouped\"\n")},
        {"2 stages on 2 IPUs, interleaved", config(2, two + "\"interleaved\"\n")},
        {"2 stages on 2 IPUs, zero bubble", config(2, two + "\"zero_bubble\"\n")},
        {"2 stages, recompute then backpropagate",
         config(2, two + "\"grouped\"\nrecomputation_mode = \"recompute_then_backpropagate\"\n",
                "allow_recompute = true\n")},
        {"2 stages, recomputation interleaved",
         config(2, two + "\"grouped\"\nrecomputation_mode = \"recompute_and_backpropagate_interleaved\"\n",
                "allow_recompute = true\n")},
    };
    for (const auto& [name, text] : plans) {
      CAPTURE(name);
      CHECK(testing::same_bits(train_staged(text), reference));
    }
  }
  // The check can fail: the same model without stateful (every batch from zero states) differs.
  std::string plain = kStaged;
  for (int k = 0; k < 2; ++k) {
    plain.replace(plain.find(", stateful = true"), std::string(", stateful = true").size(), "");
  }
  Run r(plain, staged_config(1, "", 4));
  r.session.train();
  CHECK(weights_of(r.session).at("s1/dense/kernel") !=
        weights_of_run(kStaged, staged_config(1, "", 4)).at("s1/dense/kernel"));
}

TEST_CASE("the states start afresh at every epoch and every training.reset_states_every batches") {
  // 16 samples of 4: 4 batches an epoch; 6 updates of one micro-batch cross into the second epoch.
  auto config = [](int every) {
    return staged_config(1, "", 1, "reset_states_every = " + std::to_string(every) + "\n");
  };
  auto short_epochs = [](std::string text) {
    return text.replace(text.find("samples=64"), std::string("samples=64").size(), "samples=16");
  };
  const auto never = weights_of_run(kStaged, short_epochs(config(0)));
  // Reset at batches 0 and 4 (the second epoch) either way.
  CHECK(weights_of_run(kStaged, short_epochs(config(4))) == never);
  // Resets at 0, 2, 4 differ: so would a run that did not reset at the epoch (0 only) from the run
  // that resets at 0 and 4.
  CHECK(weights_of_run(kStaged, short_epochs(config(2))) != never);
  // Reset at every batch: the stateful model trains the bits of the plain one.
  std::string plain = kStaged;
  for (int k = 0; k < 2; ++k) {
    plain.replace(plain.find(", stateful = true"), std::string(", stateful = true").size(), "");
  }
  auto every = weights_of_run(kStaged, config(1));
  const auto want = weights_of_run(plain, config(1));
  every.erase("s0/lstm/h_state");
  every.erase("s0/lstm/c_state");
  every.erase("s0/gru/h_state");
  CHECK(every == want);
}

TEST_CASE("validation runs from zero states on its own copy, and leaves the training states alone") {
  const std::string plain = staged_config(1, "", 1);
  std::string validated = staged_config(1, "", 1, "validate_every = 2\nvalidate_every_unit = \"steps\"\n");
  validated.replace(validated.find("shuffle = false\n"), 16,
                    "shuffle = false\nvalidation = \"synthetic:samples=24,classes=10\"\n");
  Run with(kStaged, validated);
  const TrainSummary summary = with.session.train();
  CHECK(testing::same_bits(with.session.weights(), weights_list(kStaged, plain)));
  // Each validation is a pass of its own from zero states: evaluating twice gives one result.
  const EvalResult a = with.session.evaluate("validation");
  CHECK(a.means.at("loss") == with.session.evaluate("validation").means.at("loss"));
  CHECK(summary.validations.size() == 3);  // after steps 2, 4 and the last
}

TEST_CASE("the states are saved and resumed with the weights") {
  const fs::path dir = iputrain_tests::scratch_dir("stateful_test");
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string whole_text = staged_config(1, "", 1);
  Run whole(kStaged, whole_text);
  whole.session.train();
  std::string part_text = whole_text;
  part_text.replace(part_text.find("steps = 5"), 9, "steps = 2");
  Run part(kStaged, part_text + "[checkpoint]\ndir = \"" + dir.string() + "\"\n");
  part.session.train();
  const auto saved = weights_of(part.session);
  CHECK(saved.at("s0/lstm/c_state") != std::vector<float>(24, 0.0F));
  Run resumed(kStaged, whole_text);
  resumed.session.resume(dir.string());
  CHECK(weights_of(resumed.session).at("s0/lstm/c_state") == saved.at("s0/lstm/c_state"));
  resumed.session.train();
  CHECK(testing::same_bits(resumed.session.weights(), whole.session.weights()));
  // Without the states the continuation differs: they carry the sequences across the cut.
  const std::string weights = (dir / "weights.safetensors").string();
  part.session.save_weights(weights);
  Run restarted(kStaged, whole_text);
  restarted.session.load_weights(weights);
  CHECK(weights_of(restarted.session).at("s0/gru/h_state") == saved.at("s0/gru/h_state"));
}

TEST_CASE("what stateful layers cannot follow is refused, saying why") {
  const std::string ok = staged_config(1, "", 4);
  auto has = [](const std::string& text, const std::string& part) {
    CAPTURE(text);
    CHECK(text.find(part) != std::string::npos);
  };
  const std::string replicated = staged_config(2, "device_mapping = [0, 0]\n", 4);
  has(error_of(kStaged, replicated),
      "stateful.ipu:6:11: error: a stateful recurrent layer needs one replica, but the plan has 2");
  has(error_of(kStaged, replicated), "gradient_accumulation_count");
  std::string shuffled = ok;
  shuffled.replace(shuffled.find("shuffle = false"), 15, "shuffle = true");
  has(error_of(kStaged, shuffled), "shuffled training data breaks");
  has(error_of(kStaged, shuffled), "data.shuffle = false");
  std::string unset = ok;
  unset.replace(unset.find("shuffle = false\n"), 16, "");
  has(error_of(kStaged, unset), "stateful.ipu:6:11: error: a stateful recurrent layer continues sample i");
  has(error_of(kStaged, unset), "(data.shuffle is true by default)");
  std::string sliced = ok;
  sliced.replace(sliced.find("shuffle = false\n"), 16, "shuffle = false\nbatch_size = 8\n");
  has(error_of(kStaged, sliced + "batch_serialization_iterations = 2\n"),
      "pipeline.batch_serialization_iterations = 2");
  const std::string tail = "(x, 4, return_sequences = true, return_state = true";
  auto with = [&](const std::string& options) {
    std::string m = model_text("lstm", 4, "");
    return m.replace(m.find(tail), tail.size(), tail + options);
  };
  has(error_of(with(", stateful = true, initial_state = [full([2, 4], 0.0), full([2, 4], 0.0)]"), kConfig),
      "a stateful layer starts from its own states: drop initial_state");
  has(error_of(with(", recurrent_dropout = 0.25"), kConfig), "recurrent_dropout is not available");
  has(error_of(with(", go_backwards = true, lengths = full([2], 3, dtype = \"i32\")"), kConfig),
      "go_backwards with lengths is not available");
  // The user's call is where the error points.
  has(error_of(with(", recurrent_dropout = 0.25"), kConfig), "stateful.ipu:5:");
  // A state read on one stage and written on another: its IPU would not see the write.
  has(error_of(R"(model split(batch: int = 2) {
  input x: f32[batch, 4]
  input label: i32[batch]
  param st: f32[batch, 4] = zeros(), trainable = false
  stage s0 {
    h = state_read(st) + x
  }
  stage s1 {
    w = state_write(h, st)
    param k: f32[4, 2] = ones()
    loss = mean(softmax_cross_entropy(w @ k, label))
  }
  minimize loss
  output loss
}
)",
               ok),
      "the state 'st' is read and written on different stages");
}

TEST_CASE("go_backwards runs the steps last to first and returns them in that order") {
  std::string backwards = model_text("gru", 8, ", go_backwards = true");
  std::string reversed = model_text("gru", 8, "");
  reversed.replace(reversed.find("nn.gru(x,"), 9, "nn.gru(x[:, ::-1],");
  Run a(backwards, kConfig);
  Run b(reversed, kConfig);
  const auto x = sequences();
  const auto got = predict(a.session, x, 2, 8);
  CHECK(got == predict(b.session, x, 2, 8));
  Run c(model_text("gru", 8, ""), kConfig);
  CHECK(predict(c.session, x, 2, 8).at("h") != got.at("h"));
}
