// A fused kernel, not an op: relu(x + bias) for a bias along the last dimension, the pattern every
// dense and convolution layer with `activation = relu` lowers to (add, then relu). The engine's task
// programs run it in place of the two kernels when nothing happens between them (no rounding to a
// half type, no floating-point traps): one pass over x instead of two and one entry to the arena
// instead of two. It writes both outputs (relu_grad reads the sum) with the same float operations
// as add and relu, so every bit is the same as running them one after the other.
#pragma once

#include "core/ir/graph.hpp"
#include "core/ops/op.hpp"

namespace iputrain::ir {

//! False when the environment sets IPUTRAIN_FUSE=off (read once): the kernels then run one by one,
//! for measuring the fusion and for the tests that compare the two.
bool fused_kernels_enabled();

//! Whether `add` (with inputs `x`, `bias` and output `sum`) and `relu` (its only input `sum`, output
//! `y`) can run as one bias_relu: f32, x of sum's shape, bias [C] with C sum's last dimension; sum
//! apart from bias, and apart from x or exactly on it; y apart from bias, apart from sum or exactly
//! on it, and apart from x, exactly on it or, when the kernel stays on one thread (a function of
//! the shape), starting below it.
bool bias_relu_fits(const Node& add, const Node& relu, const Tensor& x, const Tensor& bias, const Tensor& sum,
                    const Tensor& y);

//! sum = x + bias (bias repeated along the rows), y = relu(sum), in blocks of rows on the arena.
void bias_relu(const Tensor& x, const Tensor& bias, const Tensor& sum, const Tensor& y);

}  // namespace iputrain::ir
