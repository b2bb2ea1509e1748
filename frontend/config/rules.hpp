// iputrain — cross-key rules of the config (the IPUConfig and pipeline() checks of the seeds).
//
// apply_rules() runs after a config is loaded: it checks every rule that the config alone can
// decide and normalises derived values (`set_all` turns the five float flags on; batch
// serialization makes the schedule sequential). Rules that need the model (the number of stages,
// the last stage's outputs) are in check_against_model(), which the planner calls.
#pragma once

#include <string>
#include <vector>

#include "frontend/config/schema.hpp"
#include "iputrain/config.hpp"

namespace iputrain::config {

//! One documented cross-key rule (for docs/config.md).
struct RuleDoc {
  std::vector<std::string> keys;  //!< the keys it relates
  std::string text;               //!< what it requires
  bool needs_model = false;       //!< checked by check_against_model()
};
const std::vector<RuleDoc>& rule_docs();

//! Checks the rules that need only the config and normalises derived values. Throws a located
//! Error(Config) at the key that breaks a rule.
void apply_rules(Config& cfg);

//! Fills the `[system]` figures not set from the preset `system.preset` names ("auto": the smallest
//! holding the config's IPUs) and refuses a system with fewer IPUs than the config uses
//! (frontend/config/systems.cpp).
void resolve_system(Config& cfg);

//! IPUs of a device of the emulated 16-IPU gc-info listing (0-15: 1, 16-23: 2, 24-27: 4,
//! 28-29: 8, 30: 16).
int64_t emulated_device_size(int64_t id);

//! The physical IPUs (0-15) of the devices `ids` of that listing, in the order listed: device 5 is
//! IPU 5, device 17 the pair [2, 3], device 26 the quad [8 .. 11]. Empty when `ids` is empty.
std::vector<int32_t> selected_ipus(const std::vector<int64_t>& ids);

//! The pipeline as the planner should build it.
struct PipelineShape {
  int64_t stages = 1;
  int64_t ipus_per_replica = 1;
  int64_t replicas = 1;
  int64_t gradient_accumulation_count = 1;  //!< the configured count, or the schedule's minimum
  std::string schedule = "grouped";
  bool pipelined = false;  //!< some `pipeline.*` key is set or a replica spans several IPUs
};

//! The smallest gradient accumulation count `schedule` accepts (it must also be a multiple of it):
//! grouped 2 x stages (stages when not training), interleaved the IPUs per replica, sequential 1.
int64_t min_gradient_accumulation(const std::string& schedule, int64_t stages, int64_t ipus_per_replica,
                                  bool training);

//! Checks the config against the model the planner is about to place: `stage_names` are the
//! model's stages in order, `last_stage_outputs` the number of outputs of the last stage (-1 =
//! unknown). Checks `pipeline.stages` names, `device_mapping` length = stages, replicas, the
//! gradient accumulation count, per-stage option lists, `outfeed_mask` length and distributed
//! batch norm vs pipelining. Throws a located Error(Config); returns the resolved shape.
PipelineShape check_against_model(const Config& cfg, const std::vector<std::string>& stage_names,
                                  int64_t last_stage_outputs = -1, bool training = true);

//! As above for a model whose stages form pipeline positions: a position is one stage, or the
//! stages of one `parallel` block, and takes one `device_mapping` entry (a list for a parallel
//! block: one IPU per member stage, or a single IPU for all of them). In `pipeline.stages` a
//! parallel block is written as its stage names joined by '+' ("b1+b2").
PipelineShape check_against_positions(const Config& cfg, const std::vector<std::vector<std::string>>& positions,
                                      int64_t last_stage_outputs, bool training);

}  // namespace iputrain::config

namespace iputrain::config {

//! Why key `path` currently has no effect ("" if it has one): an unset sentinel, a
//! hyper-parameter of another optimizer, a look-ahead limit without look_ahead, … `config show`
//! writes such keys as comments so that its output loads back without breaking a rule.
std::string inactive_reason(const Config& cfg, const KeySpec& key);

}  // namespace iputrain::config
