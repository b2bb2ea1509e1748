#include "core/ops/reduce_util.hpp"
#include "core/parallel.hpp"

#include <fmt/format.h>
#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <limits>
#include <type_traits>

namespace iputrain::ir {

const std::vector<int64_t>& ints_attr(const Attrs& attrs, std::string_view key) {
  static const std::vector<int64_t> empty;
  const AttrValue* v = attrs.find(key);
  if (v == nullptr) {
    return empty;
  }
  if (const auto* p = std::get_if<std::vector<int64_t>>(v)) {
    return *p;
  }
  throw OpError{fmt::format("attribute '{}' must be a list of integers", key), ""};
}

std::array<bool, kMaxRank> reduced_dims(const std::vector<int64_t>& axes, int64_t rank) {
  std::array<bool, kMaxRank> mask{};
  if (axes.empty()) {
    for (int64_t d = 0; d < rank; ++d) {
      mask[static_cast<size_t>(d)] = true;
    }
    return mask;
  }
  for (int64_t a : axes) {
    auto d = normalize_axis(a, rank);
    if (!d) {
      throw OpError{fmt::format("axis {} is out of range for rank {}", a, rank),
                    fmt::format("axes must lie in [{}, {})", -rank, rank)};
    }
    if (mask[static_cast<size_t>(*d)]) {
      throw OpError{fmt::format("axis {} is listed twice", a), ""};
    }
    mask[static_cast<size_t>(*d)] = true;
  }
  return mask;
}

TensorType infer_reduce(const TensorType& in, const Attrs& attrs) {
  check_rank(in);
  const auto mask = reduced_dims(ints_attr(attrs, "axes"), in.rank());
  const int64_t keepdims = attrs.get_int("keepdims", 0);
  if (keepdims != 0 && keepdims != 1) {
    throw OpError{fmt::format("keepdims must be 0 or 1, got {}", keepdims), ""};
  }
  TensorType out{in.dtype, {}};
  for (size_t d = 0; d < in.shape.size(); ++d) {
    if (!mask[d]) {
      out.shape.push_back(in.shape[d]);
    } else if (keepdims != 0) {
      out.shape.push_back(1);
    }
  }
  return out;
}

int64_t reduce_count(const TensorType& in, const Attrs& attrs) {
  const auto mask = reduced_dims(ints_attr(attrs, "axes"), in.rank());
  int64_t count = 1;
  for (size_t d = 0; d < in.shape.size(); ++d) {
    if (mask[d]) {
      count *= in.shape[d];
    }
  }
  return count;
}

namespace {

// Dimensions of size 1 are dropped and neighbours with the same reduced flag merged, so every
// reduction becomes one of a few loop shapes ([R], [R, K], [K, R], [K, R, K]) or the strided walk.
struct Merged {
  std::array<int64_t, kMaxRank> size{};
  std::array<bool, kMaxRank> reduced{};
  size_t rank = 0;
};

Merged merge_dims(const Shape& shape, const std::array<bool, kMaxRank>& mask) {
  Merged m;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) {
      continue;
    }
    if (m.rank > 0 && m.reduced[m.rank - 1] == mask[d]) {
      m.size[m.rank - 1] *= shape[d];
    } else {
      m.size[m.rank] = shape[d];
      m.reduced[m.rank] = mask[d];
      ++m.rank;
    }
  }
  return m;
}

// out[o, k] = fold_r in[o, r, k]: the row loop is innermost over k so it vectorises.
// Split over blocks of output columns on the shared arena: each output still folds its r inputs
// in order, so the bits do not depend on the split.
template <typename T, typename Fold>
void fold_middle(const T* in, T* out, int64_t outer, int64_t r, int64_t k, Fold fold) {
  constexpr int64_t kColumns = 512;
  const int64_t col_blocks = (k + kColumns - 1) / kColumns;
  par::for_blocks(outer * col_blocks, 1, outer * r * k, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t o = b / col_blocks;
      const int64_t j0 = (b % col_blocks) * kColumns;
      const int64_t j1 = std::min(k, j0 + kColumns);
      const T* src = in + o * r * k;
      T* dst = out + o * k;
      for (int64_t j = j0; j < j1; ++j) {
        dst[j] = src[j];
      }
      for (int64_t i = 1; i < r; ++i) {
        const T* row = src + i * k;
        for (int64_t j = j0; j < j1; ++j) {
          dst[j] = fold(dst[j], row[j]);
        }
      }
    }
  });
}

// fold_middle for an f32 sum: each column summed in double, rounded once (as NumPy's pairwise and
// PyTorch's cascaded sums keep the error near one rounding; a running f32 sum of the 3136 squares
// of a batch norm's variance drifts by up to n * 2^-24, 2e-4). The accumulators are on the stack.
void sum_middle(const float* in, float* out, int64_t outer, int64_t r, int64_t k) {
  constexpr int64_t kColumns = 512;
  const int64_t col_blocks = (k + kColumns - 1) / kColumns;
  par::for_blocks(outer * col_blocks, 1, outer * r * k, [&](int64_t b0, int64_t b1) {
    std::array<double, kColumns> acc;
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t o = b / col_blocks;
      const int64_t j0 = (b % col_blocks) * kColumns;
      const int64_t w = std::min(k, j0 + kColumns) - j0;
      const float* src = in + o * r * k + j0;
      std::fill_n(acc.begin(), w, 0.0);
      for (int64_t i = 0; i < r; ++i) {
        for (int64_t j = 0; j < w; ++j) {
          acc[static_cast<size_t>(j)] += static_cast<double>(src[i * k + j]);
        }
      }
      for (int64_t j = 0; j < w; ++j) {
        out[o * k + j0 + j] = static_cast<float>(acc[static_cast<size_t>(j)]);
      }
    }
  });
}

// The general walk: every input element folded into its output element; `init` seeds each output.
template <typename T, typename Fold>
void fold_strided(const T* in, T* out, const Merged& m, int64_t n_out, T init, Fold fold) {
  // Output strides over the merged input dimensions (0 along reduced ones).
  std::array<int64_t, kMaxRank> so{};
  int64_t stride = 1;
  for (size_t d = m.rank; d-- > 0;) {
    if (!m.reduced[d]) {
      so[d] = stride;
      stride *= m.size[d];
    }
  }
  for (int64_t i = 0; i < n_out; ++i) {
    out[i] = init;
  }
  std::array<int64_t, kMaxRank> idx{};
  int64_t n_in = 1;
  for (size_t d = 0; d < m.rank; ++d) {
    n_in *= m.size[d];
  }
  int64_t io = 0;
  for (int64_t i = 0; i < n_in; ++i) {
    out[io] = fold(out[io], in[i]);
    for (size_t d = m.rank; d-- > 0;) {
      ++idx[d];
      io += so[d];
      if (idx[d] < m.size[d]) {
        break;
      }
      io -= so[d] * m.size[d];
      idx[d] = 0;
    }
  }
}

struct Add {
  template <typename T>
  T operator()(T a, T b) const {
    return a + b;
  }
};

// nan propagates: once an output holds nan it stays nan (a comparison with nan is false).
struct Max {
  template <typename T>
  T operator()(T acc, T v) const {
    return (v > acc || v != v) ? v : acc;
  }
};

}  // namespace

// The accumulator of a sum: double for f32 (one rounding at the end), the type itself for the
// wrapping i32 sums.
template <typename T>
using Wide = std::conditional_t<std::is_same_v<T, float>, double, T>;

template <typename T>
void middle_sum(const T* in, T* out, int64_t outer, int64_t r, int64_t k) {
  if constexpr (std::is_same_v<T, float>) {
    sum_middle(in, out, outer, r, k);
  } else {
    fold_middle(in, out, outer, r, k, Add{});
  }
}

template <typename T>
void reduce_sum(const KernelArgs& args, T scale) {
  const Tensor& x = args.inputs[0];
  const T* in = static_cast<const T*>(x.data);
  T* out = static_cast<T*>(args.output.data);
  const int64_t n_in = x.numel();
  const int64_t n_out = args.output.numel();
  const Merged m = merge_dims(x.shape(), reduced_dims(ints_attr(args.node.attrs, "axes"), x.type->rank()));
  using Vec = Eigen::Array<T, Eigen::Dynamic, 1>;
  using Mat = Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  if (n_in == 0) {
    for (int64_t i = 0; i < n_out; ++i) {
      out[i] = T{0};
    }
  } else if (n_out == n_in) {
    for (int64_t i = 0; i < n_in; ++i) {
      out[i] = in[i];
    }
  } else if (n_out == 1) {
    out[0] = static_cast<T>(Eigen::Map<const Vec>(in, n_in).template cast<Wide<T>>().sum());
  } else if (m.rank == 2 && m.reduced[0]) {
    middle_sum(in, out, 1, m.size[0], m.size[1]);
  } else if (m.rank == 2) {
    // Rows in blocks on the arena: each row's sum is the same Eigen reduction whatever the split.
    const int64_t cols = m.size[1];
    par::for_blocks(m.size[0], std::max<int64_t>(1, 16384 / std::max<int64_t>(cols, 1)), n_in,
                    [&](int64_t r0, int64_t r1) {
                      Eigen::Map<Vec>(out + r0, r1 - r0) = Eigen::Map<const Mat>(in + r0 * cols, r1 - r0, cols)
                                                               .template cast<Wide<T>>()
                                                               .rowwise()
                                                               .sum()
                                                               .template cast<T>();
                    });
  } else if (m.rank == 3 && m.reduced[1]) {
    middle_sum(in, out, m.size[0], m.size[1], m.size[2]);
  } else {
    fold_strided(in, out, m, n_out, T{0}, Add{});
  }
  if (scale != T{1}) {
    for (int64_t i = 0; i < n_out; ++i) {
      out[i] *= scale;
    }
  }
}

template <typename T>
void reduce_max(const KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  const T* in = static_cast<const T*>(x.data);
  T* out = static_cast<T*>(args.output.data);
  const int64_t n_in = x.numel();
  const int64_t n_out = args.output.numel();
  const Merged m = merge_dims(x.shape(), reduced_dims(ints_attr(args.node.attrs, "axes"), x.type->rank()));
  if (n_out == n_in) {
    for (int64_t i = 0; i < n_in; ++i) {
      out[i] = in[i];
    }
  } else if (n_out == 1) {
    T acc = in[0];
    for (int64_t i = 1; i < n_in; ++i) {
      acc = Max{}(acc, in[i]);
    }
    out[0] = acc;
  } else if (m.rank == 2 && m.reduced[0]) {
    fold_middle(in, out, 1, m.size[0], m.size[1], Max{});
  } else if (m.rank == 2) {
    fold_middle(in, out, m.size[0], m.size[1], 1, Max{});
  } else if (m.rank == 3 && m.reduced[1]) {
    fold_middle(in, out, m.size[0], m.size[1], m.size[2], Max{});
  } else {
    fold_strided(in, out, m, n_out, std::numeric_limits<T>::lowest(), Max{});
  }
}

template void reduce_sum<float>(const KernelArgs&, float);
template void reduce_max<float>(const KernelArgs&);
template void reduce_max<int32_t>(const KernelArgs&);
template void reduce_sum<uint32_t>(const KernelArgs&, uint32_t);

ValueId unreduce(Graph& g, ValueId dy, ValueId input, const Attrs& attrs) {
  const TensorType in = g.type(input);
  Shape keep = in.shape;
  const auto mask = reduced_dims(ints_attr(attrs, "axes"), in.rank());
  for (size_t d = 0; d < keep.size(); ++d) {
    if (mask[d]) {
      keep[d] = 1;
    }
  }
  ValueId v = dy;
  if (g.type(v).shape != keep) {
    v = g.add(OpKind::Reshape, {v}, Attrs{{"shape", keep}});
  }
  if (keep != in.shape) {
    v = g.add(OpKind::BroadcastTo, {v}, Attrs{{"shape", in.shape}});
  }
  return v;
}

}  // namespace iputrain::ir
