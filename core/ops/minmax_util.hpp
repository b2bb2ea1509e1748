// Shared by maximum and minimum: the shape rule, the kernel and the backward, which routes dy to
// the winning operand through minmax_grad (ties: half to each side).
#pragma once

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

//! Broadcast rule of maximum/minimum: f32 or i32 operands of one dtype.
TensorType infer_minmax(std::span<const TensorType* const> in, const Attrs& attrs);

//! out = max(a, b) (or min when `kIsMax` is false), broadcasting. The rows name the forward and the
//! backward with their flag (both instantiated in minmax_util.cpp).
template <bool kIsMax>
void minmax_forward(const KernelArgs& args);

//! {reduce(minmax_grad(a, b, dy; side 0)), reduce(minmax_grad(a, b, dy; side 1))}.
template <bool kIsMax>
std::vector<ValueId> minmax_backward(Graph& g, ValueId id, ValueId dy);

}  // namespace iputrain::ir
