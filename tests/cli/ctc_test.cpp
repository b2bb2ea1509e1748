// CTC end to end: a model with losses.ctc (the ctc_loss op) checks, trains from unaligned label
// sequences until greedy decoding reads them back, and predicts ctc_greedy_decode per sample;
// ctc_beam_search_decode predicts what greedy decoding does with a beam of one and finds the more
// probable labelling with a wider one; the language's errors for a bad call point at it, and bad
// lengths in the data stop the run located.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "iputrain/iputrain.hpp"

using namespace iputrain;

namespace {

constexpr int64_t kSteps = 10;
constexpr int64_t kFeatures = 5;
constexpr int64_t kMaxLabels = 3;

// Per step, a dense layer scores blank (0) and the symbols 1..3; the loss sees only the label
// sequences, never which step says what.
const std::string kReaderModel = R"(import nn
import losses
model reader(batch: int = 16) {
  input x: f32[batch, 10, 5]
  input labels: i32[batch, 3]
  input x_lengths: i32[batch]
  input label_lengths: i32[batch]
  stage s {
    logits = nn.dense(nn.dense(x, 16, activation = tanh), 4)
    loss = losses.ctc(logits, labels, x_lengths, label_lengths)
  }
  minimize loss
  output loss
  output decoded = ctc_greedy_decode(logits, x_lengths)
}
)";

struct Sequences {
  std::vector<float> x;
  std::vector<int32_t> labels;
  std::vector<int32_t> x_lengths;
  std::vector<int32_t> label_lengths;
};

// Samples of 1 to 3 symbols, each held for 1 or 2 steps, a blank step between equal neighbours
// (and sometimes between others), noisy one-hot features; steps past the length hold noise only.
Sequences make(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  auto noise = [&] { return static_cast<float>(rng() % 1000) / 1000.0f * 0.6f - 0.3f; };
  Sequences d;
  for (int64_t i = 0; i < n; ++i) {
    const auto len = static_cast<int32_t>(1 + rng() % kMaxLabels);
    std::vector<int32_t> frames(rng() % 2, 0);
    for (int32_t j = 0; j < kMaxLabels; ++j) {
      const auto symbol = static_cast<int32_t>(1 + rng() % 3);
      d.labels.push_back(j < len ? symbol : -1);
      if (j >= len) {
        continue;
      }
      if (!frames.empty() && (frames.back() == symbol || rng() % 3 == 0)) {
        frames.push_back(0);
      }
      frames.insert(frames.end(), 1 + rng() % 2, symbol);
    }
    d.x_lengths.push_back(static_cast<int32_t>(frames.size()));
    d.label_lengths.push_back(len);
    for (int64_t k = 0; k < kSteps; ++k) {
      for (int64_t f = 0; f < kFeatures; ++f) {
        const bool on = k < static_cast<int64_t>(frames.size()) && frames[static_cast<size_t>(k)] == f;
        d.x.push_back((on ? 2.0f : 0.0f) + noise());
      }
    }
  }
  return d;
}

std::vector<ArrayData> arrays(const Sequences& d, int64_t n) {
  return {ArrayData::f32("x", {n, kSteps, kFeatures}, d.x.data()),
          ArrayData::i32("labels", {n, kMaxLabels}, d.labels.data()),
          ArrayData::i32("x_lengths", {n}, d.x_lengths.data()),
          ArrayData::i32("label_lengths", {n}, d.label_lengths.data())};
}

Config ctc_config() {
  return config::parse("[optimizer]\ntype = \"adam\"\nlearning_rate = 0.02\n[training]\nsteps = 150\nseed = 7\n",
                       "ctc.toml");
}

std::string message_of(const std::string& call) {
  const std::string text =
      "import losses\nmodel t() {\n  input z: f32[2, 6, 4]\n  input y: i32[2, 3]\n  input n: i32[2]\n  output l = " +
      call + "\n}\n";
  try {
    (void)Model::parse(text, "t.ipu");
  } catch (const Error& e) {
    CHECK(e.span().line == 6);
    return std::string(e.what()) + " | " + e.hint();
  }
  FAIL("expected an error for: " << call);
  return {};
}

}  // namespace

TEST_CASE("ctc: a model trains on unaligned label sequences and predict decodes them") {
  const Sequences train = make(512, 1);
  const Sequences test = make(64, 2);
  Config c = ctc_config();
  Session session(Model::parse(kReaderModel, "reader.ipu", c.model), c);
  session.set_data("train", arrays(train, 512));
  session.set_data("test", arrays(test, 64));
  const double before = session.evaluate("test").means.at("loss");
  session.train();
  const double after = session.evaluate("test").means.at("loss");
  MESSAGE("test CTC loss " << before << " before training, " << after << " after");
  CHECK(after < 0.2 * before);
  const std::vector<Prediction> p = session.predict("test", {"decoded"});
  REQUIRE(p.size() == 1);
  CHECK(p[0].dtype == "i32");
  CHECK(p[0].sample_shape == std::vector<int64_t>{kSteps});
  REQUIRE(p[0].samples == 64);
  int64_t exact = 0;
  for (int64_t i = 0; i < 64; ++i) {
    bool same = true;
    for (int64_t k = 0; k < kSteps; ++k) {
      const int32_t want = k < kMaxLabels && k < test.label_lengths[static_cast<size_t>(i)]
                               ? test.labels[static_cast<size_t>(i * kMaxLabels + k)]
                               : -1;
      same = same && p[0].values[static_cast<size_t>(i * kSteps + k)] == want;
    }
    exact += same ? 1 : 0;
  }
  MESSAGE(exact << " of 64 test sequences decoded exactly");
  CHECK(exact >= 58);
}

// Per step the probabilities of blank (0) and the symbols 1 and 2, written as logits log p.
const std::string kBeamModel = R"(model beams(batch: int = 2) {
  input z: f32[batch, 3, 3]
  input n: i32[batch]
  output per_sample greedy = ctc_greedy_decode(z, n)
  output per_sample narrow = ctc_beam_search_decode(z, n, beam_width = 1)
  output per_sample wide = ctc_beam_search_decode(z, n, beam_width = 4, top_paths = 2)
}
)";

TEST_CASE("ctc: beam search predicts greedy decoding's labels with one beam and a likelier labelling with more") {
  // Sample 0 (2 steps of 3): blank .55, 1 .4, 2 .05 twice. The best path is blank blank (.3025),
  // but "1" has three alignments, 1 1, 1 _ and _ 1: .16 + .22 + .22 = .6. Sample 1: 1, 2, blank,
  // each at .8, no merges, so every decoder reads "1 2"; one beam keeps the alignments of "1 2"
  // that run through the best prefixes: .8 * .8 * (.8 + .1) = .576.
  std::vector<float> z;
  for (const double p : {.55, .4, .05, .55, .4, .05, 1.0, 1.0, 1.0, .1, .8, .1, .1, .1, .8, .8, .1, .1}) {
    z.push_back(static_cast<float>(std::log(p)));
  }
  const std::vector<int32_t> n = {2, 3};
  Config c = ctc_config();
  Session session(Model::parse(kBeamModel, "beams.ipu", c.model), c);
  session.set_data("test", {ArrayData::f32("z", {2, 3, 3}, z.data()), ArrayData::i32("n", {2}, n.data())});
  const std::vector<Prediction> p = session.predict("test", {"greedy", "narrow", "wide"});
  REQUIRE(p.size() == 3);
  REQUIRE(p[0].samples == 2);
  CHECK(p[1].dtype == "f32");
  CHECK(p[1].sample_shape == std::vector<int64_t>{1, 4});
  CHECK(p[2].sample_shape == std::vector<int64_t>{2, 4});
  // One beam: greedy decoding's labels, then -1 as in its padding.
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t k = 0; k < 3; ++k) {
      CHECK(p[1].values[static_cast<size_t>(i * 4 + 1 + k)] == p[0].values[static_cast<size_t>(i * 3 + k)]);
    }
  }
  CHECK(p[0].values == std::vector<double>{-1, -1, -1, 1, 2, -1});
  CHECK(p[1].values[0] == doctest::Approx(std::log(.3025)).epsilon(1e-5));
  CHECK(p[1].values[4] == doctest::Approx(std::log(.576)).epsilon(1e-5));
  // Four beams: "1" first at .6, then "" at .3025; sample 1's best labelling is "1 2" again, and
  // every alignment of it is counted (the beam holds all its prefixes).
  const std::vector<double> wide = p[2].values;
  CHECK(wide[0] == doctest::Approx(std::log(.6)).epsilon(1e-5));
  CHECK(std::vector<double>(wide.begin() + 1, wide.begin() + 4) == std::vector<double>{1, -1, -1});
  CHECK(wide[4] == doctest::Approx(std::log(.3025)).epsilon(1e-5));
  CHECK(std::vector<double>(wide.begin() + 5, wide.begin() + 8) == std::vector<double>{-1, -1, -1});
  CHECK(std::vector<double>(wide.begin() + 9, wide.begin() + 12) == std::vector<double>{1, 2, -1});
  CHECK(wide[8] > std::log(.576));
}

TEST_CASE("ctc: bad lengths in the data stop the run with a located error") {
  Sequences bad = make(16, 3);
  bad.x_lengths[5] = static_cast<int32_t>(kSteps + 1);
  Config c = ctc_config();
  Session session(Model::parse(kReaderModel, "reader.ipu", c.model), c);
  session.set_data("test", arrays(bad, 16));
  try {
    (void)session.evaluate("test");
    FAIL("expected a data error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Data);
    CHECK(std::string(e.what()).find("logit_lengths[5] = 11 out of range [0, 10]") != std::string::npos);
    CHECK(e.span().valid());
  }
}

TEST_CASE("ctc: the builtins' type errors point at the call") {
  CHECK(message_of("ctc_loss(z, y, n, n, blank = 4)")
            .find("argument 'blank' of ctc_loss must be a class index below 4") != std::string::npos);
  CHECK(message_of("ctc_loss(z, cast(y, dtype = \"f32\"), n, n)").find("labels must be i32[2, max_label_length]") !=
        std::string::npos);
  CHECK(message_of("ctc_loss(z[0], y, n, n)").find("logits must be f32[batch, steps, classes]") != std::string::npos);
  CHECK(message_of("ctc_greedy_decode(z, y)").find("logit_lengths must be i32[2], got i32[2, 3]") != std::string::npos);
  CHECK(message_of("ctc_beam_search_decode(z, n, beam_width = 2, top_paths = 3)")
            .find("argument 'top_paths' of ctc_beam_search_decode must be at most beam_width = 2, got 3") !=
        std::string::npos);
  CHECK(message_of("losses.ctc(z, y, n, n, reduction = \"avg\")").find("unknown reduction") != std::string::npos);
}
