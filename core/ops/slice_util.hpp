// Shared by slice and slice_grad: the normalised slice of a shape and a walk over its elements.
#pragma once

#include "core/ops/reduce_util.hpp"

namespace iputrain::ir {

//! One strided window per dimension: elements begin[d], begin[d] + stride[d], … (size[d] of them).
struct SliceSpec {
  std::array<int64_t, kMaxRank> begin{};
  std::array<int64_t, kMaxRank> stride{};
  std::array<int64_t, kMaxRank> size{};
  size_t rank = 0;
};

//! The slice of a tensor of shape `in` given by attributes begin, end and strides (lists of at most
//! rank entries; missing trailing entries take the whole dimension). Negative begin/end count from
//! the end; out-of-range values are clamped as in NumPy ([0, dim], or [-1, dim - 1] for a negative
//! stride, which walks backwards from begin; -dim - 1 is past the start). Throws
//! OpError on a malformed attribute. Never allocates.
SliceSpec slice_spec(const Shape& in, const Attrs& attrs);

//! The sliced shape.
Shape slice_shape(const SliceSpec& s);

//! Calls f(i, j) for every element of the slice: i its flat index in the slice, j the flat index
//! of the element in the full tensor of shape `in`.
template <typename F>
void for_each_sliced(const SliceSpec& s, const Shape& in, F f) {
  int64_t n = 1;
  for (size_t d = 0; d < s.rank; ++d) {
    n *= s.size[d];
  }
  if (n == 0) {
    return;
  }
  if (s.rank == 0) {
    f(0, 0);
    return;
  }
  std::array<int64_t, kMaxRank> step{};  // flat distance between neighbours of the slice
  int64_t stride = 1;
  int64_t j = 0;
  for (size_t d = s.rank; d-- > 0;) {
    step[d] = stride * s.stride[d];
    j += stride * s.begin[d];
    stride *= in[d];
  }
  const size_t last = s.rank - 1;
  const int64_t inner = s.size[last];
  std::array<int64_t, kMaxRank> idx{};
  for (int64_t i = 0; i < n; i += inner) {
    for (int64_t k = 0; k < inner; ++k) {
      f(i + k, j + k * step[last]);
    }
    for (size_t d = last; d-- > 0;) {
      ++idx[d];
      j += step[d];
      if (idx[d] < s.size[d]) {
        break;
      }
      j -= step[d] * s.size[d];
      idx[d] = 0;
    }
  }
}

}  // namespace iputrain::ir
