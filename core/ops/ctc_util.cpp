#include "core/ops/ctc_util.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

namespace iputrain::ir {

namespace {

void require_i32(const TensorType& t, const Shape& shape, std::string_view what, std::string_view hint) {
  if (t.dtype != DType::I32 || t.shape != shape) {
    throw OpError{fmt::format("{} must be i32{}, got {}", what, shape_str(shape), t.str()), std::string(hint)};
  }
}

[[noreturn]] void throw_bad_length(const Node& node, std::string_view what, int64_t i, int32_t v, int64_t max,
                                   std::string_view hint) {
  throw Error(ErrorKind::Data, fmt::format("{}[{}] = {} out of range [0, {}]", what, i, v, max), node.span,
              fmt::format("{} (entry {} of the micro-batch)", hint, i));
}

[[noreturn]] void throw_bad_ctc_label(const Node& node, int64_t i, int64_t j, int32_t v, int64_t c, int32_t blank) {
  if (v == blank) {
    throw Error(ErrorKind::Data, fmt::format("labels[{}, {}] = {} is the blank class", i, j, v), node.span,
                "CTC labels are the symbols between blanks (rows count within the micro-batch); shift them past "
                "`blank` or choose another blank");
  }
  throw Error(ErrorKind::Data, fmt::format("labels[{}, {}] = {} out of range [0, {})", i, j, v, c), node.span,
              "labels must be class indices of the logits' last dimension (rows count within the micro-batch); "
              "check the number of classes");
}

// The logits' step t of the sample, normalised: log softmax(z[t])[k].
inline double log_prob(const CtcSample& s, int64_t c, const double* lse, int64_t t, int32_t k) {
  return static_cast<double>(s.z[t * c + k]) - lse[t];
}

}  // namespace

CtcDims check_ctc_logits(const TensorType& logits, const Attrs& attrs) {
  if (logits.dtype != DType::F32 || logits.rank() != 3 || logits.shape[2] < 1) {
    throw OpError{fmt::format("logits must be f32[batch, steps, classes] with classes >= 1, got {}", logits.str()),
                  "one row of unnormalised scores per step, the blank among the classes"};
  }
  CtcDims d{.b = logits.shape[0], .t = logits.shape[1], .c = logits.shape[2]};
  const int64_t blank = int_attr(attrs, "blank", 0);
  if (blank >= d.c || blank < -1) {
    throw OpError{fmt::format("must be a class index below {}, or -1 for the last class, got {}", d.c, blank),
                  "blank is one of the logits' classes", "blank"};
  }
  return d;
}

CtcDims check_ctc_inputs(std::span<const TensorType* const> in, const Attrs& attrs) {
  CtcDims d = check_ctc_logits(*in[0], attrs);
  const TensorType& labels = *in[1];
  if (labels.dtype != DType::I32 || labels.rank() != 2 || labels.shape[0] != d.b) {
    throw OpError{fmt::format("labels must be i32[{}, max_label_length], got {}", d.b, labels.str()),
                  "one row of label indices per sample, padded to a common length"};
  }
  d.l = labels.shape[1];
  require_i32(*in[2], {d.b}, "logit_lengths", "the number of steps that count, one per sample");
  require_i32(*in[3], {d.b}, "label_lengths", "the number of labels that count, one per sample");
  return d;
}

CtcSample ctc_sample(const Node& node, std::span<const Tensor> inputs, int64_t i) {
  const Shape& ls = inputs[0].shape();
  const int64_t t = ls[1];
  const int64_t c = ls[2];
  const int64_t l = inputs[1].shape()[1];
  CtcSample s;
  s.blank = ctc_blank(node.attrs, c);
  s.z = inputs[0].f32() + i * t * c;
  s.labels = inputs[1].i32() + i * l;
  const int32_t steps = inputs[2].i32()[i];
  if (steps < 0 || steps > t) {
    throw_bad_length(node, "logit_lengths", i, steps, t, "logit_lengths count the steps of each sample's logits");
  }
  const int32_t len = inputs[3].i32()[i];
  if (len < 0 || len > l) {
    throw_bad_length(node, "label_lengths", i, len, l, "label_lengths count the labels of each sample's row");
  }
  for (int64_t j = 0; j < len; ++j) {
    const int32_t v = s.labels[j];
    if (v < 0 || v >= c || v == s.blank) {
      throw_bad_ctc_label(node, i, j, v, c, s.blank);
    }
  }
  s.steps = steps;
  s.len = len;
  return s;
}

int64_t ctc_steps(const Node& node, const Tensor& logit_lengths, int64_t i, int64_t t) {
  const int32_t steps = logit_lengths.i32()[i];
  if (steps < 0 || steps > t) {
    throw_bad_length(node, "logit_lengths", i, steps, t, "logit_lengths count the steps of each sample's logits");
  }
  return steps;
}

double log_sum_exp3(double a, double b, double c) {
  // Log-probabilities are never +inf, so the sum is nan exactly when one of them is.
  const double sum = a + b + c;
  if (std::isnan(sum)) {
    return sum;
  }
  const double m = std::max(a, std::max(b, c));
  if (m == kCtcNegInf) {
    return m;
  }
  return m + std::log(std::exp(a - m) + std::exp(b - m) + std::exp(c - m));
}

void ctc_log_normalizers(const CtcSample& s, int64_t c, double* lse) {
  for (int64_t t = 0; t < s.steps; ++t) {
    const float* z = s.z + t * c;
    double m = z[0];
    for (int64_t k = 1; k < c; ++k) {
      m = z[k] > m ? z[k] : m;
    }
    double sum = 0.0;
    for (int64_t k = 0; k < c; ++k) {
      sum += std::exp(static_cast<double>(z[k]) - m);
    }
    lse[t] = m + std::log(sum);
  }
}

double ctc_alpha(const CtcSample& s, int64_t c, const double* lse, double* alpha, bool keep) {
  const int64_t n = 2 * s.len + 1;
  if (s.steps == 0) {
    return s.len == 0 ? 0.0 : kCtcNegInf;
  }
  double* prev = alpha;
  std::fill(prev, prev + n, kCtcNegInf);
  prev[0] = log_prob(s, c, lse, 0, s.blank);
  if (n > 1) {
    prev[1] = log_prob(s, c, lse, 0, s.ext(1));
  }
  for (int64_t t = 1; t < s.steps; ++t) {
    double* cur = keep ? prev + n : alpha + (t % 2) * n;
    for (int64_t q = 0; q < n; ++q) {
      const double stay = prev[q];
      const double step = q >= 1 ? prev[q - 1] : kCtcNegInf;
      const double skip = s.skip_to(q) ? prev[q - 2] : kCtcNegInf;
      cur[q] = log_prob(s, c, lse, t, s.ext(q)) + log_sum_exp3(stay, step, skip);
    }
    prev = cur;
  }
  return log_sum_exp3(prev[n - 1], n > 1 ? prev[n - 2] : kCtcNegInf, kCtcNegInf);
}

void ctc_gradient(const CtcSample& s, int64_t c, const double* lse, const double* alpha, double log_p, double scale,
                  double* scratch, float* dz) {
  const int64_t n = 2 * s.len + 1;
  double* beta = scratch;
  double* row = scratch + 2 * n;
  // beta_t(q) = log P(steps after t emit the rest of the sequence | state q at step t): emissions
  // after t only, so alpha_t(q) + beta_t(q) - log P is the posterior of state q at step t.
  double* next = beta;
  double* cur = beta + n;
  for (int64_t t = s.steps - 1; t >= 0; --t) {
    if (t == s.steps - 1) {
      std::fill(cur, cur + n, kCtcNegInf);
      cur[n - 1] = 0.0;
      if (n > 1) {
        cur[n - 2] = 0.0;
      }
    } else {
      for (int64_t q = 0; q < n; ++q) {
        const double stay = next[q] + log_prob(s, c, lse, t + 1, s.ext(q));
        const double step = q + 1 < n ? next[q + 1] + log_prob(s, c, lse, t + 1, s.ext(q + 1)) : kCtcNegInf;
        const double skip =
            q + 2 < n && s.skip_to(q + 2) ? next[q + 2] + log_prob(s, c, lse, t + 1, s.ext(q + 2)) : kCtcNegInf;
        cur[q] = log_sum_exp3(stay, step, skip);
      }
    }
    // Softmax minus the classes' posteriors, summed in double over the states, then scaled.
    const double* a = alpha + t * n;
    for (int64_t k = 0; k < c; ++k) {
      row[k] = std::exp(log_prob(s, c, lse, t, static_cast<int32_t>(k)));
    }
    for (int64_t q = 0; q < n; ++q) {
      row[s.ext(q)] -= std::exp(a[q] + cur[q] - log_p);
    }
    for (int64_t k = 0; k < c; ++k) {
      dz[t * c + k] = static_cast<float>(scale * row[k]);
    }
    std::swap(next, cur);
  }
}

}  // namespace iputrain::ir
