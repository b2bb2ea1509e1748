// One virtual IPU of the cluster: its memory, its compiled tasks and its instruction list
// resolved into direct pointers, so that running a cycle neither allocates nor looks anything up.
// Its files, by seam: setup and the execution loop (worker.cpp), program compilation
// (worker_program.cpp). The update part (parameters, accumulation trees, reduction, optimizer
// state and step, loss scaling, rounding, moving statistics) is its WeightUpdate's
// (weight_update.hpp), measurement its WorkerObserver's (worker_observer.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/cluster/device_memory.hpp"
#include "engine/cluster/grad_tree.hpp"
#include "engine/cluster/host_outfeed.hpp"
#include "engine/cluster/mailbox.hpp"
#include "engine/cluster/memory_account.hpp"
#include "engine/cluster/recorder.hpp"
#include "engine/cluster/rendezvous.hpp"
#include "engine/cluster/replica_exchange.hpp"
#include "engine/cluster/stall_detector.hpp"
#include "engine/cluster/task_program.hpp"
#include "engine/cluster/weight_update.hpp"
#include "engine/cluster/worker_observer.hpp"
#include "engine/distributed/instance_link.hpp"
#include "engine/infeed.hpp"
#include "planner/plan.hpp"

namespace iputrain::engine {

//! IPUs of a replica that take input from the host (each gets an infeed and a trace track).
int32_t feeding_ipus(const planner::Plan& plan);

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
  //! Batches of one pass over the data the feeds read (a training epoch), where stateful layers'
  //! states are reset; 0: one pass from batch 0 on (inference).
  int64_t state_pass = 0;
  //! [replica * ipus + ipu]: the rank of that worker's physical IPU among the device's, which
  //! orders the tracks and the run report (physical ids need not be 0 .. n - 1: ipu.select_ipus).
  std::vector<int32_t> slot;
  std::vector<std::unique_ptr<Mailbox>> mailboxes;  //!< [local replica * channels + channel]
  std::map<std::pair<int32_t, int32_t>, int32_t> channel_index;  //!< (from, to) -> plan channel
  std::vector<std::unique_ptr<Rendezvous>> reduce_meet;  //!< per IPU of a replica: its local replicas
  std::vector<std::unique_ptr<Rendezvous>> clip_meet;    //!< per local replica: its IPUs
  //! Per IPU of a replica, with several replicas: where the model's collective ops meet.
  std::vector<std::unique_ptr<ExchangeStaging>> exchanges;
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
  //! every tensor (planner/sharding.hpp) and the blocks are all-gathered (weight_sharding.cpp).
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
  //! The graph inputs this IPU takes from the host feed, in Infeed order.
  const std::vector<ir::ValueId>& infeed_inputs() const { return infeed_inputs_; }
  void set_feed(Infeed* feed) { feed_ = feed; }
  //! The recorder track of this IPU's infeed (-1: it takes no input from the host).
  int32_t feed_track() const { return feed_track_; }
  bool keep_events() const { return observer_.keep_events(); }
  //! Its parameters' state and update: the cluster's and the checkpoints' view of them.
  WeightUpdate& weight_update() { return update_; }
  const WeightUpdate& weight_update() const { return update_; }

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
    std::vector<size_t> gathers;  // sharded weights: the weights this task gathers first (find())
    double cycles = 0;
    int64_t acquire = 0;
    int64_t release = 0;
    int64_t top = 0;
  };
  //! Resolves the IPU's instruction list into ops_ (worker_program.cpp).
  void build_ops(const std::map<ir::ValueId, ir::Tensor>& substitutes);
  struct ProgramContext;
  void build_op(Op& op, int32_t pos, ProgramContext& ctx);
  void build_task(Op& op, int32_t pos, ProgramContext& ctx);
  void build_transfer(Op& op, int32_t pos);
  void build_accumulate(Op& op, int32_t pos, const ProgramContext& ctx);
  //! Sharded weights: which weights each task gathers (after build_ops()).
  void build_gathers();
  //! The fixed bytes the memory account counts for buffers, links and feeds (after build_ops()).
  void count_fixed_bytes();
  void name_feed_track();
  void run_update(int64_t update, int64_t local);
  void execute(Op& op, int64_t update, int64_t local);

  ClusterShared& shared_;
  const planner::Plan& plan_;
  int32_t replica_;
  int32_t ipu_;
  int32_t index_;  // local replica * ipus + ipu: this worker in the stall detector
  int32_t physical_;
  WorkerObserver observer_;
  DeviceMemory memory_;
  std::optional<HalfRounding> rounding_;  // f16/bf16 compute: how every task result is rounded
  FpTraps traps_;                         // ipu.floating_point_behaviour.inv|div0|oflo: check every task result
  WeightUpdate update_;
  std::unique_ptr<ReplicaExchange> exchange_;  // with several replicas: the collective ops' link
  AlignedBlock workspace_;
  std::vector<std::unique_ptr<TaskProgram>> tasks_;  // one per task instruction of the program
  std::vector<Op> ops_;
  std::vector<ir::ValueId> infeed_inputs_;
  Infeed* feed_ = nullptr;
  int32_t feed_track_ = -1;
  int64_t overflows_ = 0;  // task results of this update that overflowed

  FixedBytes fixed_;
  std::vector<double> records_;  // [local update][output]
};

}  // namespace iputrain::engine
