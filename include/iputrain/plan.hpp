// iputrain — a plan: where a model's stages run on a cluster of IPUs under a config, what they hold
// in memory and how fast the schedule is predicted to go, before anything runs.
//
//   auto config = iputrain::config::load("configs/mnist_pipeline.toml");
//   auto model = iputrain::Model::load("examples/mnist_mlp.ipu", config);
//   auto plan = iputrain::Plan::make(model, config);
//   std::cout << plan.text();   // or json() for tools, dot() for Graphviz
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "iputrain/config.hpp"
#include "iputrain/model.hpp"

namespace iputrain {

struct PlanAccess;  // the engine's way to the planner's plan (api/plan_access.hpp)

//! Options for Plan::make.
struct PlanRequest {
  //! Pass names after which the planner's state is appended to Plan::dumps() (see
  //! Plan::pass_names()). An unknown name is an Error(Usage).
  std::vector<std::string> dump_after;
  //! Plan the forward program only, as `eval` and `predict` run it on the cluster (a training
  //! model's `minimize` is ignored): the forward timeline, its memory and samples/s.
  bool inference = false;
  //! When set, planning stops at the first pass boundary after this time: Plan::make throws
  //! Error(Plan) with kPlanAbandoned as its message (`iputrain tune` keeps to its budget so).
  std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt;
  //! Return a plan that does not fit in memory instead of throwing its Error(Plan): Plan::fits()
  //! is then false, memory() holds every IPU's peak as planned and no cost is simulated (samples/s
  //! 0). `iputrain tune` reads from it how far a candidate misses.
  bool keep_unfit = false;
};

//! One pass of the planner: what it reads and writes of the plan, and what it is for.
struct PassDescription {
  std::string name;
  std::string reads;
  std::string writes;
  std::string purpose;
};

//! Bytes one IPU of a replica holds at its peak (every replica holds the same).
struct PlanMemory {
  int64_t weights = 0;
  int64_t optimizer_state = 0;            //!< on the IPU; 0 when offloaded
  int64_t optimizer_state_offloaded = 0;  //!< in host memory instead
  int64_t accumulators = 0;               //!< gradient accumulation buffers
  int64_t activations_peak = 0;           //!< the activation arena (values packed by liveness)
  int64_t io_buffers = 0;                 //!< inter-IPU messages, infeed and outfeed staging
  int64_t total_peak = 0;
  int64_t capacity = 0;
  int64_t activations_live = 0;           //!< most arena bytes in use at one moment
  int64_t weights_offloaded = 0;          //!< in host memory: f32 master weights (training.master_weights), offloaded weight shards
  std::vector<int64_t> per_timestep;      //!< total bytes at each timestep of one cycle
  //! The largest contributors at the peak, largest first: (what, bytes).
  std::vector<std::pair<std::string, int64_t>> contributors;
};

//! One model stage as placed.
struct PlanStage {
  std::string name;
  int32_t position = 0;    //!< pipeline position (concurrent stages share one)
  int32_t ipu = 0;         //!< logical IPU within a replica
  int64_t parameters = 0;  //!< elements
  int64_t parameter_bytes = 0;
  double forward_cycles = 0;  //!< one micro-batch
  double backward_cycles = 0;  //!< one micro-batch (0 for inference)
  std::vector<int32_t> physical_ids;  //!< per replica: the physical IPU the stage runs on
};

//! "512 B", "1.5 KiB", "897.0 MiB", "2.00 GiB", as the reports print bytes.
std::string format_bytes(int64_t bytes);
//! `[###.......]` of `width` characters inside the brackets, '#' for the used share; a '!' in the
//! last place when `used` exceeds `capacity`.
std::string usage_bar(int64_t used, int64_t capacity, int width = 30);

//! The text report's parts, for tools that show one at a time (the REPL).
enum class PlanSection {
  Header,     //!< model, replicas x IPUs, schedule, accumulation, batch sizes
  Stages,     //!< stage -> IPU table
  Memory,     //!< bytes per IPU by kind, with a bar against the capacity
  Schedule,   //!< the timeline of one accumulation cycle
  Predicted,  //!< samples/s, utilisation, bubble fraction
};

class Plan {
 public:
  //! Plans `model` (loaded with Model::load(path, config)) under `config`. Throws
  //! iputrain::Error(Config or Plan) when the config cannot be placed, e.g. a plan that does not fit
  //! in memory; the message names the IPU and what would make it fit.
  static Plan make(const Model& model, const ResolvedConfig& config, const PlanRequest& request = {});
  //! The planner's passes, in the order they run (the values PlanRequest::dump_after accepts).
  static std::vector<std::string> pass_names();
  //! The planner's pass table, in the order the passes run (`iputrain plan --explain-passes`).
  static std::vector<PassDescription> passes();

  //! The whole report for people: every PlanSection in order.
  std::string text() const;
  std::string text(PlanSection section) const;
  //! The report for tools (see docs/cli.md, section `plan`, for the fields).
  std::string json() const;
  //! The stage graph in Graphviz DOT: stages clustered by IPU, edges carrying bytes per micro-batch.
  std::string dot() const;
  //! The schedule of one accumulation cycle as an SVG Gantt chart: a row per IPU, forward and
  //! backward boxes per micro-batch on the simulated clock, idle time visible.
  std::string gantt_svg() const;
  //! Bytes held per IPU over the timesteps of one cycle, as an SVG chart with the capacity.
  std::string memory_svg() const;
  //! One self-contained HTML page (no network): the summary, memory per IPU per timestep, the Gantt
  //! chart with details on hover, every op's cycles sortable by any column with the model's
  //! file:line, and `config` as resolved (`iputrain plan --html`).
  std::string html(const Config& config) const;
  //! The planner's state after each pass named in PlanRequest::dump_after ("" if none).
  const std::string& dumps() const;

  const std::string& model_name() const;
  int32_t replicas() const;
  int32_t ipus_per_replica() const;
  int32_t num_ipus() const;      //!< replicas x ipus_per_replica
  std::string schedule() const;  //!< "grouped", "interleaved" or "sequential"
  bool training() const;
  int64_t accumulation_count() const;  //!< micro-batches per weight update, per replica
  int64_t micro_batch() const;
  int64_t global_batch() const;  //!< micro-batch x accumulation count x replicas
  //! True when the model computes values that depend on the replica (its own collectives such as
  //! cross_replica_sum or a distributed batch norm, replication_index): its numbers then change
  //! with the replicas, and a reference run keeps them.
  bool replica_dependent() const;
  std::vector<PlanStage> stages() const;
  std::vector<PlanMemory> memory() const;   //!< per logical IPU of a replica
  std::vector<double> utilisation() const;  //!< per logical IPU: busy share of a weight update
  //! [replica][logical IPU] -> physical IPU id.
  std::vector<std::vector<int32_t>> physical_ipus() const;
  double samples_per_second() const;        //!< predicted, all replicas
  //! False only for a plan made with PlanRequest::keep_unfit that does not fit in memory;
  //! unfit_reason() then gives the error Plan::make would have raised.
  bool fits() const;
  std::string unfit_reason() const;
  double cycles_per_update() const;
  double bubble_fraction() const;           //!< from the simulated timeline
  double analytic_bubble_fraction() const;  //!< the schedule's formula


  struct Impl;

 private:
  explicit Plan(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
  friend struct PlanAccess;
};

}  // namespace iputrain
