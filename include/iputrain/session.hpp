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

class Plan;  // iputrain/plan.hpp (made by the public API, api/)

//! The outfeed values of one training step.
struct StepRecord {
  int64_t step = 0;  //!< 1-based weight-update count
  //! One per Session::output_names() entry: the output's mean over the micro-batches and
  //! replicas of the update (each micro-batch's value is itself the mean of its elements).
  std::vector<double> values;
  //! The learning rate this update applied (optimizer.learning_rate through warmup and lr_schedule).
  double learning_rate = 0;
};

//! The validation metrics at one point of training (data.validation, training.validate_every).
struct ValidationRecord {
  int64_t step = 0;  //!< weight updates done when it ran
  double epoch = 0;
  //! One per Session::validation_names() entry (`val_` + each output): the output's mean over
  //! the validation set's samples, as evaluate() computes it.
  std::vector<double> values;
};

//! What the host learns after each device execution (steps_per_execution steps).
struct Progress {
  int64_t step = 0;         //!< steps done so far
  int64_t total_steps = 0;  //!< steps planned
  double epoch = 0;         //!< fractional epochs done
  int64_t steps_per_epoch = 0;  //!< whole batches in one pass over the training data
  std::vector<StepRecord> records;  //!< the outfeed of this execution (one per step)
  std::vector<ValidationRecord> validations;  //!< validation after this execution, if it was due
  double samples_per_second = 0;              //!< measured over this execution alone (no validation, no checkpoint)
  double elapsed_seconds = 0;                 //!< wall time since train() started (validation and checkpoints included)
  int64_t samples = 0;                        //!< samples trained by this train() call so far
  double train_seconds = 0;                   //!< of elapsed_seconds, the time in device executions
};

//! Summary of a train() call.
struct TrainSummary {
  int64_t steps = 0;
  int64_t samples = 0;
  double seconds = 0;
  double samples_per_second = 0;
  //! samples/s after the first execution (its one-off costs left out); the overall rate when
  //! there was only one
  double steady_samples_per_second = 0;
  std::vector<std::string> output_names;
  std::vector<double> last_values;  //!< outfeed of the last step
  double learning_rate = 0;         //!< the learning rate of the last update
  //! Of `seconds` (wall time), the time in device executions and in validation; the rest is
  //! checkpoints and the host's bookkeeping. samples_per_second is over the executions' time.
  double train_seconds = 0;
  double validation_seconds = 0;
  std::vector<std::string> checkpoints;  //!< checkpoint files written by this call (checkpoint.dir)
  int64_t skipped_updates = 0;  //!< updates skipped since step 0 because a gradient overflowed (dynamic loss scaling)
  double loss_scale = 1.0;      //!< the loss scale after the last update
  std::string profile_directory;  //!< the profile this call wrote (`[profiling]`), "" if none
  std::vector<ValidationRecord> validations;  //!< every validation of this call, in order
  //! checkpoint.keep_best: the best checkpoint's file and its metric value ("" if none was kept).
  std::string best_checkpoint;
  double best_value = 0;
  bool stopped = false;  //!< request_stop() ended it before its planned steps
};

//! What Session::resume() restored.
struct ResumeInfo {
  std::string path;             //!< the checkpoint file read
  int64_t step = 0;             //!< weight updates the checkpoint holds
  int64_t remaining = 0;        //!< updates the next train() runs to reach training.steps (or epochs)
  bool config_changed = false;  //!< the config differs from the one that wrote it (e.g. another plan)
  //! Differences that do not stop the resume, for the user (a changed config, another micro-batch).
  std::vector<std::string> notes;
};

//! What export_checkpoint_weights() read and wrote.
struct ExportInfo {
  std::string from;  //!< the checkpoint file read
  int64_t step = 0;  //!< its weight updates
};

//! Result of evaluate(): the mean of each output over the split's samples, each batch's mean
//! weighted by its samples; a last batch that does not fill one runs at its own size.
struct EvalResult {
  std::map<std::string, double> means;
  int64_t samples = 0;      //!< samples evaluated: all of the split, but for `skipped`
  int64_t last_batch = 0;   //!< samples of the last batch, run at its own size (0: the batches are whole)
  int64_t skipped = 0;      //!< samples left out: a last batch the model cannot run at its size
  std::string skipped_why;  //!< why (the model fixes its batch, …); "" when none is skipped
  //! Where it ran: the inference plan's physical IPUs, replica by replica (replicas x IPUs per replica).
  std::vector<int32_t> ipus;
  int32_t replicas = 1;
};

//! The per-sample values of one model output over a data split (Session::predict).
struct Prediction {
  std::string name;
  std::string dtype;                  //!< the output's element type: "f32", "i32", "bool", …
  std::vector<int64_t> sample_shape;  //!< one sample's shape (the output without its batch dimension)
  int64_t samples = 0;                //!< rows: every sample of the split, in order
  std::vector<double> values;         //!< row-major [samples, ...sample_shape]; exact for every dtype
};

//! One tensor of the outfeed queue (training.outfeed_mode, pipeline.outfeed_*): mode "all" gives
//! [n, (replicas,) ...value shape] for the n elements enqueued since the last dequeue (one per
//! micro-batch, or one per weight update with pipeline.accumulate_outfeed); mode "last" gives the
//! newest element, [(replicas,) ...value shape]. The replica axis appears with 2+ replicas only.
//! How the outfeed queue arranges what it holds (training.outfeed_mode and the pipeline's outfeed
//! keys): dequeue_outfeed() gives each value as [elements, (replicas,) ...shape] in `all` mode,
//! [(replicas,) ...shape] (the newest) in `last` mode; the replica axis only with replicas > 1.
struct OutfeedLayout {
  std::vector<std::string> names;  //!< the values it holds, in order (mask and outfeed_loss applied)
  bool last_only = false;          //!< `last`: only the newest element of each execution
  bool accumulated = false;        //!< one element per weight update: the sum over its micro-batches
  int64_t micro_batches = 1;       //!< elements per weight update per replica (1 when accumulated)
  int32_t replicas = 1;
};

struct OutfeedTensor {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<double> values;  //!< row-major; exact for every dtype (i32 too)
};

//! One epoch of Session::benchmark_data(): the fields of the seed's dataset_benchmark.
struct DataEpochStats {
  int64_t elements_processed = 0;     //!< micro-batches the feed delivered
  int64_t total_bytes_processed = 0;  //!< their bytes, as the device receives them
  double time_elapsed = 0;            //!< seconds, measured
  double elements_per_second = 0;
  double bandwidth = 0;               //!< GB/s (1e9 bytes per second)
};

//! The host feed alone, measured (Session::benchmark_data), beside what the plan consumes.
struct DataBenchmark {
  std::string split;
  std::vector<DataEpochStats> epochs;
  int64_t element_samples = 0;  //!< samples per element: the micro-batch
  int64_t element_bytes = 0;    //!< bytes per element
  bool memcpy = true;           //!< each element was copied into a device-sized buffer
  int32_t replicas = 1;         //!< feeds running at once in training (one per replica)
  //! The plan's predicted throughput (all replicas), and what each replica's feed must deliver
  //! for it, in elements per second.
  double device_samples_per_second = 0;
  double device_elements_per_second = 0;
  //! True when the slowest epoch delivered fewer elements per second than one feed must.
  bool feed_bound = false;
};

//! Data the embedding program holds in memory, for Session::set_data: one array per model input,
//! named like the input, its first dimension the samples and the rest the input's per-sample
//! shape. The values are converted to the input's dtype as a file's would be (docs/data.md):
//! `dtype` is "f64", "f32", "f16", "bf16", "i8" … "i64", "u8" … "u64" or "bool".
struct ArrayData {
  std::string name;
  std::string dtype = "f32";
  std::vector<int64_t> shape;  //!< [samples, ...per-sample shape]
  std::vector<uint8_t> bytes;  //!< row-major, the host's byte order; copied by set_data

  //! Copies `values` (shape[0] x per-sample elements) as f32, i32 or u8 (8-bit images, which reach
  //! a u8 input as they are and an f32 input as the values 0..255).
  static ArrayData f32(std::string name, std::vector<int64_t> shape, const float* values);
  static ArrayData i32(std::string name, std::vector<int64_t> shape, const int32_t* values);
  static ArrayData u8(std::string name, std::vector<int64_t> shape, const uint8_t* values);
};

//! Data produced on demand, for Session::set_data: `samples` samples; `read` writes input `input`
//! of sample `index` (its per-sample shape, in the input's dtype: f32, i32, bool or u8 as one byte) to
//! `dst`. It is called from the feed thread, concurrently for different indices, and must give the
//! same values for the same index every time (shuffling and resuming rely on it).
struct SampleSource {
  int64_t samples = 0;
  std::function<void(int64_t index, const std::string& input, void* dst)> read;
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
  int64_t executions = 0;            //!< device executions run
  //! Of those, the executions whose kernels below 4M multiply-adds stayed on their IPU's thread
  //! (engine.spread_kernels: large_only, or auto's choice).
  int64_t large_only_executions = 0;
};

//! Shape and values of one weight.
struct WeightInfo {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> values;
  //! False for non-trainable state (a batch norm's moving statistics), which the optimizer never
  //! updates and training moves towards the statistics of the data.
  bool trainable = true;
};

//! One tensor of the training state on one replica (Session::training_state): a weight or one slot
//! of its optimizer state, with where the plan keeps it.
struct StateTensor {
  std::string name;    //!< the weight's scope path, or its optimizer slot's name as checkpoints write it
  std::string weight;  //!< the weight it belongs to
  bool optimizer_state = false;
  std::string stage;         //!< the plan's stage that holds the weight
  int32_t ipu = 0;           //!< logical IPU within the replica
  int32_t physical_ipu = 0;  //!< the replica's physical IPU
  std::vector<int64_t> shape;
  std::vector<float> values;
};

//! One data source of a config, opened as training opens it (`iputrain check`).
struct DataSourceInfo {
  std::string key;   //!< "data.train", "data.test" or "data.validation"
  std::string spec;  //!< the source as written ("csv:train.csv")
  std::string path;  //!< the spec with its path resolved (docs/config.md, Paths)
  int64_t samples = 0;
  std::vector<TensorInfo> fields;    //!< every field of a sample: name, dtype, per-sample shape
  std::vector<std::string> classes;  //!< an image folder's classes, sorted (their indices are the labels)
};

class Session {
 public:
  //! Plans `model` under `config`, allocates every buffer once and initialises the weights from
  //! the config seed. Throws iputrain::Error (Config, Data or Plan) with a location. The settings
  //! are `config`'s, unless it was resolved without the instances this process joined (an mpirun
  //! run; current_instances()): then they are resolved again with them.
  Session(const Model& model, const ResolvedConfig& config);
  //! The same with a plan already made by Plan::make(model, config) (it is not made again).
  //! Throws Error(Usage) if the plan was made for another model.
  Session(const Model& model, const ResolvedConfig& config, const Plan& plan);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  //! Trains for training.steps (or epochs) weight updates; after resume(), only the updates left
  //! to reach that total (none if the checkpoint is already there). `on_progress` is called on
  //! the host after every device execution. With checkpoint.dir set, writes a checkpoint whenever
  //! the step reaches a multiple of checkpoint.every and at the end. Throws on data or runtime errors.
  TrainSummary train(const std::function<void(const Progress&)>& on_progress = {});
  //! The data checks train() makes before its first step, without training: the training split
  //! (and the validation split, when validating) opens, and holds at least one micro-batch.
  //! `iputrain check` runs them. Throws Error(Data) as train() would.
  void check_training_data();
  //! Each data source the config sets (data.train, data.test, data.validation), opened as training
  //! opens it and kept for it: its samples and fields, checked against the model's inputs. Throws
  //! Error(Data) located at the key for an unknown kind of source, a missing file or a field that
  //! does not fit an input. `iputrain check` prints them.
  std::vector<DataSourceInfo> data_sources();
  //! Weight updates done so far (a resumed session counts the checkpoint's).
  int64_t step() const;
  //! Writes the training state (weights and moving statistics, optimizer state, step, loss scale,
  //! seeds) to DIR/step-NNNNNNNN.safetensors atomically, keeping the newest checkpoint.keep files.
  //! Returns the path written. Throws Error(Semantic) for a model without an objective.
  std::string save_checkpoint(const std::string& dir) const;
  //! Restores the state save_checkpoint() wrote (DIR's newest checkpoint, or a file), whatever
  //! plan wrote it. Throws Error(Data) with a hint if it belongs to another model, optimizer, seed,
  //! shuffle or global batch, or is damaged, or if a registered op the model calls is registered
  //! otherwise than the checkpoint records (CustomOp::version); the session is unchanged then. Non-trainable state
  //! the checkpoint lacks (moving statistics, in checkpoints written before the model kept them)
  //! starts from its initial value, with a note.
  ResumeInfo resume(const std::string& dir_or_file);
  //! Each checkpoint records its run's defining keys and the hash of its config (in its metadata:
  //! engine/checkpoint.hpp). resume() refuses one whose run-defining keys differ, naming them; a new run refuses to
  //! write into a directory that holds another run's checkpoints (Error(Usage) located at checkpoint.dir) unless this
  //! is set: then it deletes them first (`train --overwrite`).
  void overwrite_checkpoints(bool yes);
  //! Makes `dir` this session's checkpoint directory ahead of its first checkpoint (train() and
  //! save_checkpoint() do it themselves), with the refusal above.
  void claim_checkpoint_dir(const std::string& dir);
  //! Gives split "train", "test" or "validation" the arrays in memory instead of the config's
  //! source (`data.train`, …), checked against the model's inputs like a file (Error(Data) naming
  //! the array, the input and both shapes). A validation split (data.validation_split) is taken
  //! from the new training data.
  void set_data(const std::string& split, const std::vector<ArrayData>& arrays);
  void set_data(const std::string& split, SampleSource source);
  //! Asks a running train() to stop: it finishes the device execution under way, writes a
  //! checkpoint when checkpoint.dir is set, and returns with TrainSummary::stopped. Callable from
  //! the progress callback or any thread (a signal handler may only set a flag that a thread reads).
  void request_stop();
  //! Means of every output over `split` ("test" or "train"), forward only.
  EvalResult evaluate(const std::string& split = "test");

  //! Runs the host feed alone over `split` for `epochs` epochs of `elements_per_epoch` micro-batches
  //! (0: the split's whole batches), as training feeds it (data.shuffle, prefetch_depth), and
  //! measures each epoch (the seed's dataset_benchmark). With `memcpy`, each element is also copied
  //! into a buffer as the host-to-device transfer would. Throws Error(Usage) if epochs < 1.
  DataBenchmark benchmark_data(const std::string& split = "train", int64_t epochs = 1, int64_t elements_per_epoch = 0,
                               bool memcpy = true);
  //! Per-sample values for every sample of `split`, forward only, in dataset order. `outputs` names
  //! any `output` or any tensor the model body names (`logits = …`) whose first dimension is the
  //! micro-batch; empty: every `output per_sample` (or, in a model without one, every output with a
  //! row per sample). Only the inputs on the path to them are read, so a training model predicts
  //! from data without labels. The last batch is padded by repeating its last sample; padded rows
  //! are not returned. Throws Error(Usage) naming an unknown or per-batch name.
  std::vector<Prediction> predict(const std::string& split = "test", const std::vector<std::string>& outputs = {});
  //! Names of the values the outfeed carries each step (the model's `output`s).
  std::vector<std::string> output_names() const;
  //! `val_` + each output name: what a ValidationRecord's values are.
  std::vector<std::string> validation_names() const;
  //! What dequeue_outfeed() returns, and how (empty names for a model that cannot train).
  OutfeedLayout outfeed_layout() const;
  //! Replicas of the training plan (pipeline.replication_factor and the IPUs it takes).
  int32_t replicas() const;
  //! Every weight of replica `replica` followed by its optimizer-state slots (the state as
  //! checkpoints gather it, the same for every replica), in declaration order. Each replica keeps
  //! its own copy of the weights, so this shows a replica that drifted (`iputrain verify`). Throws
  //! Error(Semantic) for a model that does not train, Error(Usage) for a replica not held here.
  std::vector<StateTensor> training_state(int32_t replica = 0) const;
  //! Test hook, for the tests of `iputrain verify` only: adds `delta` to every element of weight
  //! `weight` on replica `replica` alone, which breaks the replicas' agreement on purpose. Throws
  //! Error(Usage) for an unknown weight.
  void perturb_replica_for_test(int32_t replica, const std::string& weight, float delta);
  //! Weights by scope path, in declaration order, the non-trainable state (a batch norm's moving
  //! statistics) included.
  std::vector<WeightInfo> weights() const;
  //! Writes every weight, the non-trainable state included, to a safetensors file (atomically).
  void save_weights(const std::string& path) const;
  //! Reads weights saved by save_weights (or any safetensors file with the same names and shapes),
  //! or the weights of a checkpoint: a step-*.safetensors file, or a checkpoint directory for its
  //! newest. The optimizer state and step are not loaded (that is resume()). Non-trainable state
  //! the file lacks (moving statistics, in files written before the model kept them) starts from
  //! its initial value; the returned warnings name it (empty when the file held everything).
  std::vector<std::string> load_weights(const std::string& path);
  //! Total steps train() will run under the current config.
  int64_t planned_steps() const;
  //! Samples per weight update: micro-batch x gradient accumulation x replicas.
  int64_t global_batch() const;
  //! Bytes allocated on each virtual IPU of the training cluster (of the inference cluster for a
  //! model that does not train, once eval or predict has run; empty before).
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

//! Writes the weights of a checkpoint (DIR's newest, or a file) to `path` as a plain weight file,
//! what Session::load_weights() and `--init-from` read. Throws Error(Data) if the checkpoint does
//! not hold `model`'s parameters.
ExportInfo export_checkpoint_weights(const Model& model, const std::string& dir_or_file, const std::string& path);

//! True for what export_checkpoint_weights() and Session::resume() read (a checkpoint directory,
//! or a checkpoint file), false for a plain weight file (what save_weights() writes). Throws
//! Error(Io) for a file that cannot be read, Error(Data) for one that is not safetensors.
bool is_checkpoint(const std::string& dir_or_file);

//! Opens every data source the config sets (data.train, data.test, data.validation) and checks
//! its fields against the model's inputs as training would: throws Error(Data) located at the key
//! for an unknown kind of source, a missing file or a field that does not fit an input. Without a
//! Session (nothing planned); Session::data_sources() keeps what it opens for training.
std::vector<DataSourceInfo> inspect_data_sources(const Model& model, const ResolvedConfig& config);

}  // namespace iputrain
