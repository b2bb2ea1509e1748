// Shared by the fused recurrent ops (lstm, gru) and their gradients: the shape rules of their
// common inputs, the check of the per-sample lengths, per-row Eigen views and the cost of a step.
//
// A recurrent op takes the input projection xw = x @ kernel + bias, computed outside as one big
// product over every step, and runs the recurrence: per step one product of the state with the
// recurrent kernel (gemm, the same bits for any thread count) and the gates, row by row. Its
// output keeps, for every step, what its gradient needs (the "stash"), so the planner sees the
// stash as the op's output and frees or recomputes it as it does any activation. Steps at or past
// a sample's length carry its state unchanged and hold zero gates.
#pragma once

// GCC 12 reports a false -Wmaybe-uninitialized inside Eigen's AVX-512 math (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Core>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

//! Batch, steps and units of a recurrent op.
struct RecurrentDims {
  int64_t b = 0;
  int64_t t = 0;
  int64_t u = 0;
};

//! Checks xw f32[b, t, gates * u] and the recurrent kernel f32[u, gates * u]; throws OpError.
RecurrentDims recurrent_dims(const TensorType& xw, const TensorType& kernel, int64_t gates);

//! Checks a state input f32[b, u] (`what` names it in the error).
void check_state(const TensorType& s, const RecurrentDims& d, std::string_view what);

//! Checks the lengths input i32[b].
void check_lengths(const TensorType& lengths, const RecurrentDims& d);

//! Checks `shape` (a gradient's dy or a forward output) is f32[b, t, width].
void check_sequence(const TensorType& s, const RecurrentDims& d, int64_t width, std::string_view what);

//! Sample `n`'s number of steps, lengths[n]; throws iputrain::Error(Data) located at `node` when
//! it is outside [0, t].
int64_t sample_steps(const Node& node, const int32_t* lengths, int64_t n, int64_t t);

//! Calls f(n0, n1) over blocks of the batch's samples on the shared arena; `per_sample` is the
//! rough cost of one sample's row (the blocks depend on b only).
template <typename F>
void for_samples(int64_t b, int64_t per_sample, F&& f) {
  par::for_blocks(b, 1, b * per_sample, static_cast<F&&>(f));
}

using Row = Eigen::Map<Eigen::ArrayXf>;
using ConstRow = Eigen::Map<const Eigen::ArrayXf>;

//! The cost of a recurrent op's t steps: `products` products of [b, u] by [u, gates * u] per step
//! and `per_element` operations on each element of its output; its inputs are read and its output
//! written once.
Cost recurrent_cost(const Graph& g, const Node& node, const RecurrentDims& d, int64_t gates, double products,
                    double per_element);

//! A recurrent op's input names (lstm and gru differ only in their middle inputs).
inline constexpr std::string_view kLstmInputs[] = {"xw", "recurrent_kernel", "h0", "c0", "lengths"};
inline constexpr std::string_view kGruInputs[] = {"xw", "recurrent_kernel", "recurrent_bias", "h0", "lengths"};

}  // namespace iputrain::ir
