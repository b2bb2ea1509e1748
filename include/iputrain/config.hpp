// iputrain — the training configuration (TOML): where and how a model trains.
//
// A Config is plain data, and the origin the loader records. A key that is one line of
// IPUTRAIN_PLAIN_KEYS (iputrain/plain_keys.hpp) is the field `cfg.plain.PATH_WITH_UNDERSCORES`
// (`ipu.io_tiles.num_io_tiles` is `cfg.plain.ipu_io_tiles_num_io_tiles`), typed, an enum key as its
// enum (a key named from a table, such as `pipeline.schedule`, as its canonical spelling); the
// other keys are `extends`, the `[model]` overrides (`cfg.model`) and the optimizer's
// hyper-parameters, generated from the optimizer table (`cfg.optimizer.hyper`).
// iputrain/config_loader.hpp loads one from a TOML file (which may `extends = "base.toml"`, plus
// `--set key=value` overrides), validates it against the schema (frontend/config/keys_run.cpp and the
// plain lines) and the cross-key rules (frontend/config/rules.cpp) and keeps the position every
// value came from so later stages can point at it in their errors.
// The full key reference is docs/config.md (generated from the schema).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "iputrain/error.hpp"
#include "iputrain/plain_keys.hpp"

namespace iputrain {

//! A compile-time model parameter value (from `[model]` or `--set model.X=…`).
using ParamValue = std::variant<int64_t, double, bool, std::string>;
std::string param_value_str(const ParamValue& v);

// ---- the run ----------------------------------------------------------------------------------------

//! The optimizer's hyper-parameters (`optimizer.beta1`, …), by name, as written (`optimizer.type` and its
//! numbers are plain lines: `cfg.plain.optimizer_type`, ...). Which optimizers read each one, its
//! kind, range and defaults are in the optimizer table (core/optim/, each optimizer's file); flags
//! are 0 or 1. A name left out takes the chosen optimizer's default.
struct OptimizerSection {
  std::map<std::string, double> hyper;
};

//! Where a Config came from, recorded by the loader (iputrain/config_loader.hpp): empty for the
//! defaults and for a Config built in code.
struct ConfigOrigin {
  std::string path;                         //!< the main config file ("" for defaults)
  std::map<std::string, SourceSpan> spans;  //!< key path -> where it was set
  std::vector<Diagnostic> warnings;         //!< located warnings of the load
  //! The text of the config file(s) and `--set` overrides, for rendering located errors.
  std::shared_ptr<SourceManager> sources = std::make_shared<SourceManager>();
};

//! The training configuration as plain data: `Config{}` holds the defaults. Loading, validation,
//! resolving into Settings and the key reference are free functions in iputrain/config_loader.hpp.
struct Config {
  std::map<std::string, ParamValue> model;  //!< `[model]` overrides, by parameter name
  OptimizerSection optimizer;
  PlainKeys plain;      //!< the keys that are one line of IPUTRAIN_PLAIN_KEYS each
  ConfigOrigin origin;  //!< set by the loader

  //! Where a key was set ("data.batch_size"); an invalid span if it came from the defaults.
  SourceSpan span_of(const std::string& key_path) const;
  //! True if the key was set by a config file or `--set` (not a default).
  bool is_set(const std::string& key_path) const { return span_of(key_path).valid(); }
  //! The config file(s) text, for rendering errors located in them.
  std::shared_ptr<const SourceManager> sources() const { return origin.sources; }
  //! Raises Error(kind) located at key `key_path` of this config.
  [[noreturn]] void fail_at(const std::string& key_path, const std::string& message, const std::string& hint = {},
                            ErrorKind kind = ErrorKind::Config) const;
  //! Located warnings of the load, rendered (a key set that has no effect on a virtual IPU).
  std::vector<std::string> warnings() const;
  //! Path of the main config file ("" for defaults).
  const std::string& path() const { return origin.path; }
  //! The folder a relative path in key `key_path` resolves against (docs/config.md, "Paths"): the
  //! folder of the config file that set it (a file it `extends` included); "" (the current
  //! directory) for a value from `--set` or a default.
  std::string base_dir_of(const std::string& key_path) const;
  //! True when a config file (not `--set`) set key `key_path`: its relative paths follow the file's
  //! folder, which is "" for a file in the current directory.
  bool set_in_file(const std::string& key_path) const;
  //! `value` (a path written in key `key_path`) resolved by that rule; "" and absolute paths unchanged.
  //! With `absolute`, a relative result is made absolute (what a config written elsewhere needs).
  std::string resolve_path(const std::string& key_path, const std::string& value, bool absolute = false) const;
  //! A data source spec of key `key_path` ("csv:FILE") with its path resolved by that rule;
  //! "synthetic:…" and a spec without a `format:` unchanged.
  std::string resolve_data_spec(const std::string& key_path, const std::string& spec, bool absolute = false) const;
};

}  // namespace iputrain
