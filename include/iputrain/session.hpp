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
  std::vector<double> values;  //!< one per Session::output_names() entry
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
  //! Bytes allocated on each virtual IPU.
  std::vector<int64_t> memory_per_ipu() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace iputrain
