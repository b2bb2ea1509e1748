// iputrain — cross-key rules of the config (the IPUConfig and pipeline() checks of the seeds).
//
// apply_rules() runs after a config is loaded: it checks every rule that the config alone can
// decide; it changes nothing. Derived values are settled by their key's line when the config is
// resolved (`set_all` turning the five float flags on, the sequential schedule under batch
// serialization, the device's figures, the starting scale of dynamic loss scaling). Rules that need
// the model (the number of stages, the last stage's outputs) are checked by the planner's place pass
// (planner/layout_check.cpp), with the keys' locations that Settings keeps; the layout rules both use are
// core/pipeline_schedules/layout_rules.hpp.
#pragma once

#include <string>
#include <vector>

#include "core/optim/lr_schedule.hpp"
#include "frontend/config/schema.hpp"
#include "iputrain/config.hpp"

namespace iputrain::config {

//! One documented cross-key rule (for docs/config.md).
struct RuleDoc {
  std::vector<std::string> keys;  //!< the keys it relates
  std::string text;               //!< what it requires
  bool needs_model = false;       //!< checked by the planner against the model
};
const std::vector<RuleDoc>& rule_docs();

//! Checks the rules that need only the config. Throws a located Error(Config) at the key that breaks a
//! rule.
void apply_rules(const Config& cfg);

//! Refuses two version keys or two tile counts that disagree, and a system with fewer IPUs than the
//! config uses, each located at its key (frontend/config/hardware_keys.cpp).
void check_hardware(const Config& cfg);

//! The learning-rate schedule named `name` in any case (the key's spellings are case-insensitive),
//! or nullptr.
const optim::LrScheduleDef* find_lr_schedule_folded(const std::string& name);

//! IPUs of a device of the emulated 16-IPU gc-info listing (0-15: 1, 16-23: 2, 24-27: 4,
//! 28-29: 8, 30: 16).
int64_t emulated_device_size(int64_t id);

//! The physical IPUs (0-15) of the devices `ids` of that listing, in the order listed: device 5 is
//! IPU 5, device 17 the pair [2, 3], device 26 the quad [8 .. 11]. Empty when `ids` is empty.
std::vector<int32_t> selected_ipus(const std::vector<int64_t>& ids);

}  // namespace iputrain::config

namespace iputrain::config {

//! Why key `path` currently has no effect ("" if it has one): an unset sentinel, a
//! hyper-parameter of another optimizer, a look-ahead limit without look_ahead, … `config show`
//! writes such keys as comments so that its output loads back without breaking a rule.
std::string inactive_reason(const Config& cfg, const KeySpec& key);

//! True when a run under `cfg` validates while training: `data.validation` names a source or
//! `data.validation_split` holds samples out.
bool validates(const Config& cfg);

//! The plain keys' values a run under `cfg` uses: each line's DERIVE applied to the values as written
//! (resolve.cpp; `config show` comments an unset key with the value it settles to).
PlainKeys settled_plain_keys(const Config& cfg);

}  // namespace iputrain::config
