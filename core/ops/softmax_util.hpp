// Shape rule and label check shared by softmax_cross_entropy and its gradient.
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

}  // namespace iputrain::ir
