// One virtual IPU of the cluster: its memory, its compiled tasks, gradient accumulators and
// optimizer state, and its instruction list resolved into direct pointers, so that running a
// cycle neither allocates nor looks anything up. Its files, by seam: setup and the execution
// loop (worker.cpp), program compilation (worker_program.cpp), the update part: accumulation
// trees, reduction, optimizer step, rounding, moving statistics (worker_update.cpp, sharded
// variants worker_sharding.cpp, checkpoint view worker_state.cpp); measurement is its
// WorkerObserver's (worker_observer.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/cluster/device_memory.hpp"
#include "engine/cluster/grad_tree.hpp"
#include "engine/cluster/host_outfeed.hpp"
#include "engine/cluster/mailbox.hpp"
#include "engine/cluster/memory_account.hpp"
#include "engine/cluster/recorder.hpp"
#include "engine/cluster/rendezvous.hpp"
#include "engine/cluster/stall_detector.hpp"
#include "engine/cluster/task_program.hpp"
#include "engine/cluster/worker_observer.hpp"
#include "engine/distributed/instance_link.hpp"
#include "engine/infeed.hpp"
#include "engine/optim/loss_scale.hpp"
#include "engine/optim/optimizer.hpp"
#include "planner/plan.hpp"
#include "planner/sharding.hpp"

namespace iputrain::engine {

//! IPUs of a replica that take input from the host (each gets an infeed and a trace track).
int32_t feeding_ipus(const planner::Plan& plan);

//! A reduction's trees: per gradient part (or statistic), the R replicas' trees and its size.
using ReduceParts = std::vector<std::pair<const std::vector<GradTree*>*, int64_t>>;

//! What the workers share: the links, the meeting points and the host queues.
struct ClusterShared {
  //! `instance`: which of the plan's instances this process is (its replicas, placement.instances).
  ClusterShared(const planner::Plan& plan, Settings settings, int32_t instance = 0);

  const planner::Plan& plan;
  const Settings settings;
  int32_t replicas;           //!< R: every instance's replicas (the plan's)
  int32_t first_replica = 0;  //!< this instance's first replica (several instances: engine/distributed/)
  int32_t local_replicas;     //!< the replicas this instance holds, from first_replica on
  int32_t ipus;               //!< per replica
  int64_t micro_batches;      //!< A: per replica per update
  int64_t micro_batch_size;   //!< samples per micro-batch
  int64_t max_updates;        //!< per execution: steps_per_execution x pipeline.repeat_count
  int64_t prefetch_depth;     //!< micro-batches each infeed prepares ahead
  //! [replica * ipus + ipu]: the rank of that worker's physical IPU among the device's, which
  //! orders the tracks and the run report (physical ids need not be 0 .. n - 1: ipu.select_ipus).
  std::vector<int32_t> slot;
  std::vector<std::unique_ptr<Mailbox>> mailboxes;  //!< [local replica * channels + channel]
  std::map<std::pair<int32_t, int32_t>, int32_t> channel_index;  //!< (from, to) -> plan channel
  std::vector<std::unique_ptr<Rendezvous>> reduce_meet;  //!< per IPU of a replica: its local replicas
  std::vector<std::unique_ptr<Rendezvous>> clip_meet;    //!< per local replica: its IPUs
  //! Every worker of every replica, once per update under dynamic loss scaling: did any of its
  //! results or gradients overflow? All skip the update together.
  std::unique_ptr<Rendezvous> overflow_meet;
  //! Per local replica, two generations (update parity) of per-parameter sums of squared gradients.
  std::vector<std::array<std::vector<double>, 2>> clip_squares;
  //! Per IPU of a replica, per gradient part (its value): the replicas' accumulation trees, all R
  //! of them; another instance's are stand-ins filled over the link (instance_reduce.cpp).
  std::vector<std::map<ir::ValueId, std::vector<GradTree*>>> trees;
  //! Several instances: the link to the others, and the stand-ins for their replicas' trees.
  std::unique_ptr<InstanceLink> link;
  std::vector<std::unique_ptr<GradTree>> remote_trees;
  std::vector<std::vector<char>> remote_storage;
  bool overflow_anywhere = false;  //!< any_overflow() over every instance, set by worker 0
  //! pipeline.replicated_optimizer_state_sharding with R > 1: each replica updates one block of
  //! every tensor (planner/sharding.hpp) and the blocks are all-gathered (worker_sharding.cpp).
  bool shard_state = false;
  //! pipeline.replicated_weight_sharding with R > 1: each replica keeps only its block of every
  //! trained weight (its shard) between uses; a task gathers the full weights it reads first.
  bool shard_weights = false;
  //! Per IPU of a replica, per updated parameter: the replicas' weights (sharded state: for the
  //! all-gather after the update), or their shards (sharded weights: for the gathers before tasks).
  std::vector<std::map<ir::ValueId, std::vector<float*>>> replica_weights;
  //! Per IPU of a replica: the grains' sums of squares of its tensors (TensorSums under sharding).
  std::vector<std::vector<double>> grain_sums;
  std::unique_ptr<HostOutfeed> outfeed;
  std::unique_ptr<StallDetector> detector;  //!< workers indexed local replica * ipus + ipu
  Recorder recorder;
  int64_t outputs = 0;              //!< graph outputs: StepRecord values per update
  //! What trapped errors call the run: "training", or "evaluation"/"prediction" on an inference plan.
  std::string run_label = "training";

  Mailbox& mailbox(int32_t replica, int32_t from, int32_t to) const;
  int32_t local(int32_t replica) const { return replica - first_replica; }
};

class Worker {
 public:
  Worker(ClusterShared& shared, int32_t replica, int32_t ipu);

  int32_t replica() const { return replica_; }
  int32_t ipu() const { return ipu_; }
  int32_t physical() const { return physical_; }
  //! Where this worker's track and report entry are (ClusterShared::slot).
  int32_t slot() const { return shared_.slot.at(static_cast<size_t>(replica_ * shared_.ipus + ipu_)); }
  const DeviceMemory& memory() const { return memory_; }
  int32_t infeed_values() const { return static_cast<int32_t>(infeed_inputs_.size()); }
  //! The graph inputs this IPU takes from the host feed, in Infeed order.
  const std::vector<ir::ValueId>& infeed_inputs() const { return infeed_inputs_; }
  void set_feed(Infeed* feed) { feed_ = feed; }
  //! The recorder track of this IPU's infeed (-1: it takes no input from the host).
  int32_t feed_track() const { return feed_track_; }
  bool keep_events() const { return observer_.keep_events(); }
  //! Registers this worker's accumulation trees in shared.trees (after every worker exists).
  void publish_trees();

  //! Runs weight updates first .. first + count - 1 (the execution's updates 0 .. count - 1).
  void run(int64_t first, int64_t count);

  double step_sum(int64_t local, size_t k) const { return records_[static_cast<size_t>(local) * shared_.outputs + k]; }
  const UpdateWindow& window(int64_t local) const { return observer_.window(local); }
  double sim_clock() const { return observer_.sim(); }
  double sim_busy() const { return observer_.sim_busy(); }
  const MemoryGauge& gauge() const { return observer_.gauge(); }
  const FixedBytes& fixed() const { return fixed_; }
  int64_t capacity() const { return observer_.capacity(); }
  void record_events(bool on) { observer_.record_events(on); }
  //! The loss-scale state after the last update (identical on every worker).
  const LossScaleState& loss_scale() const { return loss_scale_; }
  void set_loss_scale(const LossScaleState& s) { loss_scale_ = s; }
  //! Optimizer state of parameter `p` for checkpoints (worker_state.cpp): its state slots one
  //! after the other, each state_block(p).size() floats (numel(p) unless the state is sharded);
  //! empty if this IPU does not update `p`.
  std::span<float> optimizer_state(ir::ValueId p);
  //! The elements of `p` whose optimizer state this worker holds (all of them unless sharded).
  planner::ShardRange state_block(ir::ValueId p) const;
  int32_t optimizer_state_slots() const;

 private:
  struct Copy {
    std::byte* device;  // the buffer copy of this instruction's micro-batch
    size_t bytes;
    size_t offset;      // within the message slot or the infeed field
  };
  struct Leaf {
    GradTree* tree;
    const float* grad;
  };
  struct OutfeedItem {
    ir::Tensor value;
    int32_t output = -1;  // index into Graph::outputs, or -1
    int32_t queue = -1;   // index into the host outfeed's values, or -1
  };
  struct Op {
    const planner::Instr* instr;
    planner::InstrKind kind;
    int64_t m;
    const TaskProgram* task = nullptr;
    Mailbox* mailbox = nullptr;
    std::vector<Copy> copies;
    std::vector<Leaf> leaves;
    std::vector<OutfeedItem> outs;
    std::vector<size_t> gathers;  // sharded weights: the params_ entries this task gathers first
    double cycles = 0;
    int64_t acquire = 0;
    int64_t release = 0;
    int64_t top = 0;
  };
  struct ParamState {
    ir::ValueId param;
    int64_t index;                  // in Graph::params
    planner::GradParts parts;       // the gradient's parts, each accumulated on its own
    std::vector<std::unique_ptr<GradTree>> trees;  // one per part; none: the optimizer reads the gradient buffers
    std::vector<const float*> unaccumulated;       // without trees: micro-batch 0's part buffers
    std::vector<ParamSlot> slot;    // one entry: what sum_of_squares() and update() read
    float* sum_f32 = nullptr;       // f16 accumulators or several parts: where the roots are widened and summed
    planner::ShardRange block;      // the elements this replica updates (all unless the state is sharded)
    float* shard = nullptr;         // sharded weights: this replica's block of the weight, what it keeps
    int32_t copy = -1;              // its entry in weight_copies_ (half compute), else -1
    int64_t grain_base = 0;         // where the tensor's grains start in ClusterShared::grain_sums
  };

  //! TensorSums over the replicas' blocks: each posts its grains' sums, all add every grain in order.
  class ShardSums final : public TensorSums {
   public:
    explicit ShardSums(Worker& w) : w_(w) {}
    void complete(const std::vector<ParamSlot>& params, int32_t quantities, std::span<const double> grains,
                  std::span<double> totals) override;

   private:
    Worker& w_;
  };

  //! A moving statistic this IPU holds: its state and the canonical tree of its leaves.
  struct StatisticState {
    ir::ValueId state;
    ir::ValueId statistic;  // the moving_average node, pushed right after its forward kernel
    double momentum;
    float* value;  // the state's buffer
    std::unique_ptr<GradTree> tree;
  };

  //! With half compute: the copies of this IPU's weights the passes read, to substitute for them.
  std::map<ir::ValueId, ir::Tensor> build_weight_copies();
  void build_params();
  void build_statistics();
  //! Resolves the IPU's instruction list into ops_ (worker_program.cpp).
  void build_ops(const std::map<ir::ValueId, ir::Tensor>& substitutes);
  struct ProgramContext;
  void build_op(Op& op, int32_t pos, ProgramContext& ctx);
  void build_task(Op& op, int32_t pos, ProgramContext& ctx);
  void build_transfer(Op& op, int32_t pos);
  void build_accumulate(Op& op, int32_t pos);
  //! The fixed bytes the memory account counts for buffers, links and feeds (after build_ops()).
  void count_fixed_bytes();
  void name_feed_track();
  //! Rounds the master weights into the copies the passes read and writes the loss scale into
  //! the backward pass's seed: what an update reads besides its data.
  void prepare_update();
  //! Whether any worker overflowed in this update (dynamic loss scaling; every worker takes part).
  bool any_overflow();
  void run_update(int64_t update, int64_t local);
  void execute(Op& op, int64_t update, int64_t local);
  //! Reduces the plan's bucket `bucket` across replicas; returns when the reduction could start
  //! on the simulated clock (every replica there).
  double reduce(int32_t bucket);
  //! A reduction's trees: per gradient part (or statistic), the replicas' trees and its size.
  using ReduceParts = engine::ReduceParts;
  //! The trees of every gradient part of `bucket`'s parameters, in the bucket's order.
  ReduceParts bucket_trees(int32_t bucket) const;
  //! Combines the replicas' trees of `parts` into the root of every tree, each replica computing
  //! a share of the elements; returns as reduce().
  double reduce_parts(const ReduceParts& parts, ReduceScratch& scratch);
  //! Leaves the sum of every moving statistic's leaves of the update in its tree's slot 0.
  void sum_statistics();
  //! state = state * momentum + mean statistic * (1 - momentum) (planner/moving_statistics.hpp).
  void update_statistics();
  void update_weights(int64_t update);
  //! Sharded state: reduces this replica's block of every gradient part of `bucket` into its own
  //! trees (reduce-scatter); returns as reduce().
  double reduce_blocks(int32_t bucket);
  //! Sharded state: copies the other replicas' updated blocks into this replica's weights.
  void gather_weights();
  //! Sharded weights: which weights each task gathers (after build_ops()).
  void build_gathers();
  //! Sharded weights: gathers the full weight `ps` from the replicas' shards into its buffer (and
  //! its half copy), before a task that reads it and after an execution for the host.
  void gather_param(const ParamState& ps);
  //! Sharded weights, at the start of an execution: takes this replica's shards from the weights
  //! the host holds (initialised, loaded or gathered after the last execution).
  void load_shards();
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
  int32_t physical_;
  WorkerObserver observer_;
  DeviceMemory memory_;
  AlignedBlock workspace_;
  std::vector<std::unique_ptr<TaskProgram>> tasks_;  // one per task instruction of the program
  std::vector<ParamState> params_;
  AlignedBlock shards_;  // sharded weights: every ParamState::shard
  std::vector<ParamSlot> slots_;  // every updated parameter, for the optimizer
  std::vector<StatisticState> statistics_;
  AlignedBlock statistic_sums_;
  std::unique_ptr<ReduceScratch> statistic_scratch_;
  AlignedBlock accumulators_;
  AlignedBlock optimizer_state_;
  AlignedBlock widened_roots_;
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
  std::vector<Op> ops_;
  std::vector<ir::ValueId> infeed_inputs_;
  Infeed* feed_ = nullptr;
  int32_t feed_track_ = -1;
  LossScaleState loss_scale_;
  std::optional<HalfRounding> rounding_;  // f16/bf16 compute: how every task result is rounded
  FpTraps traps_;  // ipu.floating_point_behaviour.inv|div0|oflo: check every task result
  struct WeightCopy {
    const float* master;
    float* copy;
    int64_t size;
    bool gathered = false;  // a sharded weight: its copy is made when the weight is gathered
  };
  std::vector<WeightCopy> weight_copies_;
  AlignedBlock weight_copy_memory_;
  ir::Tensor loss_seed_;  // null data: the seed is not on this IPU
  int64_t overflows_ = 0;  // task results of this update that overflowed

  FixedBytes fixed_;
  std::vector<double> records_;  // [local update][output]
};

}  // namespace iputrain::engine
