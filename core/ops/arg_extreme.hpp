// Shared by argmax and argmin: the shape rule and the kernel. Both take f32 or i32 and give i32
// with the axis removed; ties resolve to the first index and a nan is the extreme (the first nan
// wins), as NumPy and PyTorch do.
#pragma once

#include "core/ops/along_axis_util.hpp"

namespace iputrain::ir {

//! f32 or i32 in, i32 out with attribute `axis` (default -1) removed; `name` words the errors.
TensorType infer_arg_extreme(const TensorType& x, const Attrs& attrs, std::string_view name);

//! Index of the largest (`is_max`) or smallest element along the axis.
void arg_extreme_forward(const KernelArgs& args, bool is_max);

//! Cost of either: one comparison per input element.
Cost arg_extreme_cost(const Graph& g, const Node& node);

}  // namespace iputrain::ir
