// iputrain — loads, checks, resolves and describes a Config (iputrain/config.hpp); the schema
// behind these functions is frontend/config/keys_*.cpp and the cross-key rules frontend/config/rules.cpp.
//
//   iputrain::Config cfg = iputrain::config::load("configs/mnist.toml", {"training.steps=100"});
//   iputrain::Settings run = iputrain::config::resolve(cfg);
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "iputrain/config.hpp"
#include "iputrain/instances_def.hpp"
#include "iputrain/settings.hpp"

namespace iputrain {

//! A config and its settings, resolved once (config::resolve()) with the instances of the run folded
//! in: what Model::load, Plan::make and Session take. A Config converts to one implicitly (and is
//! resolved then), so a program that makes one ResolvedConfig and hands it to all three resolves
//! its config once per run, as `iputrain train` does; one that hands each a Config resolves it for
//! each. Immutable and cheap to copy (its parts are shared).
class ResolvedConfig {
 public:
  //! `config` alone: one instance.
  ResolvedConfig(const Config& config);  // NOLINT(google-explicit-constructor): a Config is accepted where one is
  //! `config` in the run `launched` (current_instances()): an mpirun run's count and this process's
  //! index fill `ipu.experimental.multi_replica_distribution`, whose keys the config must leave unset
  //! or set alike. Throws iputrain::Error(Config) at the key when they differ.
  ResolvedConfig(const Config& config, const Instances& launched);

  //! The config as given (what `config show` and checkpoints write).
  const Config& config() const { return *config_; }
  //! Its settings, with the instances.
  const Settings& settings() const { return *settings_; }
  //! The instances it was resolved with ({1, 0, false} for a config alone).
  const Instances& instances() const { return instances_; }

 private:
  std::shared_ptr<const Config> config_;
  std::shared_ptr<const Settings> settings_;
  Instances instances_;
};

}  // namespace iputrain

namespace iputrain::config {

//! Reads and validates `path`; `sets` are "key.path=value" overrides applied on top.
//! Throws iputrain::Error(Config) naming the key path and its file:line:col.
Config load(const std::string& path, const std::vector<std::string>& sets = {});
//! Same from text (for tests and the API); `path` is used in messages and to resolve `extends`.
Config parse(const std::string& text, const std::string& path = "<config>", const std::vector<std::string>& sets = {});

//! The config as typed settings (enums, resolved defaults): what the planner and the engine read.
//! A run resolves its config once: through a ResolvedConfig, which Model::load, Plan::make and
//! Session take.
Settings resolve(const Config& cfg);
//! IPUs acquired: `ipu.auto_select_ipus`, or the size of the first `ipu.select_ipus` device.
int64_t num_ipus(const Config& cfg);

// The values the `[device]` and `[system]` keys settle to: the DERIVE rules of their lines
// (iputrain/plain_keys.hpp; frontend/config/hardware_keys.cpp). A figure the config writes is used
// as written (one changed in code from its default too); one left unset takes the figure of the
// preset its version or system names (core/hardware_presets.cpp).
//! The IPU modelled: `device.version` when written, else `ipu.ipu_model.version`.
IpuVersion settled_device_version(const Config& cfg);
//! `device.tiles_per_ipu` written, else `ipu.ipu_model.tiles_per_ipu` when > 0, else the version's.
int64_t settled_tiles_per_ipu(const Config& cfg);
//! `[device]` figure `figure` of key `key`, written as `value`: as written, else the version's
//! (defined for int64_t and double).
template <class T>
T device_figure(const Config& cfg, const char* key, T value, T DeviceSection::*figure);
//! `[system]` figure `figure` of key `key`, written as `value`: as written, else that of the preset
//! (for "auto": the smallest holding the config's IPUs, or past the largest as many of its racks
//! as they need; for "custom": the keys' defaults).
template <class T>
T system_figure(const Config& cfg, const char* key, T value, T SystemSection::*figure);
//! `system.preset` with "auto" settled: the smallest preset with as many IPUs as the settled
//! figures, or "custom" past the largest.
SystemPreset settled_system_preset(const Config& cfg);

//! The effective config as TOML (`iputrain config show`): every key, those the config did not set
//! as comments; paths absolute by the path rule. The text, saved anywhere, loads back into a Config
//! that plans the same. With `rebase_paths` false, paths stay as written (what a checkpoint records and hashes, so that
//! a run moved to another folder resumes as the same run).
std::string show(const Config& cfg, bool rebase_paths = true);
//! What a written config adds to the file it came from (`tune -o`, the REPL's `save-config`): TOML
//! that `extends` `base_path` (by its absolute path, so it reads the same from any folder) and sets
//! the keys of `sets` ("key=value", as --set takes them) to their values in `cfg`, paths absolute.
//! Loaded, it is `cfg` again when `cfg` is `base_path` with `sets` applied. nullopt when a key of
//! `sets` is not one the text can hold (then write show(cfg)).
std::optional<std::string> show_extending(const Config& cfg, const std::string& base_path,
                                          const std::vector<std::string>& sets);
//! The key's effective value as TOML text; nullopt for an unknown key or a table.
std::optional<std::string> value_text(const Config& cfg, const std::string& key);

//! The key's row says it defines what a run computes (the optimizer, the training data and its
//! order, the seeds, the precision): checkpoints record it and a resumed run must agree on it.
//! False for an unknown key (the model's parameters, `model.NAME`, always define the run).
bool defines_run(const std::string& key);
//! The key's row says checkpoints record the value it settles to (Settings::plain), not the value written.
bool records_settled(const std::string& key);
//! The key's row says `iputrain tune` may vary it.
bool is_tunable(const std::string& key);
//! `cfg` with every layout key (its row says so: the IPUs, the stages' mapping, the accumulation,
//! the schedule, recomputation, sharding, offloading) back to its default: what `iputrain verify`
//! builds its one-IPU reference from.
Config without_layout(const Config& cfg);
//! The `pipeline.schedule` value that runs a model without pipelining (the schedule table's
//! unpipelined row, which accepts any accumulation count): what a one-IPU reference runs.
std::string unpipelined_schedule();

//! Type, default, allowed values, meaning and effect of a key or table (`iputrain config explain`).
//! Throws Error(Usage) with the nearest valid key for an unknown one.
std::string explain(const std::string& key);
//! Every key path, in documentation order.
std::vector<std::string> keys();
//! The key or table a misspelt path was most likely meant to be ("" if none is plausible): a key
//! with the same last component in another table, else the nearest path by edit distance.
std::string suggest_key(std::string_view key);
//! The values a key accepts when they are a closed list (an enum's names, true/false, and
//! "auto" for a tri-state); empty for other keys and unknown ones.
std::vector<std::string> key_choices(const std::string& key);
//! The key's default as TOML text; nullopt for an unknown key or a table.
std::optional<std::string> default_text(const std::string& key);
//! The key reference in Markdown (the text of docs/config.md).
std::string reference_markdown();

}  // namespace iputrain::config
