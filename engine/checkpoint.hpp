// Training checkpoints: one safetensors file per checkpoint, DIR/step-00000500.safetensors,
// holding every weight under its parameter name (f32) and the optimizer state under
// `optimizer/<slot>/<parameter>`, with the run's position and identity in the metadata. Nothing in
// it depends on the plan (it is gathered per parameter from the IPU that updates it), so a
// checkpoint saved under one plan resumes under any other. The RNG and data position need no
// tensors: dropout keys and the sample order are functions of the seeds and the step.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/data/safetensors.hpp"
#include "core/optim/loss_scale.hpp"
#include "iputrain/custom_op_def.hpp"

namespace iputrain::engine {

using namespace iputrain::optim;  // the optimizers, their schedules and clipping (core/optim)

//! Bumped whenever the file layout changes in a way older readers cannot follow.
inline constexpr int kCheckpointFormat = 1;

//! What a checkpoint records besides its tensors; resume() checks it against the new session.
struct CheckpointMeta {
  std::string model;         //!< the model's name
  int64_t step = 0;          //!< weight updates done
  std::string optimizer;     //!< optimizer.type
  int32_t state_slots = 0;   //!< optimizer state arrays per parameter
  LossScaleState loss_scale;
  uint64_t seed = 0;         //!< training.seed: initializers and dropout keys
  uint64_t shuffle_seed = 0;  //!< the shuffle seed in effect (data.seed, else training.seed)
  bool shuffle = true;
  int64_t global_batch = 0;  //!< samples per weight update
  int64_t micro_batch = 0;
  int64_t samples = 0;       //!< samples consumed: step x global batch
  std::string config_hash;   //!< config_hash() of the run that wrote it
  //! run_config_text() of the run that wrote it, and its hash ("" in checkpoints written before
  //! iputrain recorded them: resume() then checks the fields above alone).
  std::string run_config;
  std::string run_hash;
  //! registered_ops_text() of the registered ops the model calls: written as `registered_ops` only
  //! when it calls some, so the checkpoints of other models are as before.
  std::string registered_ops;
  bool ops_recorded = false;  //!< read: the checkpoint has the `registered_ops` key
};

struct Checkpoint {
  std::string path;  //!< the file read
  CheckpointMeta meta;
  std::vector<data::NamedTensor> tensors;  //!< sorted by name
};

//! "step-00000500.safetensors".
std::string checkpoint_file_name(int64_t step);
//! The tensor name of optimizer state array `slot` of `param`: "optimizer/0/features/dense/kernel".
std::string optimizer_state_name(int32_t slot, const std::string& param);
//! A stable hash (hex FNV-1a 64) of the effective config's text (config::show).
std::string config_hash(const std::string& config_text);

//! Writes DIR/step-NNNNNNNN.safetensors (or DIR/`file` when given: best.safetensors, which the
//! rotation and resume's "newest" never see) atomically (creating DIR), then deletes the oldest
//! checkpoints beyond `keep` (0 = keep all) and temporary files left by interrupted writes.
//! Returns the path written. Environment: IPUTRAIN_FAULT_KILL_IN_CHECKPOINT=N kills the process
//! with SIGKILL during the N-th checkpoint write of the process, once half the temporary file is
//! written (for tests of interrupted writes).
std::string write_checkpoint(const std::string& dir, const CheckpointMeta& meta,
                             const std::vector<data::NamedTensor>& tensors, int64_t keep,
                             const std::string& file = "");

//! An f32 tensor of `shape` holding a copy of `values`.
data::NamedTensor f32_tensor(const std::string& name, const Shape& shape, const float* values);
//! Writes a plain weight file: `tensors` with the metadata that names the model and the step.
void write_weight_file(const std::string& path, const std::vector<data::NamedTensor>& tensors,
                       const std::string& model, int64_t step);
//! True for a checkpoint directory or file (what read_checkpoint reads), false for a plain weight
//! file. Throws Error(Io) for a file that cannot be read, Error(Data) for one that is not safetensors.
bool is_checkpoint(const std::string& dir_or_file);
//! The weight tensors of `path`: a weight file, a checkpoint file (its optimizer state left out),
//! or a checkpoint directory (its newest file). What Session::load_weights reads.
data::SafetensorsFile read_weights(const std::string& path);

//! The run-defining keys (the model parameters, and the keys whose config row says so:
//! config::defines_run) with their values as TOML text (model parameters the config sets as
//! `model.NAME`), one `key = value` line each, sorted: what a checkpoint records as `run_config`.
//! The run's length, its plan and its bookkeeping may change; the checks of Session::resume cover
//! the global batch.
std::string run_config_text(const std::map<std::string, std::string>& values);
//! The run-defining keys whose values differ between a recorded run_config_text() and this run's,
//! each with a line for the user: "`key` was OLD, is NEW".
struct RunChange {
  std::string key;
  std::string line;
};
std::vector<RunChange> run_changes(const std::string& recorded, const std::string& now);
//! The `key = value` lines of a record (run_config_text(), registered_ops_text()) by key.
std::map<std::string, std::string> parse_record(const std::string& text);
//! One key whose value differs between two records: its old and new value, a key one of them
//! lacks given as `absent_was` or `absent_now`.
struct RecordDifference {
  std::string key;
  std::string was;
  std::string now;
};
//! The keys of either record whose values differ, in key order.
std::vector<RecordDifference> record_differences(const std::map<std::string, std::string>& was,
                                                 const std::map<std::string, std::string>& now,
                                                 const std::string& absent_was, const std::string& absent_now);

//! The metadata key of the registered ops a checkpoint's model calls.
inline constexpr const char* kRegisteredOpsKey = "registered_ops";
//! What a checkpoint records of each registered op the model calls (`ops`, sorted by name): its
//! declared registration, four `key = value` lines an op, as TOML:
//!   scaled_softplus.inputs = ["x"]
//!   scaled_softplus.attributes = {beta = 1}
//!   scaled_softplus.differentiable = true
//!   scaled_softplus.version = "2"
//! "" for none.
std::string registered_ops_text(const std::vector<const CustomOp*>& ops);
//! A recorded registered_ops_text() against this run's: `refusals` says, a line each, how an op
//! both call is registered differently ("`op`: its version was "1", is "2""); `notes` say what is
//! not checked (a checkpoint that records no op while the model calls some; an op only one side
//! calls).
struct OpsCheck {
  std::vector<std::string> refusals;
  std::vector<std::string> notes;
};
OpsCheck check_registered_ops(const CheckpointMeta& recorded, const std::string& now);
//! The step of the newest checkpoint of `dir` (-1 if it holds none); `used` is set when it holds a
//! checkpoint or best.safetensors.
int64_t newest_checkpoint_step(const std::string& dir, bool* used);
//! Deletes the checkpoints and best.safetensors of `dir` (--overwrite), nothing else.
void clear_checkpoints(const std::string& dir);

//! The `format` a checkpoint's metadata names, and the prefix of its optimizer-state tensors.
inline constexpr const char* kCheckpointFormatName = "iputrain-checkpoint";
inline constexpr const char* kOptimizerStatePrefix = "optimizer/";

//! `dir_or_file` itself if it is a file, else the newest complete step-*.safetensors in it.
//! Throws Error(Usage) if the path does not exist and Error(Data) if the directory holds no
//! checkpoint.
std::string resolve_checkpoint(const std::string& dir_or_file);
//! Reads the checkpoint resolve_checkpoint() picks. Throws Error(Data) naming the file if it is
//! damaged (hinting at the previous checkpoint of the directory) or not an iputrain checkpoint.
Checkpoint read_checkpoint(const std::string& dir_or_file);

}  // namespace iputrain::engine
