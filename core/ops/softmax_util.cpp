#include "core/ops/softmax_util.hpp"
#include "core/parallel.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

// GCC 12 reports a false -Wmaybe-uninitialized inside Eigen's AVX-512 exp (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Core>

namespace iputrain::ir {

void check_logits_labels(const TensorType& logits, const TensorType& labels) {
  if (logits.dtype != DType::F32 || logits.rank() < 1 || logits.shape.back() < 1) {
    throw OpError{fmt::format("logits must be f32[..., classes] with classes >= 1, got {}", logits.str()),
                  ""};
  }
  const Shape expect(logits.shape.begin(), logits.shape.end() - 1);
  if (labels.dtype != DType::I32 || labels.shape != expect) {
    throw OpError{fmt::format("labels must be i32{} for logits {}, got {}", shape_str(expect), logits.str(),
                              labels.str()),
                  "labels hold one class index per row of logits"};
  }
}

void throw_bad_label(const Node& node, int32_t label, int64_t c) {
  throw Error(ErrorKind::Data, fmt::format("label {} out of range [0, {})", label, c), node.span,
              "labels must be class indices; check the dataset's label field and the number of classes");
}

AxisDims axis_dims(const Shape& shape, const Attrs& attrs) {
  const auto rank = static_cast<int64_t>(shape.size());
  const auto axis = static_cast<size_t>(*normalize_axis(attrs.get_int("axis", -1), rank));
  AxisDims d;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i < axis) {
      d.outer *= shape[i];
    } else if (i == axis) {
      d.n = shape[i];
    } else {
      d.inner *= shape[i];
    }
  }
  return d;
}

TensorType infer_softmax(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  require_f32(x, "x");
  for (const TensorType* t : in.subspan(1)) {
    if (*t != x) {
      throw OpError{fmt::format("operands must be f32 of one shape, got {} and {}", x.str(), t->str()), ""};
    }
  }
  const int64_t axis = int_attr(attrs, "axis", -1);
  if (!normalize_axis(axis, x.rank())) {
    throw OpError{fmt::format("axis {} is out of range for {}", axis, x.str()),
                  x.rank() == 0 ? std::string("softmax needs at least one dimension")
                                : fmt::format("axis must lie in [{}, {})", -x.rank(), x.rank())};
  }
  return x;
}

namespace {

using ConstRow = Eigen::Map<const Eigen::ArrayXf>;
using Row = Eigen::Map<Eigen::ArrayXf>;

// Along a non-last axis the values of one softmax are `inner` apart; columns are processed in
// chunks whose running maxima and sums live on the stack, so the loops stay contiguous over columns.
constexpr int64_t kChunk = 256;

}  // namespace

namespace {

// One softmax per (outer) row group, rows [o0, o1).
void softmax_rows(const float* x, float* y, const AxisDims& d, bool log, int64_t o0, int64_t o1) {
  if (d.inner == 1) {
    for (int64_t o = o0; o < o1; ++o) {
      ConstRow xr(x + o * d.n, d.n);
      Row yr(y + o * d.n, d.n);
      // Eigen's vectorised maxCoeff: the scalar row_max is a serial dependency chain, which costs
      // as much as the exponentials on long rows (its GCC warning is silenced at the top).
      const float m = xr.maxCoeff();
      yr = (xr - m).exp();
      const float s = yr.sum();
      if (log) {
        // (x - m) first: m + log(s) would round at the magnitude of m.
        yr = (xr - m) - std::log(s);
      } else {
        yr *= 1.0f / s;
      }
    }
    return;
  }
  std::array<float, kChunk> m{};
  std::array<float, kChunk> s{};
  for (int64_t o = o0; o < o1; ++o) {
    const float* xb = x + o * d.n * d.inner;
    float* yb = y + o * d.n * d.inner;
    for (int64_t c0 = 0; c0 < d.inner; c0 += kChunk) {
      const int64_t w = std::min(kChunk, d.inner - c0);
      for (int64_t j = 0; j < w; ++j) {
        m[j] = xb[c0 + j];
        s[j] = 0.0f;
      }
      for (int64_t i = 1; i < d.n; ++i) {
        for (int64_t j = 0; j < w; ++j) {
          m[j] = std::max(m[j], xb[i * d.inner + c0 + j]);
        }
      }
      for (int64_t i = 0; i < d.n; ++i) {
        for (int64_t j = 0; j < w; ++j) {
          const float e = std::exp(xb[i * d.inner + c0 + j] - m[j]);
          yb[i * d.inner + c0 + j] = e;
          s[j] += e;
        }
      }
      for (int64_t j = 0; j < w; ++j) {
        s[j] = log ? std::log(s[j]) : 1.0f / s[j];
      }
      for (int64_t i = 0; i < d.n; ++i) {
        for (int64_t j = 0; j < w; ++j) {
          float& v = yb[i * d.inner + c0 + j];
          v = log ? (xb[i * d.inner + c0 + j] - m[j]) - s[j] : v * s[j];
        }
      }
    }
  }
}

void softmax_grad_rows(const float* y, const float* dy, float* dx, const AxisDims& d, bool log, int64_t o0,
                       int64_t o1) {
  if (d.inner == 1) {
    for (int64_t o = o0; o < o1; ++o) {
      ConstRow yr(y + o * d.n, d.n);
      ConstRow gr(dy + o * d.n, d.n);
      Row xr(dx + o * d.n, d.n);
      if (log) {
        xr = gr - yr.exp() * gr.sum();
      } else {
        xr = yr * (gr - (gr * yr).sum());
      }
    }
    return;
  }
  std::array<float, kChunk> s{};
  for (int64_t o = o0; o < o1; ++o) {
    const int64_t base = o * d.n * d.inner;
    for (int64_t c0 = 0; c0 < d.inner; c0 += kChunk) {
      const int64_t w = std::min(kChunk, d.inner - c0);
      for (int64_t j = 0; j < w; ++j) {
        s[j] = 0.0f;
      }
      for (int64_t i = 0; i < d.n; ++i) {
        const int64_t r = base + i * d.inner + c0;
        for (int64_t j = 0; j < w; ++j) {
          s[j] += log ? dy[r + j] : dy[r + j] * y[r + j];
        }
      }
      for (int64_t i = 0; i < d.n; ++i) {
        const int64_t r = base + i * d.inner + c0;
        for (int64_t j = 0; j < w; ++j) {
          dx[r + j] = log ? dy[r + j] - std::exp(y[r + j]) * s[j] : y[r + j] * (dy[r + j] - s[j]);
        }
      }
    }
  }
}

// Softmaxes are independent: split by rows (each row's reductions stay whole and in order).
void softmax_kernel(const float* x, float* y, const AxisDims& d, bool log) {
  if (d.n == 0) {
    return;  // an empty axis: no element to write (the row loops read each line's first element)
  }
  const int64_t per_row = d.n * d.inner;
  par::for_blocks(d.outer, std::max<int64_t>(1, 8192 / std::max<int64_t>(per_row, 1)), d.outer * per_row * 8,
                  [&](int64_t o0, int64_t o1) { softmax_rows(x, y, d, log, o0, o1); });
}

void softmax_grad_kernel(const float* y, const float* dy, float* dx, const AxisDims& d, bool log) {
  if (d.n == 0) {
    return;
  }
  const int64_t per_row = d.n * d.inner;
  par::for_blocks(d.outer, std::max<int64_t>(1, 8192 / std::max<int64_t>(per_row, 1)), d.outer * per_row * 4,
                  [&](int64_t o0, int64_t o1) { softmax_grad_rows(y, dy, dx, d, log, o0, o1); });
}

}  // namespace

template <bool kLog>
void softmax_forward(const KernelArgs& args) {
  softmax_kernel(args.inputs[0].f32(), args.output.f32(), axis_dims(args.output.shape(), args.node.attrs), kLog);
}

template <bool kLog>
std::vector<ValueId> softmax_backward(Graph& g, ValueId id, ValueId dy) {
  const Attrs attrs{{"axis", g.node(id).attrs.get_int("axis", -1)}};
  return {g.add(kLog ? OpKind::LogSoftmaxGrad : OpKind::SoftmaxGrad, {id, dy}, attrs)};
}

template <bool kLog>
void softmax_grad_forward(const KernelArgs& args) {
  softmax_grad_kernel(args.inputs[0].f32(), args.inputs[1].f32(), args.output.f32(),
                      axis_dims(args.output.shape(), args.node.attrs), kLog);
}

template void softmax_forward<false>(const KernelArgs&);
template void softmax_forward<true>(const KernelArgs&);
template std::vector<ValueId> softmax_backward<false>(Graph&, ValueId, ValueId);
template std::vector<ValueId> softmax_backward<true>(Graph&, ValueId, ValueId);
template void softmax_grad_forward<false>(const KernelArgs&);
template void softmax_grad_forward<true>(const KernelArgs&);

}  // namespace iputrain::ir
