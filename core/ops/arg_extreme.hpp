// Shared by argmax and argmin: the shape rule and the kernel. Both take f32 or i32 and give i32
// with the axis removed; ties resolve to the first index and a nan is the extreme (the first nan
// wins), as NumPy and PyTorch do.
#pragma once

#include "core/ops/along_axis_util.hpp"

namespace iputrain::ir {

//! The rows' shape rule: f32 or i32 in, i32 out with attribute `axis` (default -1) removed.
//! argmax when `kIsMax`, argmin otherwise (both instantiated in arg_extreme.cpp).
template <bool kIsMax>
TensorType infer_arg_extreme(std::span<const TensorType* const> in, const Attrs& attrs);

//! The rows' kernel: the index of the largest (`kIsMax`) or smallest element along the axis.
template <bool kIsMax>
void arg_extreme_forward(const KernelArgs& args);

//! Cost of either: one comparison per input element.
Cost arg_extreme_cost(const Graph& g, const Node& node);

}  // namespace iputrain::ir
