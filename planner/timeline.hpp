// Pipeline schedules: which stage runs which micro-batch, on which IPU, at which timestep. Each
// schedule is a ScheduleDef (planner/schedules/); this file groups the model's stages into
// pipeline positions and checks and dispatches to the definitions.
//
// The model (read from the seed's pipelining semantics): the training stage list is
// T = [F0 .. F(P-1), B(P-1) .. B0] over the P pipeline positions (a position holds one stage, or
// the concurrent stages of a `parallel` group). Grouped, interleaved and sequential run T[j] of
// micro-batch m at timestep m * d + j (d = 1, 2 and len(T)); zero_bubble splits each B into its
// input-gradient and weight-gradient halves and orders them per position. Inference uses the forwards.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/graph.hpp"
#include "core/pipeline_schedules/schedule_def.hpp"

namespace iputrain::planner {

// The pipeline schedules' vocabulary (Pipeline, Timeline, Task, ScheduleDef, ...) is the planner's.
using namespace pipeline_schedules;  // NOLINT(google-build-using-namespace)

std::string_view schedule_name(ScheduleKind kind);

//! Groups the model's stages into positions (consecutive stages sharing a `parallel` group form one
//! position) and maps them to IPUs by `device_mapping` (one entry per stage; empty = stage i on
//! IPU i, or every stage on IPU 0 when `single_ipu`).
Pipeline make_pipeline(const ir::Graph& g, const std::vector<int32_t>& device_mapping, bool single_ipu);

//! The schedule's accumulation rule for this pipeline.
AccumulationRule accumulation_rule(const Pipeline& p, ScheduleKind kind, bool training);

//! The smallest accumulation count the schedule accepts.
int64_t required_accumulation_multiple(const Pipeline& p, ScheduleKind kind, bool training);

//! Builds the timeline. The accumulation count and the mapping have passed the schedule's rules
//! (checked once, against the config's keys, by the place pass: planner/layout_check.cpp).
//! `slices` > 1 (batch serialization, sequential only): each stage runs `slices` consecutive
//! micro-batches back to back before the next stage starts.
Timeline make_timeline(const Pipeline& p, ScheduleKind kind, int64_t micro_batches, bool training, int64_t slices = 1);

//! The analytic bubble fraction of the schedule (idle share of IPU-timesteps), for comparison
//! with the simulated timeline.
double analytic_bubble(const Pipeline& p, ScheduleKind kind, int64_t micro_batches, bool training);

//! ASCII picture: one row per IPU, one column per timestep (F3 = forward of micro-batch 3, W3 its
//! weight-gradient pass under zero_bubble).
std::string timeline_str(const Pipeline& p, const Timeline& t);

}  // namespace iputrain::planner
