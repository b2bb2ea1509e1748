// Op cases for CTC: ctc_loss, ctc_loss_grad, ctc_greedy_decode and ctc_beam_search_decode. The
// references enumerate every alignment of a sample's steps (c^t paths, so t and c stay tiny): the
// loss keeps those that collapse to its labels and sums their probabilities in log space, the beam
// search's reference sums them per labelling and ranks the labellings. No recursion is shared with
// the kernels.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "tests/core/ref_util.hpp"

namespace iputrain::test {

namespace {

struct BruteCtc {
  double loss = 0;
  Values grad;  // [t, c]: softmax - posterior over the counted steps, 0 past them (and when impossible)
};

// Sample i of the inputs (logits [b, t, c], labels [b, l], logit_lengths, label_lengths).
BruteCtc brute_ctc(const std::vector<Values>& in, const Shape& s, int64_t l, int64_t i, int64_t blank) {
  const int64_t t = s[1];
  const int64_t c = s[2];
  const auto steps = static_cast<int64_t>(in[2][static_cast<size_t>(i)]);
  const auto len = static_cast<int64_t>(in[3][static_cast<size_t>(i)]);
  std::vector<int64_t> labels;
  for (int64_t j = 0; j < len; ++j) {
    labels.push_back(static_cast<int64_t>(in[1][static_cast<size_t>(i * l + j)]));
  }
  Values logp(static_cast<size_t>(t * c));
  for (int64_t k = 0; k < steps; ++k) {
    const double* z = &in[0][static_cast<size_t>((i * t + k) * c)];
    double m = z[0];
    for (int64_t j = 1; j < c; ++j) {
      m = std::max(m, z[j]);
    }
    double sum = 0;
    for (int64_t j = 0; j < c; ++j) {
      sum += std::exp(z[j] - m);
    }
    for (int64_t j = 0; j < c; ++j) {
      logp[static_cast<size_t>(k * c + j)] = z[j] - m - std::log(sum);
    }
  }
  // Every path of `steps` classes, counted in base c; the log-weights of those that collapse to `labels`.
  std::vector<std::vector<int64_t>> paths;
  Values weights;
  std::vector<int64_t> path(static_cast<size_t>(steps), 0);
  for (bool more = true; more;) {
    std::vector<int64_t> collapsed;
    int64_t prev = -1;
    double w = 0;
    for (int64_t k = 0; k < steps; ++k) {
      const int64_t p = path[static_cast<size_t>(k)];
      if (p != blank && p != prev) {
        collapsed.push_back(p);
      }
      prev = p;
      w += logp[static_cast<size_t>(k * c + p)];
    }
    if (collapsed == labels) {
      paths.push_back(path);
      weights.push_back(w);
    }
    more = false;
    for (int64_t k = 0; k < steps && !more; ++k) {
      auto& p = path[static_cast<size_t>(k)];
      p = (p + 1) % c;
      more = p != 0;
    }
  }
  BruteCtc r{kInf, Values(static_cast<size_t>(t * c), 0.0)};
  if (paths.empty()) {
    return r;
  }
  double m = weights[0];
  for (double w : weights) {
    m = std::max(m, w);
  }
  double sum = 0;
  for (double w : weights) {
    sum += std::exp(w - m);
  }
  const double log_p = m + std::log(sum);
  r.loss = -log_p;
  for (int64_t k = 0; k < steps; ++k) {
    for (int64_t j = 0; j < c; ++j) {
      r.grad[static_cast<size_t>(k * c + j)] = std::exp(logp[static_cast<size_t>(k * c + j)]);
    }
  }
  for (size_t q = 0; q < paths.size(); ++q) {
    for (int64_t k = 0; k < steps; ++k) {
      r.grad[static_cast<size_t>(k * c + paths[q][static_cast<size_t>(k)])] -= std::exp(weights[q] - log_p);
    }
  }
  return r;
}

Values ref_ctc_loss(const std::vector<Values>& in, const std::vector<TensorType>& t, const TensorType&,
                    const Attrs& attrs) {
  Values r;
  for (int64_t i = 0; i < t[0].shape[0]; ++i) {
    r.push_back(brute_ctc(in, t[0].shape, t[1].shape[1], i, attrs.get_int("blank", 0)).loss);
  }
  return r;
}

Values ref_ctc_grad(const std::vector<Values>& in, const std::vector<TensorType>& t, const TensorType&,
                    const Attrs& attrs) {
  Values r;
  for (int64_t i = 0; i < t[0].shape[0]; ++i) {
    for (double g : brute_ctc(in, t[0].shape, t[1].shape[1], i, attrs.get_int("blank", 0)).grad) {
      r.push_back(g * in[4][static_cast<size_t>(i)]);
    }
  }
  return r;
}

// Logits [b, t, c] and the CTC inputs of one case, labels padded with values never read.
std::vector<TensorType> ctc_types(int64_t b, int64_t t, int64_t c, int64_t l) {
  return {f32({b, t, c}), i32({b, l}), i32({b}), i32({b})};
}

void add_loss_cases(std::vector<OpCase>& cases) {
  // Distinct labels, a repeat that needs a blank between (2 2 in 4 steps), counted steps short of
  // t, no labels (the all-blank path); padding of -1 and 7 is past the lengths, never read.
  cases.push_back({.name = "ctc_loss",
                   .op = OpKind::CtcLoss,
                   .inputs = ctc_types(4, 4, 4, 3),
                   .values = {{}, {1, 2, 3, 2, 2, -1, 3, 7, -1, -1, -1, -1}, {4, 4, 2, 3}, {3, 2, 1, 0}},
                   .reference = ref_ctc_loss,
                   .lo = -2,
                   .hi = 2});
  cases.push_back({.name = "ctc_loss blank last",
                   .op = OpKind::CtcLoss,
                   .inputs = ctc_types(2, 5, 4, 3),
                   .attrs = Attrs{{"blank", int64_t{3}}},
                   .values = {{}, {0, 0, 2, 1, 0, 1}, {5, 5}, {3, 3}},
                   .reference = ref_ctc_loss});
  // blank = -1 names the last class (the seed's default blank_index): the same as blank = 3 here.
  cases.push_back({.name = "ctc_loss blank -1",
                   .op = OpKind::CtcLoss,
                   .inputs = ctc_types(2, 5, 4, 3),
                   .attrs = Attrs{{"blank", int64_t{-1}}},
                   .values = {{}, {0, 0, 2, 1, 0, 1}, {5, 5}, {3, 3}},
                   .reference = [](const std::vector<Values>& in, const std::vector<TensorType>& t,
                                   const TensorType& out, const Attrs&) {
                     return ref_ctc_loss(in, t, out, Attrs{{"blank", int64_t{3}}});
                   }});
  // ±80 logits: log_softmax and the recursion stay finite where exp would overflow in f32.
  Values big;
  for (int k = 0; k < 2 * 3 * 3; ++k) {
    big.push_back((k * 7) % 3 == 0 ? 80.0 : ((k % 2) != 0 ? -80.0 : 79.5));
  }
  cases.push_back({.name = "ctc_loss large logits",
                   .op = OpKind::CtcLoss,
                   .inputs = ctc_types(2, 3, 3, 2),
                   .values = {big, {1, 2, 1, 1}, {3, 3}, {2, 2}},
                   .reference = ref_ctc_loss,
                   .rtol = 1e-6});
  // 1 1 in 2 steps, 3 labels in 2 steps and 1 label in none are impossible (+inf, no gradient to
  // check by differences); no labels in no steps is certain (0).
  cases.push_back({.name = "ctc_loss impossible alignments",
                   .op = OpKind::CtcLoss,
                   .inputs = ctc_types(4, 3, 3, 3),
                   .values = {{}, {1, 1, 0, 1, 2, 1, 2, 0, 0, 0, 0, 0}, {2, 2, 0, 0}, {2, 3, 1, 0}},
                   .expected = {kInf, kInf, kInf, 0.0},
                   .reference = ref_ctc_loss,
                   .grad = false});
  // A nan or +inf in a counted step makes the loss nan; past the steps it is never read.
  cases.push_back({.name = "ctc_loss nan and inf logits",
                   .op = OpKind::CtcLoss,
                   .inputs = ctc_types(3, 2, 2, 1),
                   .values = {{0, 1, kNan, 2, 0, 1, 3, kNan, kInf, 0, 0, 1}, {1, 1, 1}, {2, 1, 2}, {1, 1, 1}},
                   .expected = {kNan, 0.31326168751822286, kNan},
                   .grad = false});
}

void add_loss_error_cases(std::vector<OpCase>& cases) {
  const Values lengths = {3, 3};
  const std::vector<std::tuple<std::string, Values, Values, Values, std::string>> bad = {
      {"label out of range", {1, 2, 4, 1}, lengths, {2, 2}, "labels[1, 0] = 4 out of range [0, 4)"},
      {"negative label", {1, -2, 1, 1}, lengths, {2, 2}, "labels[0, 1] = -2 out of range [0, 4)"},
      {"label is blank", {1, 0, 1, 1}, lengths, {2, 2}, "labels[0, 1] = 0 is the blank class"},
      {"logit length too long", {1, 2, 1, 1}, {3, 4}, {2, 2}, "logit_lengths[1] = 4 out of range [0, 3]"},
      {"negative logit length", {1, 2, 1, 1}, {-1, 3}, {2, 2}, "logit_lengths[0] = -1 out of range [0, 3]"},
      {"label length too long", {1, 2, 1, 1}, lengths, {2, 3}, "label_lengths[1] = 3 out of range [0, 2]"},
      {"negative label length", {1, 2, 1, 1}, lengths, {-1, 2}, "label_lengths[0] = -1 out of range [0, 2]"},
  };
  for (const auto& [what, labels, steps, lens, message] : bad) {
    cases.push_back({.name = "ctc_loss " + what,
                     .op = OpKind::CtcLoss,
                     .inputs = ctc_types(2, 3, 4, 2),
                     .values = {{}, labels, steps, lens},
                     .reference = ref_ctc_loss,
                     .run_error = message});
  }
  cases.push_back({.name = "ctc_loss_grad label is blank",
                   .op = OpKind::CtcLossGrad,
                   .inputs = {f32({1, 3, 4}), i32({1, 2}), i32({1}), i32({1}), f32({1})},
                   .attrs = Attrs{{"blank", int64_t{2}}},
                   .values = {{}, {1, 2}, {3}, {2}, {}},
                   .reference = ref_ctc_grad,
                   .run_error = "labels[0, 1] = 2 is the blank class"});
  const std::vector<std::tuple<std::string, std::vector<TensorType>, Attrs, std::string>> types = {
      {"logits rank 2",
       {f32({2, 4}), i32({2, 2}), i32({2}), i32({2})},
       {},
       "logits must be f32[batch, steps, classes]"},
      {"logits f16", {TensorType{DType::F16, {2, 3, 4}}, i32({2, 2}), i32({2}), i32({2})}, {}, "got f16[2, 3, 4]"},
      {"labels batch",
       {f32({2, 3, 4}), i32({3, 2}), i32({2}), i32({2})},
       {},
       "labels must be i32[2, max_label_length]"},
      {"labels f32", {f32({2, 3, 4}), f32({2, 2}), i32({2}), i32({2})}, {}, "labels must be i32[2, max_label_length]"},
      {"logit_lengths shape", ctc_types(2, 3, 4, 2), {}, ""},
      {"label_lengths dtype", {f32({2, 3, 4}), i32({2, 2}), i32({2}), f32({2})}, {}, "label_lengths must be i32[2]"},
      {"blank too large", ctc_types(2, 3, 4, 2), Attrs{{"blank", int64_t{4}}},
       "argument 'blank' must be a class index below 4, or -1 for the last class, got 4"},
      {"negative blank", ctc_types(2, 3, 4, 2), Attrs{{"blank", int64_t{-2}}}, "argument 'blank' must be at least -1"},
  };
  for (auto [what, inputs, attrs, message] : types) {
    if (message.empty()) {
      inputs[2] = i32({2, 1});
      message = "logit_lengths must be i32[2], got i32[2, 1]";
    }
    cases.push_back(
        {.name = "ctc_loss " + what, .op = OpKind::CtcLoss, .inputs = inputs, .attrs = attrs, .infer_error = message});
  }
}

void add_grad_cases(std::vector<OpCase>& cases) {
  // Against the enumeration's posteriors: a repeat, a short sample (zeros past its steps), an
  // impossible one (zero gradient, where PyTorch gives nan) and one without labels.
  cases.push_back({.name = "ctc_loss_grad",
                   .op = OpKind::CtcLossGrad,
                   .inputs = {f32({4, 4, 3}), i32({4, 2}), i32({4}), i32({4}), f32({4})},
                   .values = {{}, {1, 1, 2, 1, 2, 2, 0, 0}, {4, 3, 2, 4}, {2, 2, 2, 0}, {}},
                   .reference = ref_ctc_grad});
  Values big;
  for (int k = 0; k < 2 * 4 * 3; ++k) {
    big.push_back((k * 5) % 3 == 1 ? 80.0 : ((k % 4) == 0 ? -80.0 : 40.0));
  }
  cases.push_back({.name = "ctc_loss_grad large logits blank 1",
                   .op = OpKind::CtcLossGrad,
                   .inputs = {f32({2, 4, 3}), i32({2, 2}), i32({2}), i32({2}), f32({2})},
                   .attrs = Attrs{{"blank", int64_t{1}}},
                   .values = {big, {2, 0, 2, 2}, {4, 4}, {2, 2}, {}},
                   .reference = ref_ctc_grad,
                   .rtol = 1e-4,
                   .atol = 1e-6});
  cases.push_back({.name = "ctc_loss_grad dy",
                   .op = OpKind::CtcLossGrad,
                   .inputs = {f32({2, 3, 4}), i32({2, 2}), i32({2}), i32({2}), f32({3})},
                   .infer_error = "dy must be f32[2], got f32[3]"});
}

void add_decode_cases(std::vector<OpCase>& cases) {
  // Sample 0: 1 1 _ 1 2 2 -> 1 1 2 (a blank separates the 1s). Sample 1: ties go to the first
  // class (1 over 2, blank over 1), and its two uncounted steps would add a 1. Sample 2: no steps.
  const Values logits = {0, 1, 0, 0,  1,  0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1,  //
                         0, 2, 2, .5, .5, 0, 0, 3, 3, 4, 0, 0, 0, 9, 0, 0, 9, 0,  //
                         0, 0, 1, 0,  0,  1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
  cases.push_back({.name = "ctc_greedy_decode",
                   .op = OpKind::CtcGreedyDecode,
                   .inputs = {f32({3, 6, 3}), i32({3})},
                   .values = {logits, {6, 4, 0}},
                   .expected = {1, 1, 2, -1, -1, -1, 1, 1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}});
  cases.push_back({.name = "ctc_greedy_decode blank 2 and nan",
                   .op = OpKind::CtcGreedyDecode,
                   .inputs = {f32({1, 5, 3}), i32({1})},
                   .attrs = Attrs{{"blank", int64_t{2}}},
                   .values = {{5, 0, 1, kNan, 0, kNan, 0, 1, 9, 0, 4, 1, 0, 4, 1}, {5}},
                   .expected = {0, 1, -1, -1, -1}});
  cases.push_back({.name = "ctc_greedy_decode logit length too long",
                   .op = OpKind::CtcGreedyDecode,
                   .inputs = {f32({2, 3, 2}), i32({2})},
                   .values = {{}, {3, 4}},
                   .run_error = "logit_lengths[1] = 4 out of range [0, 3]"});
  cases.push_back({.name = "ctc_greedy_decode lengths dtype",
                   .op = OpKind::CtcGreedyDecode,
                   .inputs = {f32({2, 3, 4}), f32({2})},
                   .infer_error = "logit_lengths must be i32[2], got f32[2]"});
}

// The beam search's reference: every labelling of sample i's first steps with the log of its
// summed alignment probabilities, the most probable first (equal ones by their labels), as rows
// [log P, labels..., -1...] of t + 1 values; top_paths rows, missing ones -inf and -1s.
Values ref_ctc_beam(const std::vector<Values>& in, const std::vector<TensorType>& types, const TensorType&,
                    const Attrs& attrs) {
  const Shape& s = types[0].shape;
  const int64_t t = s[1];
  const int64_t c = s[2];
  const int64_t blank = attrs.get_int("blank", 0) == -1 ? c - 1 : attrs.get_int("blank", 0);
  const int64_t top = attrs.get_int("top_paths", 1);
  Values r;
  for (int64_t i = 0; i < s[0]; ++i) {
    const auto steps = static_cast<int64_t>(in[1][static_cast<size_t>(i)]);
    std::map<std::vector<int64_t>, Values> weights;
    std::vector<int64_t> path(static_cast<size_t>(steps), 0);
    for (bool more = true; more;) {
      std::vector<int64_t> collapsed;
      int64_t prev = -1;
      double w = 0;
      for (int64_t k = 0; k < steps; ++k) {
        const int64_t p = path[static_cast<size_t>(k)];
        if (p != blank && p != prev) {
          collapsed.push_back(p);
        }
        prev = p;
        const double* z = &in[0][static_cast<size_t>((i * t + k) * c)];
        const double m = *std::max_element(z, z + c);
        double sum = 0;
        for (int64_t j = 0; j < c; ++j) {
          sum += std::exp(z[j] - m);
        }
        w += z[p] - m - std::log(sum);
      }
      weights[collapsed].push_back(w);
      more = false;
      for (int64_t k = 0; k < steps && !more; ++k) {
        auto& p = path[static_cast<size_t>(k)];
        p = (p + 1) % c;
        more = p != 0;
      }
    }
    std::vector<std::pair<double, std::vector<int64_t>>> ranked;
    for (const auto& [labels, ws] : weights) {
      const double m = *std::max_element(ws.begin(), ws.end());
      double sum = 0;
      for (double w : ws) {
        sum += std::exp(w - m);
      }
      ranked.emplace_back(m + std::log(sum), labels);
    }
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (int64_t p = 0; p < top; ++p) {
      const bool exists = p < static_cast<int64_t>(ranked.size());
      r.push_back(exists ? ranked[static_cast<size_t>(p)].first : -kInf);
      for (int64_t j = 0; j < t; ++j) {
        const bool label = exists && j < static_cast<int64_t>(ranked[static_cast<size_t>(p)].second.size());
        r.push_back(label ? static_cast<double>(ranked[static_cast<size_t>(p)].second[static_cast<size_t>(j)]) : -1.0);
      }
    }
  }
  return r;
}

Attrs beam_attrs(int64_t width, int64_t top, int64_t blank = 0) {
  return Attrs{{"beam_width", width}, {"top_paths", top}, {"blank", blank}};
}

void add_beam_cases(std::vector<OpCase>& cases) {
  // A beam at least as wide as the number of labellings (63 for 5 steps of 2 symbols) keeps every
  // prefix, so the search is exact: the enumeration's 4 best, with steps short of t and none.
  cases.push_back({.name = "ctc_beam_search_decode exact",
                   .op = OpKind::CtcBeamSearchDecode,
                   .inputs = {f32({4, 5, 3}), i32({4})},
                   .attrs = beam_attrs(64, 4),
                   .values = {{}, {5, 5, 3, 0}},
                   .reference = ref_ctc_beam,
                   .lo = -3,
                   .hi = 3,
                   .grad = false});
  cases.push_back({.name = "ctc_beam_search_decode blank -1",
                   .op = OpKind::CtcBeamSearchDecode,
                   .inputs = {f32({2, 4, 4}), i32({2})},
                   .attrs = beam_attrs(128, 5, -1),
                   .values = {{}, {4, 2}},
                   .reference = ref_ctc_beam,
                   .grad = false});
  cases.push_back(
      {.name = "ctc_beam_search_decode blank 1 logits of 1000",
       .op = OpKind::CtcBeamSearchDecode,
       .inputs = {f32({2, 4, 3}), i32({2})},
       .attrs = beam_attrs(32, 3, 1),
       .values = {{1000, -1000, 999.5, 0, 80, -80, -80, 80, 79.7, 79, -1, 80, 1, 2, 3, -3, 2, 1, 0, .5, -.5, 9, 9, 9},
                  {4, 3}},
       .reference = ref_ctc_beam,
       .grad = false});
  // Per step P(blank) = 0.6, P(1) = 0.4: the best path is blank blank (0.36), but the labelling
  // "1" has three alignments (1 1, 1 _, _ 1: 0.64). A beam of 1 keeps only "" after the first step
  // and never sees it; a beam of 2 does, its probability the merged sum.
  const double b = std::log(0.6);
  const double a = std::log(0.4);
  const Values two_steps = {b, a, b, a};
  cases.push_back({.name = "ctc_beam_search_decode beam 1",
                   .op = OpKind::CtcBeamSearchDecode,
                   .inputs = {f32({1, 2, 2}), i32({1})},
                   .attrs = beam_attrs(1, 1),
                   .values = {two_steps, {2}},
                   .expected = {std::log(0.36), -1, -1},
                   .grad = false});
  cases.push_back({.name = "ctc_beam_search_decode beam 2",
                   .op = OpKind::CtcBeamSearchDecode,
                   .inputs = {f32({1, 2, 2}), i32({1})},
                   .attrs = beam_attrs(2, 2),
                   .values = {two_steps, {2}},
                   .expected = {std::log(0.64), 1, -1, std::log(0.36), -1, -1},
                   .grad = false});
  // One step has two labellings and no steps one (the empty one, certain): the rows past them are
  // missing paths. A nan step makes every path nan, ranked by labels: "", "1", "1 1".
  cases.push_back({.name = "ctc_beam_search_decode missing paths",
                   .op = OpKind::CtcBeamSearchDecode,
                   .inputs = {f32({2, 1, 2}), i32({2})},
                   .attrs = beam_attrs(4, 3),
                   .values = {{b, a, 5, 5}, {1, 0}},
                   .expected = {std::log(0.6), -1, std::log(0.4), 1, -kInf, -1, 0, -1, -kInf, -1, -kInf, -1},
                   .grad = false});
  // A -inf logit is a class of probability 0: "1" is no path. The two left tie at 0.5 and rank
  // by their labels, "" before "2".
  cases.push_back({.name = "ctc_beam_search_decode -inf logit and a tie",
                   .op = OpKind::CtcBeamSearchDecode,
                   .inputs = {f32({1, 1, 3}), i32({1})},
                   .attrs = beam_attrs(4, 3),
                   .values = {{0, -kInf, 0}, {1}},
                   .expected = {std::log(0.5), -1, std::log(0.5), 2, -kInf, -1},
                   .grad = false});
  cases.push_back({.name = "ctc_beam_search_decode nan",
                   .op = OpKind::CtcBeamSearchDecode,
                   .inputs = {f32({1, 2, 2}), i32({1})},
                   .attrs = beam_attrs(3, 3),
                   .values = {{b, a, kNan, 0}, {2}},
                   .expected = {kNan, -1, -1, kNan, 1, -1, kNan, 1, 1},
                   .grad = false});
}

void add_beam_error_cases(std::vector<OpCase>& cases) {
  cases.push_back({.name = "ctc_beam_search_decode logit length too long",
                   .op = OpKind::CtcBeamSearchDecode,
                   .inputs = {f32({2, 3, 2}), i32({2})},
                   .values = {{}, {3, 4}},
                   .run_error = "logit_lengths[1] = 4 out of range [0, 3]"});
  cases.push_back({.name = "ctc_beam_search_decode negative logit length",
                   .op = OpKind::CtcBeamSearchDecode,
                   .inputs = {f32({2, 3, 2}), i32({2})},
                   .values = {{}, {-1, 3}},
                   .run_error = "logit_lengths[0] = -1 out of range [0, 3]"});
  const std::vector<std::tuple<std::string, std::vector<TensorType>, Attrs, std::string>> types = {
      {"lengths dtype", {f32({2, 3, 4}), f32({2})}, {}, "logit_lengths must be i32[2], got f32[2]"},
      {"logits rank 2", {f32({2, 4}), i32({2})}, {}, "logits must be f32[batch, steps, classes]"},
      {"top_paths over beam_width",
       {f32({2, 3, 4}), i32({2})},
       beam_attrs(2, 3),
       "argument 'top_paths' must be at most beam_width = 2, got 3"},
      {"beam_width 0", {f32({2, 3, 4}), i32({2})}, beam_attrs(0, 1), "argument 'beam_width' must be at least 1"},
      {"blank too large",
       {f32({2, 3, 4}), i32({2})},
       beam_attrs(2, 1, 4),
       "argument 'blank' must be a class index below 4, or -1 for the last class, got 4"},
      {"blank -2", {f32({2, 3, 4}), i32({2})}, beam_attrs(2, 1, -2), "argument 'blank' must be at least -1"},
  };
  for (const auto& [what, inputs, attrs, message] : types) {
    cases.push_back({.name = "ctc_beam_search_decode " + what,
                     .op = OpKind::CtcBeamSearchDecode,
                     .inputs = inputs,
                     .attrs = attrs,
                     .infer_error = message});
  }
}

}  // namespace

void add_ctc_cases(std::vector<OpCase>& cases) {
  add_loss_cases(cases);
  add_loss_error_cases(cases);
  add_grad_cases(cases);
  add_decode_cases(cases);
  add_beam_cases(cases);
  add_beam_error_cases(cases);
}

}  // namespace iputrain::test
