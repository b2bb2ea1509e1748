// iputrain — a training session: a model planned onto virtual IPUs, with its weights and feeds.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "iputrain/config.hpp"
#include "iputrain/model.hpp"

namespace iputrain {

//! The outfeed values of one training step.
struct StepRecord {
  int64_t step = 0;  //!< 1-based weight-update count
  //! One per Session::output_names() entry: the output's mean over the micro-batches and
  //! replicas of the update (each micro-batch's value is itself the mean of its elements).
  std::vector<double> values;
};

//! What the host learns after each device execution (steps_per_execution steps).
struct Progress {
  int64_t step = 0;         //!< steps done so far
  int64_t total_steps = 0;  //!< steps planned
  double epoch = 0;         //!< fractional epochs done
  int64_t steps_per_epoch = 0;  //!< whole batches in one pass over the training data
  std::vector<StepRecord> records;  //!< the outfeed of this execution (one per step)
  double samples_per_second = 0;    //!< measured over this execution
  double elapsed_seconds = 0;       //!< since train() started
};

//! Summary of a train() call.
struct TrainSummary {
  int64_t steps = 0;
  int64_t samples = 0;
  double seconds = 0;
  double samples_per_second = 0;
  std::vector<std::string> output_names;
  std::vector<double> last_values;  //!< outfeed of the last step
};

//! Result of evaluate(): the mean of each output over the evaluated batches.
struct EvalResult {
  std::map<std::string, double> means;
  int64_t samples = 0;  //!< samples evaluated (whole batches only)
  int64_t skipped = 0;  //!< samples left out because they do not fill a batch
};

//! One tensor of the outfeed queue (training.outfeed_mode, pipeline.outfeed_*): mode "all" gives
//! [n, (replicas,) ...value shape] for the n elements enqueued since the last dequeue (one per
//! micro-batch, or one per weight update with pipeline.accumulate_outfeed); mode "last" gives the
//! newest element, [(replicas,) ...value shape]. The replica axis appears with 2+ replicas only.
struct OutfeedTensor {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> values;  //!< row-major, converted to f32
};

//! What one virtual IPU did during the train() calls so far.
struct IpuReport {
  int32_t physical = 0;  //!< physical IPU id
  int32_t replica = 0;
  int32_t ipu = 0;       //!< IPU within the replica
  double busy_seconds = 0;       //!< real time in compute, accumulate and weight-update instructions
  double run_seconds = 0;        //!< real time the IPU was executing its programs
  double cpu_seconds = 0;        //!< CPU time of the IPU's worker thread (waits excluded)
  double kernel_cpu_seconds = 0; //!< of which in compute, accumulate and weight-update kernels
  double simulated_cycles = 0;   //!< the IPU's simulated clock (planner cycle model)
  double simulated_busy_cycles = 0;
  int64_t memory_peak = 0;       //!< most bytes held at once, measured
  int64_t memory_estimate = 0;   //!< the planner's peak for this IPU
  int64_t memory_capacity = 0;
};

//! The run report: real and simulated time per IPU, pipeline bubble, memory against the plan.
struct RunReport {
  std::vector<IpuReport> ipus;       //!< by physical id
  int64_t updates = 0;               //!< weight updates run
  double real_seconds = 0;           //!< wall time of the device executions
  double simulated_seconds = 0;      //!< simulated time of the same work (slowest IPU)
  double simulated_cycles_per_update = 0;
  double planned_cycles_per_update = 0;  //!< the planner's cycle model (plan.cost)
  //! Idle share of the IPUs in the pipelined part of each cycle (its instructions before the
  //! reduction and update; waits for links and feeds are idle), in real time.
  double measured_bubble = 0;
  double simulated_bubble = 0;       //!< the same on the simulated clocks
  double planned_bubble = 0;         //!< the planner's simulation of one cycle (plan.cost)
  double analytic_bubble = 0;        //!< the schedule's formula
};

//! Shape, statistics and values of one weight.
struct WeightInfo {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> values;
};

class Session {
 public:
  //! Plans `model` under `config`, allocates every buffer once and initialises the weights from
  //! the config seed. Throws iputrain::Error (Config, Data or Plan) with a location.
  Session(const Model& model, const Config& config);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  //! Trains for training.steps (or epochs) weight updates. `on_progress` is called on the host
  //! after every device execution. Throws on data or runtime errors.
  TrainSummary train(const std::function<void(const Progress&)>& on_progress = {});
  //! Means of every output over `split` ("test" or "train"), forward only.
  EvalResult evaluate(const std::string& split = "test");

  //! Names of the values the outfeed carries each step (the model's `output`s).
  std::vector<std::string> output_names() const;
  //! Weights by scope path, in declaration order.
  std::vector<WeightInfo> weights() const;
  //! Writes every weight to a safetensors file (atomically).
  void save_weights(const std::string& path) const;
  //! Reads weights saved by save_weights (or any safetensors file with the same names and shapes).
  void load_weights(const std::string& path);
  //! Total steps train() will run under the current config.
  int64_t planned_steps() const;
  //! Samples per weight update: micro-batch x gradient accumulation x replicas.
  int64_t global_batch() const;
  //! Bytes allocated on each virtual IPU.
  std::vector<int64_t> memory_per_ipu() const;
  //! Takes the outfeed elements published so far (after each device execution). Safe to call from
  //! any thread, also while train() runs; elements are returned once.
  std::vector<OutfeedTensor> dequeue_outfeed();
  //! Real and simulated time, bubble and memory of the training runs so far.
  RunReport run_report() const;
  //! Keeps every instruction the virtual IPUs execute from now on, for write_trace() (off by
  //! default: it costs memory in long runs).
  void record_trace(bool on);
  //! Writes the Chrome trace JSON (Perfetto) of what was recorded: one track per virtual IPU and
  //! per host feed, real and simulated time. Throws Error(Usage) if nothing was recorded.
  void write_trace(const std::string& path) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace iputrain
