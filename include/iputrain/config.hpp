// iputrain — the training configuration (TOML): where and how a model trains.
//
// A Config is loaded from one TOML file (plus `--set key=value` overrides), validated against the
// schema (frontend/config/schema.cpp), and exposed as typed sections. Every value keeps the
// position it came from so later stages can point at it in their errors.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "iputrain/error.hpp"

namespace iputrain {

//! A compile-time model parameter value (from `[model]` or `--set model.X=…`).
using ParamValue = std::variant<int64_t, double, bool, std::string>;
std::string param_value_str(const ParamValue& v);

struct IpuSection {
  int64_t auto_select_ipus = 1;  //!< number of IPUs to acquire
};

struct OptimizerSection {
  std::string type = "sgd";     //!< sgd (more in later versions)
  double learning_rate = 0.01;  //!< step size
};

struct DataSection {
  std::string train;            //!< source spec: "idx:PREFIX" or "synthetic:..." (see docs/config.md)
  std::string test;             //!< source spec for eval; empty = none
  int64_t batch_size = 0;       //!< micro-batch per replica; 0 = the model's `batch` parameter
  bool shuffle = true;          //!< reshuffle the training set every epoch
  uint64_t seed = 0;            //!< shuffle seed; 0 = training.seed
  int64_t prefetch_depth = 2;   //!< batches the infeed thread prepares ahead
};

struct TrainingSection {
  int64_t steps = 0;                //!< weight updates; 0 = use epochs
  double epochs = 0;                //!< passes over the training set when steps = 0
  int64_t steps_per_execution = 1;  //!< on-device loop iterations per host call
  uint64_t seed = 42;               //!< seeds initializers, dropout and shuffling
  int64_t log_every = 0;            //!< log a line every N steps; 0 = automatic
};

class Config {
 public:
  //! Reads and validates `path`; `sets` are "key.path=value" overrides applied on top.
  //! Throws iputrain::Error(Config) naming the key path and its file:line:col.
  static Config load(const std::string& path, const std::vector<std::string>& sets = {});
  //! Same from text (for tests and the API); `path` is used in messages.
  static Config parse(const std::string& text, const std::string& path = "<config>",
                      const std::vector<std::string>& sets = {});
  //! The defaults, as if loaded from an empty file.
  Config();

  std::map<std::string, ParamValue> model;  //!< `[model]` overrides, by parameter name
  IpuSection ipu;
  OptimizerSection optimizer;
  DataSection data;
  TrainingSection training;

  //! Where a key was set ("data.batch_size"); an invalid span if it came from the defaults.
  SourceSpan span_of(const std::string& key_path) const;
  //! The config file(s) text, for rendering errors located in them.
  std::shared_ptr<const SourceManager> sources() const { return sources_; }
  //! Raises Error(kind) located at key `key_path` of this config.
  [[noreturn]] void fail_at(const std::string& key_path, const std::string& message,
                            const std::string& hint = {}, ErrorKind kind = ErrorKind::Config) const;
  //! Path of the main config file ("" for defaults); data paths are resolved relative to it.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::map<std::string, SourceSpan> spans_;
  std::shared_ptr<SourceManager> sources_;
  friend class ConfigLoader;
};

}  // namespace iputrain
