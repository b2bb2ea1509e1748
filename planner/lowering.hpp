// Lowering: from the schedule's timeline to per-IPU instruction programs, with the messages
// between IPUs, the buffers each IPU needs (and how many micro-batch copies) and the buckets of
// the cross-replica reduction.
#pragma once

#include "planner/plan.hpp"

namespace iputrain::planner {

//! Per-stage node lists: forward, backward, and for the stages in `recompute` (per stage) the
//! nodes re-run before the backward and the values stashed instead. With `keep_checkpoints`
//! (recompute_and_backpropagate_interleaved) recomputation_checkpoint values are stashed too. With
//! `rebuild_weight_derived`, values computed from parameters and constants alone are rebuilt in the
//! backward of every stage, recomputed or not, just before their first reader. With `split` each
//! backward is split: what the input gradients need stays in `backward`, the rest goes to `weights`.
std::vector<StagePrograms> stage_programs(const ir::Graph& g, const std::vector<ir::ValueId>& train_program,
                                          const std::vector<bool>& recompute, bool keep_checkpoints,
                                          bool rebuild_weight_derived = false, bool split = false);

//! Lowers one accumulation cycle of `plan` (graph, train_program, grads, placement, timeline,
//! settings must be set).
DevicePrograms lower(const Plan& plan);

}  // namespace iputrain::planner
