// The memory model: bytes each IPU of a replica holds at every timestep of a cycle, by kind, from
// the buffer table, arenas and instruction lists of the per-IPU programs:
// - weights: the IPU's Param buffers (a moving statistic's with its partial sums,
//   planner/moving_statistics.hpp);
// - optimizer state: what the optimizer keeps for each of the IPU's trainable weights, by its
//   shape (core/optim_table.hpp: two copies of the weight for adam; a factored one keeps less;
//   host memory instead when offloaded);
// - gradient accumulators: accumulator_buffers() per trained weight, in the accumulation dtype;
// - activations: the IPU's arena (planner/buffer_assignment.hpp), where every value the IPU makes,
//   receives or stashes lives from the node that makes it to the last node that reads it, values
//   whose lives do not overlap sharing memory; the engine allocates exactly this arena;
// - I/O buffers: each incoming channel's capacity x its largest message, prefetch_depth
//   micro-batches of infeed and one of outfeed.
// A plan that does not fit is an error that names the IPU, the bytes needed against the capacity,
// the largest contributors and what would make it fit.
#pragma once

#include <vector>

#include "planner/plan.hpp"

namespace iputrain::planner {

//! Accumulator buffers each trained weight needs on one replica when gradients are summed in
//! `order`: the canonical tree's most partial sums at once over the replicas' leaves, or 1 for the
//! sequential order; 0 with one micro-batch on one replica (not training, or A = R = 1), where the
//! optimizer reads the gradient itself. The memory model counts these and the engine allocates them.
int32_t accumulator_buffers(const Plan& plan, GradientAccumulationOrder order);
//! The same under the plan's own order (`pipeline.gradient_accumulation_order`).
int32_t accumulator_buffers(const Plan& plan);

//! Floats of optimizer state one replica keeps for trained weight `p`: the optimizer's state for
//! its shape, or, sharded over the replicas, its block of each state array (what the engine allocates).
int64_t state_floats_held(const Plan& plan, ir::ValueId p);
//! Floats of optimizer state per weight element over the graph's weights (2 for adam): what
//! automatic staging counts per weight byte.
double optimizer_state_per_weight(const ir::Graph& g, const OptimizerSettings& o);

//! Per-IPU memory of `plan` (uses plan.programs, plan.placement and plan.settings).
std::vector<IpuMemory> estimate_memory(const Plan& plan);

//! Throws Error(Plan) if some IPU's peak exceeds its capacity.
void check_fits(const Plan& plan);

}  // namespace iputrain::planner
