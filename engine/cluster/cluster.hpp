// The virtual IPU cluster: runs a plan for real. One worker thread per virtual IPU (replicas x
// IPUs per replica) owns that IPU's memory and executes its instruction list
// (planner/device_program.hpp) once per weight update, exchanging messages with the other IPUs of
// its replica over bounded mailboxes and meeting the same IPU of the other replicas to reduce
// gradients. Every wait sleeps on a condition variable, so more virtual IPUs than cores work.
//
// The host drives it by executions (training.steps_per_execution updates per call): execute()
// wakes every worker, waits until all have run the updates, then publishes the execution's
// outfeed. Alongside the real run each worker keeps a simulated IPU clock (the planner's cycle
// model) and a memory account.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "core/optim/loss_scale.hpp"
#include "engine/cluster/host_outfeed.hpp"
#include "engine/cluster/recorder.hpp"
#include "engine/cluster/spread_tuner.hpp"
#include "engine/infeed.hpp"
#include "iputrain/session.hpp"
#include "iputrain/settings.hpp"
#include "planner/plan.hpp"

namespace iputrain::engine {

using namespace iputrain::optim;  // the optimizers, their schedules and clipping (core/optim)

class Worker;
struct ClusterShared;

//! Where train() gets its samples: the dataset, which field feeds each graph input, the sampler.
struct FeedSource {
  const data::Dataset* dataset = nullptr;
  std::vector<size_t> field_of_input;  //!< per Graph::inputs entry: index into dataset->fields()
  Sampler sampler;
};

class Cluster {
 public:
  //! Allocates every virtual IPU's memory, compiles its tasks and starts its worker (idle until
  //! execute()). Parameters start zeroed: the caller initialises them through param().
  //! With several instances (plan.placement.instances > 1, mpirun) this process is `instance` and
  //! holds only that instance's replicas; every instance constructs its cluster at the same point.
  Cluster(const planner::Plan& plan, const Settings& settings, int32_t instance = 0);
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  int32_t replicas() const;
  //! The replicas this process holds: first_replica() .. first_replica() + local_replicas() - 1.
  int32_t first_replica() const;
  int32_t local_replicas() const;
  //! Several instances: true when `mine` is true on any of them (every instance calls it, from the
  //! host thread, at the same point). Alone: `mine`.
  bool any_instance(bool mine);
  //! Several instances: brings the other instances' IPUs into report() (a collective call).
  void gather_report();
  int32_t ipus_per_replica() const;
  //! Weight updates one execution runs: training.steps_per_execution x pipeline.repeat_count.
  int64_t updates_per_execution() const;
  //! Parameter `p` on replica `replica`, one this process holds (every replica has its own copy).
  ir::Tensor param(int32_t replica, ir::ValueId p) const;
  //! Optimizer state of parameter `p`, held by the IPU that updates it: its state arrays
  //! (optimizer_state_shapes) one after the other (gathered from the replicas' blocks when the
  //! state is sharded, else replica 0's: every replica holds the same); empty if `p` is not trained.
  std::vector<float> optimizer_state(ir::ValueId p) const;
  //! Sets state array `slot` of parameter `p` on every replica, each its block.
  void set_optimizer_state(ir::ValueId p, int32_t slot, const float* values);
  //! The shapes of the optimizer's state arrays for parameter `p` (two copies of its shape for adam).
  std::vector<Shape> optimizer_state_shapes(ir::ValueId p) const;
  //! The loss-scale state (every worker holds the same copy); set_loss_scale() sets all copies.
  LossScaleState loss_scale() const;
  void set_loss_scale(const LossScaleState& state);
  //! Bytes allocated per virtual IPU (by physical id; 0 for another instance's).
  std::vector<int64_t> bytes_allocated() const;

  //! Streams the samples of updates first .. first + updates - 1 into the replicas' infeeds.
  //! The dataset must outlive the feeds (until close_feeds() or the cluster's end).
  void open_feeds(const FeedSource& source, int64_t first_update, int64_t updates);
  void close_feeds();
  //! Runs weight updates first .. first + count - 1 on every IPU (count <=
  //! updates_per_execution()); blocks until done. Rethrows the first
  //! error of any worker, after which the cluster refuses to run again.
  void execute(int64_t first, int64_t count);

  //! Output `k`'s mean over micro-batches and replicas in update `local` of the last execution.
  double step_value(int64_t local, size_t k) const;
  HostOutfeed& outfeed();
  const HostOutfeed& outfeed() const;

  //! What an error trapped in a kernel calls the run ("training" by default).
  void set_run_label(std::string label);
  //! Host thread, between executions: host work for the trace (a validation pass), and the
  //! trace's clock to time it with.
  void add_host_span(HostSpan span);
  double now_us() const;
  //! Keep every executed instruction for the trace from now on.
  void record_events(bool on);
  const Recorder& recorder() const;
  RunReport report() const;

 private:
  //! The worker of `replica` that holds (and updates) parameter `p`.
  Worker& owner(int32_t replica, ir::ValueId p) const;
  void work(Worker& w);
  void abort_all();
  //! Adds the last execution's per-update task windows to the bubble figures.
  void measure_bubble(int64_t count);

  std::unique_ptr<ClusterShared> shared_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::unique_ptr<Infeed>> feeds_;

  // Host <-> workers: a generation counter per execution.
  std::mutex mu_;
  std::condition_variable go_;
  std::condition_variable done_;
  int64_t generation_ = 0;
  int64_t first_ = 0;
  int64_t count_ = 0;
  int64_t parallel_work_ = 0;  // par::parallel_work() of the workers' threads this execution
  SpreadTuner spread_;
  size_t running_ = 0;
  bool stop_ = false;
  bool broken_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;

  //! Several instances: every instance's step sums of the last execution ([worker][update][output],
  //! workers in global order), gathered so that step_value() adds them as one process would.
  void gather_step_sums(int64_t count);
  std::vector<double> step_sums_;
  std::vector<IpuReport> remote_ipus_;

  // Run figures (host thread only).
  int64_t updates_ = 0;
  double window_ = 0, task_busy_ = 0;          // IPU-microseconds
  double sim_window_ = 0, sim_task_busy_ = 0;  // IPU-cycles
};

}  // namespace iputrain::engine
