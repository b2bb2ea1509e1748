// Shared by softmax_cross_entropy and its gradient (shape rule, label check) and by softmax,
// log_softmax and their gradients (the [outer, n, inner] view around the softmax axis).
#pragma once

#include <cstdint>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

//! Checks logits f32[..., C] (C >= 1) against labels i32[...] (logits' shape without C).
void check_logits_labels(const TensorType& logits, const TensorType& labels);

//! Throws iputrain::Error(Data) located at the node when `label` is not a class index in [0, c).
//! Out of line so the kernels' row loops stay small.
[[noreturn]] void throw_bad_label(const Node& node, int32_t label, int64_t c);

//! The largest of z[0..c) (c >= 1). A plain loop: rows are short, and Eigen's maxCoeff trips a
//! false -Wmaybe-uninitialized in GCC 12's AVX-512 headers.
inline float row_max(const float* z, int64_t c) {
  float m = z[0];
  for (int64_t j = 1; j < c; ++j) {
    m = z[j] > m ? z[j] : m;
  }
  return m;
}

//! True when `label` indexes one of `c` classes.
inline bool label_ok(int32_t label, int64_t c) {
  return label >= 0 && label < c;
}

//! A tensor viewed as [outer, n, inner] around one axis: n values per softmax, inner-strided.
struct AxisDims {
  int64_t outer = 1;
  int64_t n = 1;
  int64_t inner = 1;
};

//! The view of `shape` around attribute axis (default -1); the axis must be valid (infer checks).
AxisDims axis_dims(const Shape& shape, const Attrs& attrs);

//! Shape rule of softmax/log_softmax (inputs: x) and of their gradients (inputs: y, dy): f32
//! operands of one shape, rank >= 1, a valid axis attribute.
TensorType infer_softmax(std::span<const TensorType* const> in, const Attrs& attrs);

//! The rows of softmax (`kLog` false) and log_softmax (`kLog` true), both instantiated in
//! softmax_util.cpp: y = softmax(x) (or log_softmax) along the axis, never allocating; the backward,
//! softmax_grad(y, dy) (or log_softmax_grad) with the axis.
template <bool kLog>
void softmax_forward(const KernelArgs& args);
template <bool kLog>
std::vector<ValueId> softmax_backward(Graph& g, ValueId id, ValueId dy);

//! The rows of softmax_grad and log_softmax_grad (y, dy): softmax's dx = y * (dy - sum(dy * y)), or
//! with `kLog` (y = log_softmax) dx = dy - exp(y) * sum(dy). Never allocates.
template <bool kLog>
void softmax_grad_forward(const KernelArgs& args);

//! Attribute axis of softmax and log_softmax (their gradients take it too).
inline constexpr AttrSpec kSoftmaxAttrs[] = {{.name = "axis", .type = AttrType::Int, .number = -1}};

}  // namespace iputrain::ir
