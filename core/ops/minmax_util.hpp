// Shared by maximum and minimum: the shape rule, the kernel and the backward, which routes dy to
// the winning operand through minmax_grad (ties: half to each side).
#pragma once

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

//! Broadcast rule of maximum/minimum: f32 or i32 operands of one dtype.
TensorType infer_minmax(std::span<const TensorType* const> in, const Attrs& attrs);

//! out = max(a, b) (or min when `is_max` is false), broadcasting.
void minmax_forward(const KernelArgs& args, bool is_max);

//! {reduce(minmax_grad(a, b, dy; side 0)), reduce(minmax_grad(a, b, dy; side 1))}.
std::vector<ValueId> minmax_backward(Graph& g, ValueId id, ValueId dy, bool is_max);

}  // namespace iputrain::ir
