// The weight update of one virtual IPU, its Worker's: the parameters it updates with their
// gradient accumulation trees and optimizer state, the moving statistics it holds, the loss-scale
// state, the half copies of its weights the passes read, and what an update does with them: the
// reduction across replicas, the optimizer step and the rounding after it. Its memory is
// allocated at construction and the lists of trees a reduction combines at the first one; after
// that an update allocates nothing. Its files, by concern: setup and the program's view
// (weight_update.cpp), the update itself (weight_update_step.cpp), sharded state and weights
// (weight_sharding.cpp), the checkpoints' view (weight_update_state.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "core/half_round.hpp"
#include "core/ir/graph.hpp"
#include "core/optim/loss_scale.hpp"
#include "core/optim/optimizer.hpp"
#include "engine/cluster/device_memory.hpp"
#include "engine/cluster/grad_tree.hpp"
#include "planner/plan.hpp"
#include "planner/sharding.hpp"

namespace iputrain::engine {

using namespace iputrain::optim;  // the optimizers, their schedules and clipping (core/optim)

struct ClusterShared;
class WorkerObserver;

//! A reduction's trees: per gradient part (or statistic), the R replicas' trees and its size.
using ReduceParts = std::vector<std::pair<const std::vector<GradTree*>*, int64_t>>;

class WeightUpdate {
 public:
  //! Where a gradient part of an updated parameter accumulates (program compilation: who pushes
  //! its micro-batches' leaves into `tree`).
  struct Accumulator {
    ir::ValueId param;
    ir::ValueId part;
    GradTree* tree;
    bool host = false;  //!< a host table's gradient (planner/host_tables.hpp): pushed as it is made
  };
  //! A moving statistic this IPU holds: the forward task that computes `statistic` pushes it.
  struct StatisticTree {
    ir::ValueId state;
    ir::ValueId statistic;
    GradTree* tree;
  };

  //! Allocates the state of what IPU `ipu` of `replica` updates, its weights being in `memory`.
  //! Its meetings with the other replicas are timed by `observer`'s simulated clock; `rounding`
  //! is the half compute type's (none: f32 compute).
  WeightUpdate(ClusterShared& shared, int32_t replica, int32_t ipu, const DeviceMemory& memory,
               const WorkerObserver& observer, const std::optional<HalfRounding>& rounding);
  WeightUpdate(const WeightUpdate&) = delete;
  WeightUpdate& operator=(const WeightUpdate&) = delete;

  // Program compilation.
  //! Every gradient part accumulated here, parameter by parameter (none without accumulators:
  //! the optimizer reads micro-batch 0's gradient buffers).
  std::vector<Accumulator> accumulators() const;
  std::vector<StatisticTree> statistics() const;
  //! Half compute: the copies of this IPU's weights the passes read instead of the weights.
  std::map<ir::ValueId, ir::Tensor> weight_copies() const;
  //! Which of the updated parameters `p` is, for gather(); none if this IPU does not update it.
  std::optional<size_t> find(ir::ValueId p) const;
  //! What the memory account holds for the accumulators and the optimizer state.
  int64_t accumulator_bytes() const { return accumulator_bytes_; }
  int64_t optimizer_state_bytes() const { return state_bytes_; }
  //! Registers this IPU's trees and weights in the shared tables (after every worker exists).
  void publish_trees();

  // Execution.
  //! Sharded weights, at the start of an execution: takes this replica's shards from the weights
  //! the host holds (initialised, loaded or gathered after the last execution).
  void begin_execution();
  //! Sharded weights, at its end: gathers the whole weights, which the host reads.
  void end_execution();
  //! Before an update's first instruction: empties the trees, rounds the master weights into the
  //! copies the passes read and writes the loss scale into the backward pass's seed.
  void begin_update();
  //! Sharded weights: gathers updated parameter `k` (find()) from the replicas' shards into its
  //! buffer (and its half copy), before a task that reads it.
  void gather(size_t k);
  //! Reduces the plan's bucket `bucket` across replicas; returns when the reduction could start
  //! on the simulated clock (every replica there).
  double reduce(int32_t bucket);
  //! The optimizer step of update `update`, `overflows` being the task results of this worker
  //! that overflowed in it (dynamic loss scaling: every worker skips if any overflowed).
  void update(int64_t update, int64_t overflows);

  // The cluster's and the checkpoints' view (weight_update_state.cpp).
  //! The loss-scale state after the last update (identical on every worker).
  const LossScaleState& loss_scale() const { return loss_scale_; }
  void set_loss_scale(const LossScaleState& s) { loss_scale_ = s; }
  //! Optimizer state of parameter `p`: its state arrays one after the other (sharded: each array's
  //! block, state_block(p).size() floats); empty if this IPU does not update `p`.
  std::span<float> optimizer_state(ir::ValueId p);
  //! The elements of `p` whose optimizer state this worker holds (all of them unless sharded).
  planner::ShardRange state_block(ir::ValueId p) const;

 private:
  struct ParamState {
    ir::ValueId param;
    int64_t index;                                 // in Graph::params
    planner::GradParts parts;                      // the gradient's parts, each accumulated on its own
    std::vector<std::unique_ptr<GradTree>> trees;  // one per part; none: the optimizer reads the gradient buffers
    std::vector<const float*> unaccumulated;       // without trees: micro-batch 0's part buffers
    std::vector<ParamSlot> slot;                   // one entry: what sum_of_squares() and update() read
    float* sum_f32 = nullptr;           // f16 accumulators or several parts: where the roots are widened and summed
    planner::ShardRange block;          // the elements this replica updates (all unless the state is sharded)
    float* shard = nullptr;             // sharded weights: this replica's block of the weight, what it keeps
    int32_t copy = -1;                  // its entry in weight_copies_ (half compute), else -1
    int64_t grain_base = 0;             // where the tensor's grains start in ClusterShared::grain_sums
    std::vector<int64_t> state_arrays;  // floats of each optimizer state array it holds (sharded: its block)
    int64_t state_floats = 0;           // their sum
  };

  //! Where build_params places the next parameter's memory, and the grains so far.
  struct Cursors {
    std::byte* accumulators;
    std::byte* state;
    std::byte* widened;
    std::byte* shard;
    int64_t grains;
  };

  //! TensorSums over the replicas' blocks: each posts its grains' sums, all add every grain in order.
  class ShardSums final : public TensorSums {
   public:
    explicit ShardSums(WeightUpdate& u) : u_(u) {}
    void complete(const std::vector<ParamSlot>& params, int32_t quantities, std::span<const double> grains,
                  std::span<double> totals) override;

   private:
    WeightUpdate& u_;
  };

  //! A moving statistic this IPU holds: its state and the canonical tree of its leaves.
  struct StatisticState {
    ir::ValueId state;
    ir::ValueId statistic;  // the moving_average node, pushed right after its forward kernel
    double momentum;
    float* value;  // the state's buffer
    std::unique_ptr<GradTree> tree;
  };

  //! With half compute: a weight and the copy of it the passes read.
  struct WeightCopy {
    ir::ValueId param;
    const float* master;
    float* copy;
    int64_t size;
    bool gathered = false;  // a sharded weight: its copy is made when the weight is gathered
  };

  void build_params();
  //! Sets up updated parameter `k` (of Graph::params): its trees, gradient, state and shard.
  void add_param(size_t k, int32_t depth, DType acc, int32_t shards, Cursors& next);
  void build_statistics();
  void build_weight_copies();
  //! Whether any worker overflowed in this update (dynamic loss scaling; every worker takes part).
  bool any_overflow(int64_t overflows);
  //! The trees of every gradient part of `bucket`'s parameters, in the bucket's order.
  ReduceParts bucket_trees(int32_t bucket) const;
  //! Combines the replicas' trees of `parts` into the root of every tree, each replica computing
  //! a share of the elements; returns as reduce().
  double reduce_parts(const ReduceParts& parts, ReduceScratch& scratch);
  //! Leaves the sum of every moving statistic's leaves of the update in its tree's slot 0.
  void sum_statistics();
  //! state = state * momentum + mean statistic * (1 - momentum) (planner/moving_statistics.hpp).
  void update_statistics();
  //! Sharded state: reduces this replica's block of every gradient part of `bucket` into its own
  //! trees (reduce-scatter); returns as reduce().
  double reduce_blocks(int32_t bucket);
  //! Sharded state: copies the other replicas' updated blocks into this replica's weights.
  void gather_weights();
  //! Per updated parameter, the sum of squares of its (whole) gradient as stored, through `sums`.
  void gradient_squares(TensorSums& sums);
  //! Stores weights without an f32 master, and half optimizer moments, in their type.
  void round_after_update(int64_t update);

  ClusterShared& shared_;
  const planner::Plan& plan_;
  int32_t replica_;
  int32_t ipu_;
  int32_t index_;  // local replica * ipus + ipu: this worker in the stall detector
  int32_t local_;  // replica_ - first_replica: this worker at its instance's meeting points
  const DeviceMemory& memory_;
  const WorkerObserver& observer_;
  std::optional<HalfRounding> rounding_;  // f16/bf16 compute: its type, what the weights' copies are rounded to

  std::vector<ParamState> params_;
  AlignedBlock shards_;           // sharded weights: every ParamState::shard
  std::vector<ParamSlot> slots_;  // every updated parameter, for the optimizer
  std::vector<StatisticState> statistics_;
  AlignedBlock statistic_sums_;
  std::unique_ptr<ReduceScratch> statistic_scratch_;
  AlignedBlock accumulators_;
  AlignedBlock optimizer_state_;
  AlignedBlock widened_roots_;
  int64_t accumulator_bytes_ = 0;  // what the memory account counts (FixedBytes)
  int64_t state_bytes_ = 0;
  std::unique_ptr<Optimizer> optimizer_;
  std::unique_ptr<TensorSums> sums_;  // LocalSums, or ShardSums when the state is sharded
  std::vector<double> clip_grains_;   // gradient_squares()' working memory
  std::vector<double> clip_totals_;
  // Sharded state: per bucket, this replica's block of each gradient part of the bucket.
  std::vector<std::vector<std::pair<const std::vector<GradTree*>*, planner::ShardRange>>> bucket_blocks_;
  std::unique_ptr<ReduceScratch> reduce_scratch_;
  // Per bucket of the plan, and for the moving statistics: the trees a reduction combines, listed
  // at the first reduction (every worker has published its trees by then) and kept.
  std::vector<ReduceParts> bucket_parts_;
  ReduceParts statistic_parts_;
  LossScaleState loss_scale_;
  std::vector<WeightCopy> weight_copies_;
  AlignedBlock weight_copy_memory_;
  ir::Tensor loss_seed_;  // null data: the seed is not on this IPU
};

}  // namespace iputrain::engine
