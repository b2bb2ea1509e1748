// Shared by gather and gather_grad: the index check and the [outer, rows, inner] view of params.
#pragma once

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

//! params viewed as [outer, rows, inner] around the gathered axis.
struct GatherDims {
  int64_t outer = 1;
  int64_t rows = 0;
  int64_t inner = 1;
};

//! The view of `params` (shape) around axis `axis` (already normalised).
GatherDims gather_dims(const Shape& params, size_t axis);

//! The gathered shape: params.shape[:axis] + indices.shape + params.shape[axis+1:]; throws OpError
//! on a bad axis or rank.
TensorType infer_gather(const TensorType& params, const TensorType& indices, const Attrs& attrs);

//! Throws iputrain::Error(Data), located at the node, for an index outside [0, rows).
[[noreturn]] void throw_bad_index(const Node& node, int32_t index, int64_t rows);

}  // namespace iputrain::ir
