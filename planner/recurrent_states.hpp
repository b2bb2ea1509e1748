// Stateful recurrent layers (nn.lstm(…, stateful = true), Keras' `stateful`): each keeps its
// final states in non-trainable parameters f32[batch, units], which the next micro-batch starts
// from, so that sample i of micro-batch g + 1 continues sample i of micro-batch g.
//
// - state_read(state) gives the state as the micro-batch's forward starts; the read is stashed
//   for its backward, never recomputed (op_flags::stateful). No gradient crosses micro-batches
//   (truncated back-propagation through time, as Keras').
// - state_write(h, state) runs in the same forward task; the engine copies h into the state right
//   after its kernel (and into the half copy under f16/bf16 compute), in Forward tasks only.
// - A stage runs its forwards in micro-batch order in every schedule, and micro-batch m of update
//   u is batch u * A + m of the data stream with one replica, so the states follow the stream
//   whatever the accumulation, the pipeline or the recomputation: every such plan computes the
//   one-IPU numbers. Replicas split the stream (replica r reads batches (u R + r) A + m), so the
//   states would not follow it: a model with stateful layers plans only one replica.
// - The states are reset (state_read gives zeros) at the first batch of every pass over a data
//   set (each training epoch, each evaluation, validation or prediction run) and every
//   `training.reset_states_every` batches of the pass (ExecContext::reset_states).
// - They are parameters: weights files and checkpoints hold them, and a resumed run continues
//   the sequences where it stopped.
#pragma once

#include <cstdint>
#include <vector>

#include "core/ir/graph.hpp"
#include "iputrain/settings.hpp"

namespace iputrain::planner {

struct Placement;

//! The state_write nodes of `g`: roots of every program, though nothing reads them.
std::vector<ir::ValueId> state_writes(const ir::Graph& g);

//! The parameters the state_read nodes of `g` read, in graph order.
std::vector<ir::ValueId> recurrent_states(const ir::Graph& g);

//! Refuses what stateful layers cannot follow: several replicas, batch serialization, shuffled
//! training data, a state read and written on different stages or read by other ops.
void check_recurrent_states(const ir::Graph& g, const Settings& settings, int32_t replicas, bool training);

//! Whether the states start afresh at batch `index` of a pass over a data set: its first batch, and
//! every `every` batches (0: only the first).
inline bool resets_states(int64_t index, int64_t every) { return index == 0 || (every > 0 && index % every == 0); }

}  // namespace iputrain::planner
