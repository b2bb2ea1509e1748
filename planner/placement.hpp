// Placement: which IPU of a replica runs each stage, how many replicas there are, which physical
// IPU each logical one is (`ipu.selection_order`), and which IPU owns each parameter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/graph.hpp"
#include "iputrain/settings.hpp"
#include "planner/plan.hpp"

namespace iputrain::planner {

//! The pipeline as the planner builds it, from the config's keys checked against the model.
struct PipelineShape {
  int64_t stages = 1;  //!< pipeline positions
  int64_t ipus_per_replica = 1;
  int64_t replicas = 1;
  int64_t gradient_accumulation_count = 1;  //!< the configured count, or the schedule's minimum
  //! The schedule run: the configured one when pipelined, else the unpipelined one (its row says so).
  ScheduleKind schedule = pipeline_schedules::unpipelined_schedule().kind;
  bool pipelined = false;  //!< some `pipeline.*` key asks for it or a replica spans several IPUs
};

//! Checks the config's pipeline keys against the model (planner/layout_check.cpp): `positions`
//! are the stage names per pipeline position (position_names), `last_stage_outputs` the last
//! stage's outputs (-1 = unknown). Checks the `pipeline.stages` names, one `device_mapping` entry
//! and one options table per position, the outfeed mask, distributed batch norm against
//! pipelining, whole replicas and the schedule's accumulation and IPU sharing rules. Throws
//! Error(Config) at the key (Settings::keys); returns the resolved shape.
PipelineShape check_layout(const std::vector<std::vector<std::string>>& positions, int64_t last_stage_outputs,
                           bool training, const Settings& settings);

//! Stage names per pipeline position (a position is a stage or the stages of a `parallel` block).
std::vector<std::vector<std::string>> position_names(const ir::Graph& g);

//! The physical IPU order of a device of `ipus` IPUs under `selection_order` (auto | zigzag |
//! snake | hoof), on the C2 topology: card k holds IPUs 2k and 2k+1, linked to each other and to
//! the same column of the cards above and below. AUTO means SNAKE when `ipus_per_replica` > 1
//! (consecutive pipeline IPUs are then always neighbours) and ZIGZAG otherwise.
std::vector<int32_t> selection_order(SelectionOrder order, int32_t ipus, int32_t ipus_per_replica);

//! Link hops between two physical IPUs of the C2 topology (1 for neighbours).
int32_t link_hops(int32_t a, int32_t b);

//! Places the stages of `g` (forward graph, stages final) as `settings` ask. A parameter used by
//! stages on two IPUs is an error at `pipeline.device_mapping` (or at the parameter if the mapping
//! is the default).
Placement make_placement(const ir::Graph& g, const Settings& settings, const PipelineShape& shape);

//! What the place pass decides against the model's shape (schedule run, accumulation count,
//! recomputation and sharding "auto" resolved, the device model).
PlanDecisions decide(const Settings& settings, const PipelineShape& shape);

}  // namespace iputrain::planner
