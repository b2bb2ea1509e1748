// A fused kernel, not an op: relu(x + bias) for a bias along the last dimension, the pattern every
// dense and convolution layer with `activation = relu` lowers to (add, then relu). The planner's
// fuse pass (planner/fusion.hpp) picks the pairs from the op flags fuse_bias_head and
// fuse_relu_tail and the types; the engine's task programs run each in place of its two kernels
// when nothing happens between them (no rounding to a half type, no floating-point traps) and the
// buffers allow it: one pass over x instead of two and one entry to the arena instead of two. It
// writes both outputs (relu_grad reads the sum) with the same float operations as add and relu,
// so every bit is the same as running them one after the other.
#pragma once

#include "core/ops/op.hpp"

namespace iputrain::ir {

//! False when the environment sets IPUTRAIN_FUSE=off (read once): the kernels then run one by one,
//! for measuring the fusion and for the tests that compare the two.
bool fused_kernels_enabled();

//! Whether the types of an add's inputs `x` and `bias`, its result `sum` and the relu of it `y`
//! suit one bias_relu: all f32, x and y of sum's shape (not empty), bias [C] with C sum's last
//! dimension. The planner's fuse pass asks it.
bool bias_relu_types_fit(const TensorType& x, const TensorType& bias, const TensorType& sum, const TensorType& y);

//! Whether the buffers where the arena put them suit one bias_relu (the engine's run-time guard;
//! their types too, bias_relu_types_fit): sum apart from bias, and apart from x or exactly on it; y apart
//! from bias, apart from sum or exactly on it, and apart from x, exactly on it or, when the kernel
//! stays on one thread (a function of the shape), starting below it.
bool bias_relu_buffers_fit(const Tensor& x, const Tensor& bias, const Tensor& sum, const Tensor& y);

//! sum = x + bias (bias repeated along the rows), y = relu(sum), in blocks of rows on the arena.
void bias_relu(const Tensor& x, const Tensor& bias, const Tensor& sum, const Tensor& y);

}  // namespace iputrain::ir
