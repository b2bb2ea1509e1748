// Shared by ctc_loss, ctc_loss_grad and ctc_greedy_decode: the shape rule, the per-sample checks of
// the lengths and labels (located data errors), and the log-space forward (alpha) and backward
// (beta) recursions of CTC (Graves et al. 2006) over the label sequence with blanks interleaved.
#pragma once

#include <cstdint>
#include <limits>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

inline constexpr double kCtcNegInf = -std::numeric_limits<double>::infinity();

//! The sizes of a CTC op's operands: logits [b, t, c], labels [b, l].
struct CtcDims {
  int64_t b = 0;
  int64_t t = 0;
  int64_t c = 0;
  int64_t l = 0;
};

//! Checks logits f32[b, t, c] (c >= 1) and attribute blank in [0, c) or -1; throws OpError otherwise.
CtcDims check_ctc_logits(const TensorType& logits, const Attrs& attrs);

//! The blank class of `c`: attribute blank, where -1 names the last class (the seed's default
//! blank_index = -1).
inline int32_t ctc_blank(const Attrs& attrs, int64_t c) {
  const int64_t blank = attrs.get_int("blank", 0);
  return static_cast<int32_t>(blank == -1 ? c - 1 : blank);
}

//! Checks labels i32[b, l] and the lengths i32[b] (logit_lengths, label_lengths) against logits;
//! returns their sizes.
CtcDims check_ctc_inputs(std::span<const TensorType* const> in, const Attrs& attrs);

//! One sample, checked: its logits [t, c], its first `labels` entries, its step and label counts.
struct CtcSample {
  const float* z = nullptr;
  const int32_t* labels = nullptr;
  int64_t steps = 0;  //!< logit_lengths[i]: the steps that count
  int64_t len = 0;    //!< label_lengths[i]: the labels that count
  int32_t blank = 0;

  //! Symbol s of the extended sequence: blanks at even s, label s / 2 at odd s (2 len + 1 of them).
  int32_t ext(int64_t s) const { return s % 2 == 0 ? blank : labels[s / 2]; }
  //! Whether a path may skip from state s - 2 to s (a label unlike the previous label).
  bool skip_to(int64_t s) const { return s % 2 == 1 && s >= 2 && labels[s / 2] != labels[s / 2 - 1]; }
};

//! Sample i of a ctc_loss-like op (inputs logits, labels, logit_lengths, label_lengths). Throws
//! iputrain::Error(Data) located at the node for a length out of range or a label that is out of
//! [0, c) or equal to blank.
CtcSample ctc_sample(const Node& node, std::span<const Tensor> inputs, int64_t i);

//! Checks logit_lengths[i] of ctc_greedy_decode (inputs logits, logit_lengths) and returns it.
int64_t ctc_steps(const Node& node, const Tensor& logit_lengths, int64_t i, int64_t t);

//! log(e^a + e^b + e^c) for log-probabilities (never +inf): -inf when all are, nan when one is.
double log_sum_exp3(double a, double b, double c);

//! lse[k] = log(sum_j exp(z[k, j])) over each of the sample's steps, stable for large logits.
void ctc_log_normalizers(const CtcSample& s, int64_t c, double* lse);

//! The forward variables: alpha[t][s] = log P(the first t + 1 steps emit the extended prefix and
//! end in state s), for t < steps. With `keep` every row is written (alpha holds steps * (2 len +
//! 1) doubles), otherwise two alternating rows (alpha holds 2 (2 len + 1)). Returns log P(labels),
//! -inf when no alignment fits (0 for no steps and no labels).
double ctc_alpha(const CtcSample& s, int64_t c, const double* lse, double* alpha, bool keep);

//! dz[steps, c] (row stride c) = scale * (softmax(z) - posterior of each class) from the rows of
//! alpha (kept) and log P = `log_p` (finite); `scratch` holds 2 (2 len + 1) + c doubles.
void ctc_gradient(const CtcSample& s, int64_t c, const double* lse, const double* alpha, double log_p, double scale,
                  double* scratch, float* dz);

}  // namespace iputrain::ir
