// iputrain — the config resolved into typed settings (enums, not strings).
//
// `Config` holds what the user wrote, as the schema types it (enum keys are strings, as written
// in TOML). `config::resolve()` (iputrain/config_loader.hpp) turns it, in one place
// (frontend/config/resolve.cpp), into these settings; the planner and the engine read the settings, never the strings.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "iputrain/error.hpp"
#include "iputrain/plain_keys.hpp"

namespace iputrain {

//! The recomputation a plan runs (PlanDecisions::recompute): Off without ipu.allow_recompute, else
//! pipeline.recomputation_mode, its "auto" settled by the schedule's definition.
enum class Recomputation { Off, RecomputeThenBackpropagate, RecomputeAndBackpropagateInterleaved };

//! availableMemoryProportion and partialsType of a Poplar options table, as numbers: the share of
//! each tile's memory a matmul or convolution may take for its temporaries, and half partials.
struct MemoryOptions {
  double available_memory_proportion = 0.6;
  bool half_partials = false;
  bool operator==(const MemoryOptions&) const = default;
};

//! The matmul and convolution memory options of one stage in one pass.
struct StageMemoryOptions {
  MemoryOptions matmul;
  MemoryOptions convolution;
  bool operator==(const StageMemoryOptions&) const = default;
};

//! Where each key of the config was set, so that a rule checked later (by the planner, against
//! the model) still points at the key's file:line:col.
struct KeyLocations {
  std::map<std::string, SourceSpan> spans;       //!< key path -> where it was set
  std::shared_ptr<const SourceManager> sources;  //!< the config files' text
  //! True if a config file or `--set` set the key.
  bool is_set(const std::string& key) const;
  //! Raises Error(kind) located at `key` (unlocated when it was not set).
  [[noreturn]] void fail_at(const std::string& key, const std::string& message, const std::string& hint = {},
                            ErrorKind kind = ErrorKind::Config) const;
};

//! What the planner reads of `[pipeline]` and the Poplar options, resolved from the plain lines (the
//! keys themselves are `plain.pipeline_*` and `plain.ipu_*`).
struct PipelineSettings {
  //! True if `pipeline.schedule` or `device_mapping` is set, or batch serialization is on: the model
  //! is pipelined even on one IPU per replica.
  bool pipelined = false;
  StageMemoryOptions memory;  //!< ipu.matmuls and ipu.convolutions poplar_options
  //! Per stage, over `memory`: pipeline.forward_/backward_propagation_stages_poplar_options.
  std::vector<StageMemoryOptions> forward_memory;
  std::vector<StageMemoryOptions> backward_memory;
};

//! The IPUs the run is placed on (the figures of the device and system are plain lines).
struct IpuSettings {
  int64_t count = 1;              //!< IPUs acquired: ipu.auto_select_ipus, or the select_ipus devices' IPUs
  std::vector<int32_t> physical;  //!< the physical IPUs of ipu.select_ipus, in order; empty = 0, 1, …
  int32_t instances = 1;          //!< processes sharing the replicas (process_count, at least 1)
};

//! `[optimizer]`'s named values, resolved (its numbers are plain lines: `plain.optimizer_learning_rate`, ...).
struct OptimizerSettings {
  std::string type = "sgd";  //!< a name of the optimizer table (core/optim/optimizer_list.hpp)
  //! The hyper-parameters the optimizer's definition declares, each from its key or the
  //! optimizer's own default (flags 0 or 1); the other optimizers' keys are not here.
  std::map<std::string, double, std::less<>> hyper;
  //! Hyper-parameter `name` (an optimizer reading one it does not declare is a bug).
  double param(std::string_view name) const;
};

//! Whether a run validates while training: `data.validation` or `data.validation_split` is given (a
//! session given a validation source sets it; the split in effect is plain.data_validation_split).
struct ValidationSettings {
  bool enabled = false;
};

//! Everything the engine and the planner read from a config, typed.
struct Settings {
  OptimizerSettings optimizer;
  PipelineSettings pipeline;
  IpuSettings ipu;
  ValidationSettings validation;
  int64_t model_batch = 0;  //!< the batch the model is built at: batch_size per slice (0 = the model's)
  PlainKeys plain;          //!< the plain keys, settled by their DERIVE (core/public/iputrain/plain_keys.hpp)
  KeyLocations keys;        //!< where each key was set, for rules checked later
};

}  // namespace iputrain
