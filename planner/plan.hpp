// The Plan: what the planner hands the engine. The training graph (forward + backward) and the
// gradient of every parameter; where each stage runs (placement, replicas); the schedule of one
// accumulation cycle; the per-IPU programs; and what the plan costs (memory, cycles).
#pragma once

#include <array>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/graph.hpp"
#include "iputrain/settings.hpp"
#include "planner/autodiff.hpp"
#include "planner/cost_model.hpp"
#include "planner/device_program.hpp"
#include "planner/moving_statistics.hpp"
#include "planner/op_temporaries.hpp"
#include "planner/precision.hpp"
#include "planner/timeline.hpp"
#include "planner/topology.hpp"

namespace iputrain::planner {

//! How long one pass took, for `--time-passes` style reports.
struct PassTiming {
  std::string pass;
  double ms = 0;
};

//! What the place pass decided against the model (planner/placement.cpp, `decide`): what the
//! config leaves open or resolves only for the model's stages and the schedule. Nothing here
//! copies a setting; the config's own choices are read from `Plan::settings`.
struct PlanDecisions {
  bool training = true;
  bool pipelined = false;
  //! The schedule run: the one asked for, or sequential under batch serialization.
  ScheduleKind schedule = ScheduleKind::Grouped;
  int64_t accumulation_count = 1;  //!< micro-batches per weight update, per replica (slices, under batch serialization)
  Recomputation recompute = Recomputation::Off;  //!< never Auto: resolved for the schedule
  bool shard_optimizer_state = false;     //!< each replica keeps 1/R of the state (replicated tensor sharding)
  //! Each replica keeps 1/R of every trained weight between uses (replicated_weight_sharding,
  //! resolved: "auto" is on for the sequential schedule with batch serialization); implies the
  //! state sharding's update (planner/sharding.hpp).
  bool shard_weights = false;
  bool offload_weights = false;           //!< sharded weights' blocks in remote memory between uses
  bool offload_optimizer_state = false;   //!< offload_weight_update_variables ("auto": off)
  bool offload_accumulators = false;      //!< offload_gradient_accumulation_buffers ("auto": off)
  DeviceModel device;                     //!< the IPU model: the config's device, precision and I/O tiles
};

//! The accumulators' type (pipeline.gradient_accumulation_dtype).
//! "same" is each variable's type, and variables are f32.
inline DType accumulation_dtype(const Settings& s) {
  return s.plain.pipeline_gradient_accumulation_dtype == AccumulatorType::Fp16 ? DType::F16 : DType::F32;
}
//! What each optimizer moment is kept in (optimizer.state_dtype).
inline DType state_dtype_of(const Settings& s) { return dtype_of(s.plain.optimizer_state_dtype); }

//! Where things run. IPU numbers are logical (within a replica) unless said otherwise.
struct Placement {
  Pipeline pipeline;                              //!< positions, stage -> IPU, IPUs per replica
  int32_t replicas = 1;
  std::vector<std::vector<int32_t>> physical;     //!< [replica][ipu] -> physical IPU id
  std::vector<int32_t> param_ipu;                 //!< per Graph::params entry
  //! Processes the replicas are spread over (ipu.experimental.multi_replica_distribution.process_count,
  //! filled from mpirun): instance k holds replicas k R / instances .. (k + 1) R / instances - 1,
  //! every IPU of a replica in one instance.
  int32_t instances = 1;
  int32_t replicas_per_instance() const { return replicas / instances; }
  Topology topology;  //!< the system around the IPUs: the collectives' levels, the hosts
};

//! Bytes on one IPU (logical index; every replica holds the same).
struct IpuMemory {
  int64_t weights = 0;
  int64_t optimizer_state = 0;      //!< 0 when offloaded to host memory
  int64_t optimizer_state_offloaded = 0;
  int64_t weights_offloaded = 0;    //!< in host memory: f32 master weights (training.master_weights), offloaded weight shards
  int64_t accumulators = 0;          //!< 0 when offloaded
  int64_t accumulators_offloaded = 0; //!< in remote (host) memory instead
  int64_t activations_peak = 0;     //!< the arena: stashed, received and in-task values, packed by liveness
  int64_t activations_live = 0;     //!< most arena bytes in use at one moment (the arena less its packing loss)
  int64_t io_buffers = 0;           //!< message channels, infeed and outfeed staging
  int64_t feed_staging = 0;         //!< the infeed and outfeed staging within io_buffers
  int64_t io_tiles_capacity = 0;    //!< data memory of the I/O tiles holding the staging (0: none)
  int64_t total_peak = 0;
  int64_t capacity = 0;
  //! Host tables (planner/host_tables.hpp) this IPU looks up: the tables, their gradients,
  //! accumulators and optimizer state, in host memory (not in total_peak).
  int64_t host_tables = 0;
  int64_t host_rows_in = 0;           //!< rows the host gathers and streams to the IPU, per micro-batch
  int64_t host_grads_out = 0;         //!< row gradients streamed back to the host, per micro-batch
  std::vector<int64_t> per_timestep;  //!< total bytes at each timestep of the cycle
  //! The six largest contributors at the peak: (what, bytes), largest first.
  std::vector<std::pair<std::string, int64_t>> contributors;
};

//! Where one weight update's time goes, in seconds: the busiest IPU of a replica (its busy time by
//! kind plus its idle time add up to the IPUs' part), the host's round trip, and the hosts' feed,
//! which overlaps the IPUs and bounds the update when it is slower.
struct UpdateBreakdown {
  double compute = 0;                   //!< kernels: tasks, accumulation, optimizer
  double exchange = 0;                  //!< in-IPU exchange: operands moved between tiles
  double sync = 0;                      //!< synchronisations and compute-set launches on the IPU
  double pipeline = 0;                  //!< transfers between the IPUs of a replica
  std::array<double, 3> collectives{};  //!< cross-replica: in a machine, over IPU-Links, over GW-Links
  double remote_memory = 0;             //!< streaming memory: offloaded state, weights, accumulators
  double host_io = 0;                   //!< infeed and outfeed on the IPU's clock
  double idle = 0;                      //!< waiting: the pipeline's bubble and its transfers
  double host_sync = 0;                 //!< the host's round trip, per update
  double host_feed = 0;                 //!< the hosts' time for the update's samples: network or CPU
  double host_network = 0;              //!< of which the network's (the samples' bytes over the links)
  double host_cpu = 0;                  //!< and the CPUs' (system.host_samples_per_second; 0 if not declared)
  std::string bound;                    //!< the largest of them (host feed only when it bounds)
};

//! What the plan costs in time on the emulated hardware.
struct CostReport {
  double cycles_per_update = 0;          //!< one accumulation cycle incl. reduce and update
  double samples_per_second = 0;         //!< all replicas
  double bubble_fraction = 0;            //!< from the simulated timeline
  double analytic_bubble_fraction = 0;   //!< the schedule's formula
  std::vector<double> utilisation;       //!< per IPU: busy share of the cycle
  double link_bytes_per_update = 0;      //!< inter-IPU traffic within a replica
  double reduce_bytes_per_update = 0;    //!< cross-replica traffic per replica (reduce-scatter only when sharded)
  double gather_bytes_per_update = 0;    //!< sharded optimizer state: the new weights all-gathered, per replica
  //! The model's own collectives (cross_replica_sum, all_gather, …): what each replica sends in one
  //! update over all their runs (planner/collectives.hpp); 0 when the model has none.
  double model_collective_bytes_per_update = 0;
  double seconds_per_update = 0;         //!< the IPUs' cycles in seconds, or the hosts' feed when slower
  double feed_bytes_per_update = 0;      //!< infeed and outfeed bytes of every replica together
  //! Host tables' ids to the hosts, rows to the IPUs and row gradients back, every replica together
  double host_table_bytes_per_update = 0;
  UpdateBreakdown breakdown;
};

struct Plan {
  ir::Graph graph;                         //!< forward graph with the backward graph appended
  std::vector<GradParts> grads;            //!< per graph.params entry: its gradient's parts (none if unused)
  //! The non-trainable parameters that follow a statistic of the training program (training only).
  std::vector<MovingStatistic> moving_statistics;
  std::vector<ir::ValueId> train_program;  //!< nodes run for one training micro-batch, in order
  std::vector<ir::ValueId> eval_program;   //!< nodes run to compute the outputs only
  std::vector<PassTiming> timings;

  //! The config resolved once (config::resolve); an inference plan clears its optimizer and its
  //! offload of optimizer state and accumulators, as nothing is updated.
  Settings settings;
  PlanDecisions decided;  //!< what the place pass decided against the model
  Placement placement;
  Timeline timeline;          //!< one accumulation cycle (training) on the IPUs of one replica
  DevicePrograms programs;    //!< per-IPU instruction lists of one cycle
  std::vector<IpuMemory> memory;  //!< per IPU of a replica
  CostReport cost;
  //! With PlanOptions::keep_unfit, a plan that does not fit in memory: the error it would have
  //! raised (its cost was not simulated). Empty when it fits.
  std::string unfit;

  //! The nodes one micro-batch runs: the training program, or the forward program of an inference plan.
  const std::vector<ir::ValueId>& program() const { return decided.training ? train_program : eval_program; }
  int64_t micro_batch() const;                     //!< samples per micro-batch (the inputs' leading dim)
  int64_t global_batch() const;                    //!< micro-batch x accumulation x replicas
  //! Matmul and convolution temporaries of `stage` in `phase` (planner/op_temporaries.hpp): the
  //! stage's poplar options, or the ipu.matmuls / ipu.convolutions ones for a stage without.
  const StageLimits& limits(int32_t stage, ir::Phase phase) const {
    const auto& list =
        phase == ir::Phase::Forward ? settings.pipeline.forward_memory : settings.pipeline.backward_memory;
    return stage >= 0 && static_cast<size_t>(stage) < list.size() ? list[static_cast<size_t>(stage)]
                                                                  : settings.pipeline.memory;
  }
  int32_t num_ipus() const { return placement.replicas * placement.pipeline.ipus_per_replica; }
};

//! Options that steer the pass list (dumps, disabled passes).
struct PlanOptions {
  std::vector<std::string> dump_after;  //!< pass names whose resulting plan is appended to `dumps`
  std::string* dumps = nullptr;
  //! Plan the forward program only, as `eval` and `predict` run it (a model's `minimize` is
  //! ignored): stages on their IPUs, micro-batches pipelined, replicas splitting the data.
  bool inference = false;
  //! Keep the per-sample outputs (`output per_sample`), as `predict` does. Training and evaluation
  //! plans leave them out: they are predictions, not metrics, so no program computes them there.
  bool predict = false;
  //! Stop with Error(Plan, kPlanAbandoned) at the first pass boundary after this time.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  //! A plan that does not fit in memory is returned with Plan::unfit set instead of raising.
  bool keep_unfit = false;
};

//! One row of the pass table make_plan walks: what the pass reads and writes of the plan.
struct PassInfo {
  std::string name;
  std::string reads;    //!< parts of the plan (and its settings) the pass reads
  std::string writes;   //!< parts of the plan it fills or changes ("-": none)
  std::string purpose;  //!< one line
};

//! The pass table, in the order the passes run (`iputrain plan --explain-passes`).
const std::vector<PassInfo>& passes();

//! The names of the passes, in the order they run (for `--dump-after` checking and help).
const std::vector<std::string>& pass_names();

//! Runs the pass list on a copy of the model's forward graph under `settings` (the config
//! resolved once, config::resolve). Throws Error(Config) at the key (Settings::keys) when the
//! config does not suit the model, or Error(Plan) (e.g. a plan that does not fit).
Plan make_plan(const ir::Graph& forward, const Settings& settings, const PlanOptions& options = {});

}  // namespace iputrain::planner
