// Helpers for the op cases: dtype shorthands, index arithmetic and reference builders shared by
// op_cases*.cpp. References are naive double-precision loops, independent of core/ops/.
#pragma once

#include <functional>
#include <limits>

#include "tests/core/op_harness.hpp"

namespace iputrain::test {

//! The special values of the edge cases.
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

using ir::Attrs;
using ir::OpKind;

inline TensorType f32(Shape s) {
  return {DType::F32, std::move(s)};
}
inline TensorType i32(Shape s) {
  return {DType::I32, std::move(s)};
}
inline TensorType boolean(Shape s) {
  return {DType::Bool, std::move(s)};
}
inline TensorType u8(Shape s) { return {DType::U8, std::move(s)}; }

// Multi-index of flat index `i` in `shape` (row-major).
inline Shape unflatten(int64_t i, const Shape& shape) {
  Shape idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = i % shape[d];
    i /= shape[d];
  }
  return idx;
}

// Flat index in `shape` of the output multi-index `idx`, NumPy-broadcast (right-aligned, size-1
// dimensions read at 0).
inline int64_t broadcast_index(const Shape& idx, const Shape& shape) {
  int64_t flat = 0;
  const size_t off = idx.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d) {
    flat = flat * shape[d] + (shape[d] == 1 ? 0 : idx[off + d]);
  }
  return flat;
}

inline RefFn ref_binary(std::function<double(double, double)> f) {
  return [f](const std::vector<Values>& in, const std::vector<TensorType>& t, const TensorType& out,
             const Attrs&) {
    Values r(static_cast<size_t>(out.numel()));
    for (int64_t i = 0; i < out.numel(); ++i) {
      const Shape idx = unflatten(i, out.shape);
      r[static_cast<size_t>(i)] = f(in[0][static_cast<size_t>(broadcast_index(idx, t[0].shape))],
                                    in[1][static_cast<size_t>(broadcast_index(idx, t[1].shape))]);
    }
    return r;
  };
}

inline RefFn ref_unary(std::function<double(double)> f) {
  return [f](const std::vector<Values>& in, const std::vector<TensorType>& t, const TensorType& out,
             const Attrs&) {
    Values r(static_cast<size_t>(out.numel()));
    for (int64_t i = 0; i < out.numel(); ++i) {
      r[static_cast<size_t>(i)] =
          f(in[0][static_cast<size_t>(broadcast_index(unflatten(i, out.shape), t[0].shape))]);
    }
    return r;
  };
}

//! The case groups beyond op_cases.cpp: elementwise/comparisons/max, shapes/softmax, nn ops.
void add_math_cases(std::vector<OpCase>& cases);
void add_shape_cases(std::vector<OpCase>& cases);
void add_nn_cases(std::vector<OpCase>& cases);
//! Regressions for wrong numbers at the edges (issue 36): op_cases_edges.cpp.
void add_edge_cases(std::vector<OpCase>& cases);
//! cumsum, argsort, take_along_axis, tril and triu: op_cases_scan.cpp.
void add_scan_cases(std::vector<OpCase>& cases);
//! lstm and gru: op_cases_recurrent.cpp.
void add_recurrent_cases(std::vector<OpCase>& cases);
//! ctc_loss, ctc_loss_grad and ctc_greedy_decode: op_cases_ctc.cpp.
void add_ctc_cases(std::vector<OpCase>& cases);
//! The collectives at one replica: op_cases_collective.cpp.
void add_collective_cases(std::vector<OpCase>& cases);
//! The ops registered in C++ (custom, custom_grad): op_cases_custom.cpp.
void add_custom_cases(std::vector<OpCase>& cases);
//! dynamic_slice, dynamic_update_slice, sequence_slice and its gradient: op_cases_dynamic.cpp.
void add_dynamic_cases(std::vector<OpCase>& cases);
void add_loop_cases(std::vector<OpCase>& cases);
//! candidate_sampler: op_cases_sampling.cpp.
void add_sampling_cases(std::vector<OpCase>& cases);

}  // namespace iputrain::test
