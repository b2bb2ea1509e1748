// What dynamic_slice and dynamic_update_slice share: a window of `sizes` at offsets read from an i32
// tensor at run time, each clamped into [0, dim - size] as XLA's dynamic slices clamp (so a window
// never leaves the tensor and no offset is an error), and a walk over its rows.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>

#include <fmt/format.h>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

//! Checks the offsets operand of a window of `rank` dimensions: i32[rank].
inline void check_offsets(const TensorType& offsets, int64_t rank, std::string_view op) {
  if (offsets.dtype != DType::I32 || offsets.shape != Shape{rank}) {
    throw OpError{fmt::format("{}: offsets must be i32[{}] (one per dimension), got {}", op, rank, offsets.str()),
                  "give the window's first index along every dimension"};
  }
}

//! The window's clamped start along each dimension (fixed arrays: kernels allocate nothing).
inline std::array<int64_t, kMaxRank> window_start(const Tensor& offsets, const Shape& dims, const Shape& sizes) {
  std::array<int64_t, kMaxRank> start{};
  for (size_t d = 0; d < dims.size(); ++d) {
    start[d] = std::clamp<int64_t>(offsets.i32()[d], 0, dims[d] - sizes[d]);
  }
  return start;
}

//! Calls f(window_row, tensor_row) with element offsets of each row of the window (its last
//! dimension, sizes.back() elements) in the window and in the tensor of `dims`.
template <typename F>
void for_each_window_row(const Shape& dims, const Shape& sizes, const std::array<int64_t, kMaxRank>& start, F&& f) {
  const size_t rank = dims.size();
  if (rank == 0) {
    f(int64_t{0}, int64_t{0});
    return;
  }
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < rank; ++d) {
    rows *= sizes[d];
  }
  std::array<int64_t, kMaxRank> idx{};
  for (int64_t r = 0; r < rows; ++r) {
    int64_t at = 0;
    for (size_t d = 0; d < rank; ++d) {
      at = at * dims[d] + start[d] + (d + 1 < rank ? idx[d] : 0);
    }
    f(r * sizes[rank - 1], at);
    for (size_t d = rank - 1; d-- > 0;) {
      if (++idx[d] < sizes[d]) {
        break;
      }
      idx[d] = 0;
    }
  }
}

}  // namespace iputrain::ir
