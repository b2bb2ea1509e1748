// ctc_beam_search_decode: (logits f32[b, t, c], logit_lengths i32[b]; beam_width, top_paths, blank)
// -> f32[b, top_paths, t + 1], CTC prefix beam search (Graves 2012, Hannun et al. 2014). Each
// prefix (a labelling so far) carries two log-probabilities, of the alignments that end in a blank
// and of those that end in its last label, so that equal prefixes reached along different
// alignments add up instead of competing. Row p of a sample is its p-th best labelling: element 0
// its log-probability (every alignment of the counted steps that collapses to it), elements 1..t
// its labels left-aligned, then -1; a row without a labelling holds -inf and -1s. Not
// differentiable.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "core/ops/ctc_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_ctc_beam_search_decode {

struct Dims {
  int64_t t = 0;
  int64_t c = 0;
  int64_t w = 0;  // beam width
};

Dims dims_of(const Shape& logits, const Attrs& attrs) {
  return {.t = logits[1], .c = logits[2], .w = attrs.get_int("beam_width", 100)};
}

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const CtcDims d = check_ctc_logits(*in[0], attrs);
  if (in[1]->dtype != DType::I32 || in[1]->shape != Shape{d.b}) {
    throw OpError{fmt::format("logit_lengths must be i32[{}], got {}", d.b, in[1]->str()),
                  "the number of steps that count, one per sample"};
  }
  const int64_t width = int_attr(attrs, "beam_width", 100);
  const int64_t paths = int_attr(attrs, "top_paths", 1);
  if (paths > width) {
    throw OpError{fmt::format("must be at most beam_width = {}, got {}", width, paths),
                  "the search keeps beam_width prefixes, so it cannot return more", "top_paths"};
  }
  return TensorType{DType::F32, {d.b, paths, d.t + 1}};
}

// The workspace, carved once per kernel: the step's log-probabilities, two generations of beams
// (labels, lengths, the two log-probabilities) and the candidates of one step. Candidate p * c + k
// extends beam p by class k; the slot of the blank (k == blank) stands for beam p unchanged, which
// both a blank and a repeat of its last label lead to.
struct Beams {
  double* pb = nullptr;   // log P(the prefix, ending in a blank)
  double* pnb = nullptr;  // log P(the prefix, ending in its last label)
  int32_t* len = nullptr;
  int32_t* labels = nullptr;  // [w, t]
};

struct Scratch {
  double* logp = nullptr;  // [c]
  Beams beams[2];
  double* cand_pb = nullptr;     // [w c]
  double* cand_pnb = nullptr;    // [w c]
  double* cand_total = nullptr;  // [w c]
  int32_t* order = nullptr;      // [w c]
};

size_t scratch_bytes(const Dims& d) {
  const auto wc = static_cast<size_t>(d.w * d.c);
  const auto w = static_cast<size_t>(d.w);
  const size_t doubles = static_cast<size_t>(d.c) + 4 * w + 3 * wc;
  const size_t ints = 2 * w + 2 * w * static_cast<size_t>(d.t) + wc;
  return doubles * sizeof(double) + ints * sizeof(int32_t);
}

Scratch carve(void* workspace, const Dims& d) {
  const int64_t wc = d.w * d.c;
  auto* dp = static_cast<double*>(workspace);
  Scratch s;
  s.logp = dp;
  dp += d.c;
  for (Beams& b : s.beams) {
    b.pb = dp;
    b.pnb = dp + d.w;
    dp += 2 * d.w;
  }
  s.cand_pb = dp;
  s.cand_pnb = dp + wc;
  s.cand_total = dp + 2 * wc;
  auto* ip = reinterpret_cast<int32_t*>(dp + 3 * wc);
  for (Beams& b : s.beams) {
    b.len = ip;
    b.labels = ip + d.w;
    ip += d.w + d.w * d.t;
  }
  s.order = ip;
  return s;
}

double lse2(double a, double b) { return log_sum_exp3(a, b, kCtcNegInf); }

// One step's log-probabilities, log_softmax(z) in double (ctc_loss's normaliser: a nan, a +inf or
// a row of -inf make them all nan).
void step_log_probs(const float* z, int64_t c, double* logp) {
  double m = z[0];
  for (int64_t k = 1; k < c; ++k) {
    m = z[k] > m ? z[k] : m;
  }
  double sum = 0.0;
  for (int64_t k = 0; k < c; ++k) {
    sum += std::exp(static_cast<double>(z[k]) - m);
  }
  const double lse = m + std::log(sum);
  for (int64_t k = 0; k < c; ++k) {
    logp[k] = static_cast<double>(z[k]) - lse;
  }
}

// The search state of one sample: the beams of the current generation and the candidate slots.
struct Search {
  const Scratch& s;
  Dims d;
  int32_t blank = 0;
  int cur = 0;    // which of s.beams holds the live beams
  int64_t n = 0;  // live beams

  const Beams& live() const { return s.beams[cur]; }

  // Candidate q's labelling: its beam's labels, then its class unless it is the blank slot.
  int64_t cand_len(int64_t q) const {
    const int64_t p = q / d.c;
    return live().len[p] + (q % d.c == blank ? 0 : 1);
  }
  int32_t cand_label(int64_t q, int64_t j) const {
    const int64_t p = q / d.c;
    return j < live().len[p] ? live().labels[p * d.t + j] : static_cast<int32_t>(q % d.c);
  }

  // Better first: the larger log-probability, nan below every number; equal ones by their labels,
  // lexicographically (a prefix before its extensions), so the order never depends on the sort.
  bool before(int64_t a, int64_t b) const {
    const double ta = s.cand_total[a];
    const double tb = s.cand_total[b];
    if (std::isnan(ta) != std::isnan(tb)) {
      return std::isnan(tb);
    }
    if (ta != tb && !std::isnan(ta)) {
      return ta > tb;
    }
    const int64_t la = cand_len(a);
    const int64_t lb = cand_len(b);
    for (int64_t j = 0; j < std::min(la, lb); ++j) {
      const int32_t x = cand_label(a, j);
      const int32_t y = cand_label(b, j);
      if (x != y) {
        return x < y;
      }
    }
    return la < lb;
  }

  // Whether beam q's labels followed by `k` are exactly beam p's labels.
  bool extends_to(int64_t q, int32_t k, int64_t p) const {
    const Beams& b = live();
    const int32_t lp = b.len[p];
    return b.len[q] + 1 == lp && b.labels[p * d.t + lp - 1] == k &&
           std::equal(b.labels + q * d.t, b.labels + q * d.t + lp - 1, b.labels + p * d.t);
  }

  void expand(const double* logp);
  void select();
};

// Every beam by every class. Beams are distinct prefixes, so the only candidates that name the
// same labelling are beam p unchanged and beam q extended by p's last label, where q is p without
// it; those are merged into p's slot by adding their probabilities.
void Search::expand(const double* logp) {
  const Beams& b = live();
  for (int64_t p = 0; p < n; ++p) {
    const double total = lse2(b.pb[p], b.pnb[p]);
    const int32_t last = b.len[p] > 0 ? b.labels[p * d.t + b.len[p] - 1] : -1;
    for (int32_t k = 0; k < d.c; ++k) {
      const int64_t q = p * d.c + k;
      if (k == blank) {
        // A blank keeps the prefix; so does its last label again without a blank between.
        s.cand_pb[q] = total + logp[blank];
        s.cand_pnb[q] = last >= 0 ? b.pnb[p] + logp[last] : kCtcNegInf;
      } else {
        // A new label; after its own copy it only counts when a blank separated them.
        s.cand_pb[q] = kCtcNegInf;
        s.cand_pnb[q] = (k == last ? b.pb[p] : total) + logp[k];
      }
    }
  }
  for (int64_t p = 0; p < n; ++p) {
    if (b.len[p] == 0) {
      continue;
    }
    const int32_t last = b.labels[p * d.t + b.len[p] - 1];
    for (int64_t q = 0; q < n; ++q) {
      if (extends_to(q, last, p)) {
        const int64_t from = q * d.c + last;
        const int64_t into = p * d.c + blank;
        s.cand_pnb[into] = lse2(s.cand_pnb[into], s.cand_pnb[from]);
        s.cand_pnb[from] = kCtcNegInf;
        break;
      }
    }
  }
}

// Keeps the beam_width best candidates (a labelling of probability 0 is no candidate) as the next
// generation, best first.
void Search::select() {
  int64_t m = 0;
  for (int64_t q = 0; q < n * d.c; ++q) {
    s.cand_total[q] = lse2(s.cand_pb[q], s.cand_pnb[q]);
    if (s.cand_total[q] != kCtcNegInf) {
      s.order[m++] = static_cast<int32_t>(q);
    }
  }
  const int64_t keep = std::min(m, d.w);
  std::partial_sort(s.order, s.order + keep, s.order + m, [this](int32_t a, int32_t b) { return before(a, b); });
  const Beams& from = live();
  const Beams& to = s.beams[1 - cur];
  for (int64_t i = 0; i < keep; ++i) {
    const int64_t q = s.order[i];
    const int64_t p = q / d.c;
    const auto k = static_cast<int32_t>(q % d.c);
    std::memcpy(to.labels + i * d.t, from.labels + p * d.t, static_cast<size_t>(from.len[p]) * sizeof(int32_t));
    to.len[i] = from.len[p];
    if (k != blank) {
      to.labels[i * d.t + to.len[i]++] = k;
    }
    to.pb[i] = s.cand_pb[q];
    to.pnb[i] = s.cand_pnb[q];
  }
  cur = 1 - cur;
  n = keep;
}

void forward(const KernelArgs& args) {
  const Shape& shape = args.inputs[0].shape();
  const Dims d = dims_of(shape, args.node.attrs);
  const int64_t paths = args.node.attrs.get_int("top_paths", 1);
  const Scratch s = carve(args.workspace, d);
  // Sample by sample, in order, in one workspace: the result does not depend on the threads.
  for (int64_t i = 0; i < shape[0]; ++i) {
    const int64_t steps = ctc_steps(args.node, args.inputs[1], i, d.t);
    Search search{.s = s, .d = d, .blank = ctc_blank(args.node.attrs, d.c)};
    // Before any step: the empty labelling, certain, "ending in a blank".
    s.beams[0].pb[0] = 0.0;
    s.beams[0].pnb[0] = kCtcNegInf;
    s.beams[0].len[0] = 0;
    search.n = 1;
    for (int64_t k = 0; k < steps; ++k) {
      step_log_probs(args.inputs[0].f32() + (i * d.t + k) * d.c, d.c, s.logp);
      search.expand(s.logp);
      search.select();
    }
    const Beams& b = search.live();
    float* out = args.output.f32() + i * paths * (d.t + 1);
    for (int64_t p = 0; p < paths; ++p) {
      float* row = out + p * (d.t + 1);
      const int32_t len = p < search.n ? b.len[p] : 0;
      row[0] = p < search.n ? static_cast<float>(lse2(b.pb[p], b.pnb[p])) : -std::numeric_limits<float>::infinity();
      for (int64_t j = 0; j < d.t; ++j) {
        row[j + 1] = j < len ? static_cast<float>(b.labels[p * d.t + j]) : -1.0f;
      }
    }
  }
}

// log_softmax per logit, then per step, beam and class a log-sum-exp or two and, for the choice of
// the next beams, a partial sort of the candidates (about log2(beam_width) compares each).
Cost cost(const Graph& g, const Node& node) {
  Cost c = elementwise_cost(g, node, 0.0);
  const Shape& s = g.type(node.inputs[0]).shape;
  const auto w = static_cast<double>(node.attrs.get_int("beam_width", 100));
  const auto cells = static_cast<double>(s[0] * s[1] * s[2]);
  c.flops = 10.0 * cells + (30.0 + std::log2(w + 1.0)) * w * cells;
  return c;
}

size_t workspace(const Graph& g, const Node& node) {
  return scratch_bytes(dims_of(g.type(node.inputs[0]).shape, node.attrs));
}

constexpr std::string_view kInputs[] = {"logits", "logit_lengths"};
constexpr AttrSpec kAttrs[] = {{.name = "beam_width", .type = AttrType::Int, .number = 100, .min = 1},
                               {.name = "top_paths", .type = AttrType::Int, .number = 1, .min = 1},
                               {.name = "blank", .type = AttrType::Int, .number = 0, .min = -1}};

}  // namespace impl_ctc_beam_search_decode
}  // namespace

const OpDef kCtcBeamSearchDecodeOp{
    .kind = OpKind::CtcBeamSearchDecode,
    .name = "ctc_beam_search_decode",
    .arity = 2,
    .infer = impl_ctc_beam_search_decode::infer,
    .forward = impl_ctc_beam_search_decode::forward,
    .backward = nullptr,
    .cost = impl_ctc_beam_search_decode::cost,
    .doc =
        "ctc_beam_search_decode(logits f32[b, t, c], logit_lengths i32[b]; beam_width = 100, top_paths = 1, "
        "blank = 0) -> f32[b, top_paths, t + 1]: CTC prefix beam search, log_softmax applied inside. Row p "
        "of a sample is its p-th most probable labelling: [0] its natural log-probability (the sum over its "
        "alignments), [1..t] its labels left-aligned then -1; a missing path is -inf and -1s. blank = -1 is "
        "the last class.",
    .workspace = impl_ctc_beam_search_decode::workspace,
    .inputs = impl_ctc_beam_search_decode::kInputs,
    .attrs = impl_ctc_beam_search_decode::kAttrs,
    .edges =
        "log space in double: logits of ±1000 give finite log-probabilities. A nan or +inf logit in a counted "
        "step (or a step of all -inf) makes that step's log-probabilities nan, so every path's from there on; "
        "nan ranks below every number and equal log-probabilities rank by their labels, lexicographically. A "
        "-inf logit among finite ones is a class of probability 0: a labelling only it reaches is no path. "
        "No steps give the empty labelling with log-probability 0. A length outside [0, t] stops the run with "
        "a located data error; steps past the lengths are never read.",
};

}  // namespace iputrain::ir
