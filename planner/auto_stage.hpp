// Automatic staging: splits a model into N pipeline stages of balanced cost, at the boundaries of
// its repeated blocks first (planner/blocks.hpp), or with a given number of blocks per stage.
#pragma once

#include "core/ir/graph.hpp"
#include "planner/cost_model.hpp"

namespace iputrain::planner {

//! Reassigns the stage of every forward node of `g` so that the model runs as `stages` consecutive
//! stages of about equal cycles (forward + backward estimate), cutting only where the values that
//! cross the cut are few bytes, and keeping a parameter and all its users in one stage; between the
//! model's repeated blocks when a split there costs at most 5% more than one between any ops. Replaces
//! g.stages by "auto0".."auto{N-1}". Every stage's parameters times `bytes_per_weight_byte`
//! (weights, gradient accumulators and optimizer state per weight byte; 0 = no memory limit) must
//! fit one IPU's memory. Throws Error(Plan) when the model has fewer cuttable points than stages
//! asked for, or when no split fits.
void auto_stage(ir::Graph& g, int32_t stages, const DeviceModel& device, double bytes_per_weight_byte = 0);

//! Reassigns the stages of `g` at the boundaries of its repeated blocks: stage k holds
//! `blocks_per_stage[k]` blocks, the first stage also the ops before the first block, the last
//! stage those after the last (pipeline.auto_stage_blocks). A weight read by several stages stays
//! on one IPU only if the device mapping puts them there (checked by placement). Throws Error(Plan)
//! when the counts do not add up to the model's blocks, or a stage would hold no op.
void auto_stage_blocks(ir::Graph& g, const std::vector<int64_t>& blocks_per_stage);

//! A model without declared stages: each forward compute node's `model_stage` becomes its segment,
//! 0 before the repeated blocks, 1 in them, 2 after them (nothing when it has no blocks). Autodiff
//! sums a weight's gradient per model stage, so a weight read by two segments (an embedding tied to
//! the head) gets one part each, whatever the plan, as it would with the stages declared: a
//! pipeline then never holds one segment's part until another's backward pass.
void mark_segments(ir::Graph& g);

//! What automatic staging sees of a model's repeated blocks.
struct ModelBlocks {
  int64_t count = 0;  //!< equal consecutive blocks (0: none)
  int64_t ops_per_block = 0;
  //! The ops after the last block read a weight that ops before the first block read (a head tied
  //! to the embedding): the last stage belongs on the first stage's IPU.
  bool tied_tail = false;
};
ModelBlocks model_blocks(const ir::Graph& g);

}  // namespace iputrain::planner
