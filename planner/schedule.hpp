// Pipeline schedules: which stage runs which micro-batch, on which IPU, at which timestep.
//
// The model (read from the seed's pipelining semantics): the training stage list is
// T = [F0 .. F(P-1), B(P-1) .. B0] over the P pipeline positions (a position holds one stage, or
// the concurrent stages of a `parallel` group). Micro-batch m runs T[j] at timestep m * d + j, where
// the delay d is 1 for Grouped (every position busy every timestep once the pipeline is full),
// 2 for Interleaved (each IPU alternates forward and backward) and len(T) for Sequential (one
// stage at a time, no overlap). Inference uses T = [F0 .. F(P-1)].
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/graph.hpp"

namespace iputrain::planner {

enum class ScheduleKind { Grouped, Interleaved, Sequential };

std::string_view schedule_name(ScheduleKind kind);

//! One unit of work: the forward or backward pass of one pipeline position on one micro-batch.
struct Task {
  int32_t position = 0;             //!< index into Pipeline::positions
  ir::Phase phase = ir::Phase::Forward;
  int64_t micro_batch = 0;          //!< 0-based within one accumulation cycle
};

//! Stages grouped into pipeline positions, and where each stage runs.
struct Pipeline {
  std::vector<std::vector<int32_t>> positions;  //!< stage ids per position, in model order
  std::vector<int32_t> stage_ipu;               //!< per stage: IPU within the replica
  int32_t ipus_per_replica = 1;
};

//! The timesteps of one accumulation cycle: per timestep, per IPU, the tasks it runs in order.
struct Timeline {
  ScheduleKind kind = ScheduleKind::Grouped;
  int64_t micro_batches = 1;
  std::vector<std::vector<std::vector<Task>>> steps;  //!< [timestep][ipu] -> tasks

  int64_t timesteps() const { return static_cast<int64_t>(steps.size()); }
};

//! Groups the model's stages into positions (consecutive stages sharing a `parallel` group form one
//! position) and maps them to IPUs by `device_mapping` (one entry per stage; empty = stage i on
//! IPU i, or every stage on IPU 0 when `single_ipu`).
Pipeline make_pipeline(const ir::Graph& g, const std::vector<int32_t>& device_mapping, bool single_ipu);

//! The smallest accumulation count the schedule accepts, which every valid count is a multiple
//! of: 2 * positions for Grouped training (positions for inference), the IPUs per replica for
//! Interleaved, 1 for Sequential.
int64_t required_accumulation_multiple(const Pipeline& p, ScheduleKind kind, bool training);

//! Builds the timeline. Throws Error(Plan) when the accumulation count breaks the schedule's rule
//! or when Interleaved training would run two stages on one IPU.
//! `slices` > 1 (batch serialization, sequential only): each stage runs `slices` consecutive
//! micro-batches back to back before the next stage starts.
Timeline make_timeline(const Pipeline& p, ScheduleKind kind, int64_t micro_batches, bool training, int64_t slices = 1);

//! The analytic bubble fraction of the schedule (idle share of IPU-timesteps), for comparison
//! with the simulated timeline.
double analytic_bubble(const Pipeline& p, ScheduleKind kind, int64_t micro_batches, bool training);

//! ASCII picture: one row per IPU, one column per timestep (F3 = forward of micro-batch 3).
std::string timeline_str(const Pipeline& p, const Timeline& t);

}  // namespace iputrain::planner
