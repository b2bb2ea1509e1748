// Pipeline schedules as data: one ScheduleDef per schedule (its own file in this folder), listed
// once in schedule_list.hpp. The config (names, accumulation rule, IPU sharing), the planner
// (timeline, bubble, memory) and the reports all read the same definitions, so they live in core,
// below both, in the folder's namespace; the planner takes them into its own (planner/timeline.hpp).
//
// The timeline says which task each IPU runs at which timestep of one accumulation cycle; a task
// is one phase of one pipeline position on one micro-batch. Phases are an open set: forward,
// backward (all of it, or under a schedule that splits it only the part the input gradients need),
// backward-for-weights (the rest: the parameter gradients) and recompute (added by lowering).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace iputrain::pipeline_schedules {

//! The schedules, in schedule_list.hpp's order (schedule_table()[static_cast<size_t>(kind)]).
enum class ScheduleKind : uint8_t {
#define IPUTRAIN_SCHEDULE(kind) kind,
#include "core/pipeline_schedules/schedule_list.hpp"
#undef IPUTRAIN_SCHEDULE
};

//! What a task does with the nodes of its stage.
enum class Work : uint8_t {
  Forward,          //!< the forward nodes
  Recompute,        //!< forward nodes rebuilt just before the backward (lowering adds it)
  Backward,         //!< the backward nodes; when split, those the input gradients need
  BackwardWeights,  //!< when split: the backward nodes only the parameter gradients need
};

char work_letter(Work w);  //!< F, R, B, W

//! One unit of work: one phase of one pipeline position on one micro-batch.
struct Task {
  int32_t position = 0;  //!< index into Pipeline::positions
  Work phase = Work::Forward;
  int64_t micro_batch = 0;  //!< 0-based within one accumulation cycle
};

//! Stages grouped into pipeline positions, and where each stage runs.
struct Pipeline {
  std::vector<std::vector<int32_t>> positions;  //!< stage ids per position, in model order
  std::vector<int32_t> stage_ipu;               //!< per stage: IPU within the replica
  int32_t ipus_per_replica = 1;

  std::vector<int32_t> ipus_of_position(int32_t position) const;  //!< distinct, ascending
};

//! The timesteps of one accumulation cycle: per timestep, per IPU, the tasks it runs in order.
struct Timeline {
  ScheduleKind kind = ScheduleKind::Grouped;
  int64_t micro_batches = 1;
  std::vector<std::vector<std::vector<Task>>> steps;  //!< [timestep][ipu] -> tasks

  int64_t timesteps() const { return static_cast<int64_t>(steps.size()); }
};

//! Accumulation counts a schedule accepts: multiples of `multiple`, at least `minimum`.
struct AccumulationRule {
  int64_t multiple = 1;
  int64_t minimum = 1;
  std::string why;  //!< for messages: "grouped training with 3 stages needs a multiple of 6"
};

struct ScheduleDef {
  ScheduleKind kind;
  std::string_view name;     //!< the `pipeline.schedule` value
  std::string_view summary;  //!< one line for the config reference
  //! Runs Backward and BackwardWeights as separate tasks (the lowering splits each stage's backward).
  bool splits_backward = false;
  //! Training needs every IPU to hold at most one position.
  bool one_position_per_ipu = false;
  //! The IPUs take the timesteps in turn: one starts when the one before has ended on every IPU (one
  //! stage at a time). The cycle model keeps to it where the programs alone would let the next
  //! micro-batch's first stage start early (inference, where no backward holds an IPU back).
  bool timesteps_in_turn = false;
  //! No pipeline at all: each micro-batch goes through every stage before the next starts. The
  //! schedule a run without pipelining runs, the one batch serialization runs under, and none the
  //! memory advice proposes instead of a pipeline. Exactly one row says so (unpipelined_schedule()).
  bool unpipelined = false;
  //! The recomputation modes it runs (pipeline.recomputation_mode): all of a stage's recomputation
  //! before its backward, and the recomputation interleaved with the backward. "auto" runs the
  //! first where the schedule runs it, else the second.
  bool recompute_then_backpropagate = true;
  bool recompute_and_backpropagate_interleaved = true;
  AccumulationRule (*accumulation)(int64_t positions, int64_t ipus_per_replica, bool training) = nullptr;
  //! The accumulation rule in words, for the config reference ("a multiple of 2 x stages").
  std::string_view accumulation_doc;
  //! The tasks of one cycle; the count has passed `accumulation`. `slices` > 1: batch serialization.
  Timeline (*timeline)(const Pipeline& p, int64_t micro_batches, bool training, int64_t slices) = nullptr;
  //! Idle share of IPU time, every phase taken as equally long (forward = backward-for-inputs =
  //! backward-for-weights, and a whole backward twice a forward where it is not split).
  double (*bubble)(const Pipeline& p, int64_t micro_batches, bool training) = nullptr;
  //! Memory rule: the most micro-batches whose activations pipeline position `position` holds at once.
  int64_t (*in_flight)(const Pipeline& p, int32_t position, int64_t micro_batches) = nullptr;
};

#define IPUTRAIN_SCHEDULE(kind) extern const ScheduleDef k##kind##Schedule;
#include "core/pipeline_schedules/schedule_list.hpp"
#undef IPUTRAIN_SCHEDULE

//! Every schedule, in ScheduleKind order.
const std::vector<const ScheduleDef*>& schedule_table();
const ScheduleDef& schedule_def(ScheduleKind kind);
//! The row that says `unpipelined` (the table has exactly one: a test checks it).
const ScheduleDef& unpipelined_schedule();
const ScheduleDef* find_schedule(std::string_view name);  //!< nullptr when unknown
std::vector<std::string> schedule_names();
//! Whether `def` runs recomputation mode `mode` (a pipeline.recomputation_mode value; "auto" and
//! unknown names: true), and the names of the schedules that do, for messages ("grouped,
//! interleaved and zero_bubble").
bool runs_recomputation(const ScheduleDef& def, std::string_view mode);
std::string schedules_running(std::string_view mode);
//! "a, b and c": the names of the schedules `pick` accepts, in table order.
std::string schedule_list(bool (*pick)(const ScheduleDef&));

// Shared by the definitions.

//! The stage list T = [F0 .. F(P-1), B(P-1) .. B0] (inference: the forwards) as (position, phase).
std::vector<std::pair<int32_t, Work>> stage_list(const Pipeline& p, bool training);
//! Places task j of micro-batch m at timestep step(m, j) on every IPU its position touches.
Timeline place_stage_list(const Pipeline& p, ScheduleKind kind, int64_t micro_batches, bool training,
                          int64_t (*step)(int64_t m, int64_t j, int64_t len, int64_t slices), int64_t slices);
//! The task order of position `i` under a split backward (the zero-bubble schedules): `warm`
//! forwards; B, F pairs until it has run warm + i forwards; one B; W, F, B triples while forwards
//! remain; W, B pairs while backwards remain; the W passes left. Inference: the M forwards.
std::vector<Task> split_backward_order(int32_t i, int64_t warm, int64_t M, bool training);
//! Places each position's tasks in its order, each as soon as its position is free and its input
//! is there (F after the previous position's F, B after the next position's B, or the last
//! position's own F; W after its own B), one timestep per task.
Timeline place_as_soon_as_possible(const Pipeline& p, ScheduleKind kind, int64_t micro_batches,
                                   const std::vector<std::vector<Task>>& order);
//! The bubble of split_backward_order placed as soon as possible, every phase equally long:
//! (P - 1) / (3M + P - 1) in training (3M tasks per position, P - 1 idle steps), a plain forward
//! pipeline's (P - 1) / (M + P - 1) in inference.
double split_backward_bubble(const Pipeline& p, int64_t micro_batches, bool training);
//! The fill-and-drain bubble of grouped and interleaved: depth - 1 idle chunk slots per IPU
//! against loops x M + depth - 1, where consecutive positions on the same IPUs form one chunk
//! (GPipe's figure, with Megatron's for looped stages); training and inference share it.
double fill_drain_bubble(const Pipeline& p, int64_t micro_batches, bool training);

}  // namespace iputrain::pipeline_schedules
