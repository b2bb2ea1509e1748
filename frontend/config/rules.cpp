#include "frontend/config/rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "core/optim/lr_schedule.hpp"
#include "core/optim_table.hpp"
#include "core/pipeline_schedules/layout_rules.hpp"
#include "core/pipeline_schedules/schedule_def.hpp"

namespace iputrain::config {

namespace {

// The optimizers that read key `key` ("optimizer.beta1") by the optimizer table; setting one for
// another optimizer is a mistake. Every optimizer for a key that is not a hyper-parameter.
std::vector<std::string> optimizers_reading(std::string_view key) {
  const bool param = key.starts_with("optimizer.") && find_hyper_key(key.substr(10)) != nullptr;
  std::vector<std::string> out;
  for (const OptimizerDef* d : optimizer_table()) {
    if (!param || d->find(key.substr(10)) != nullptr) {
      out.emplace_back(d->name);
    }
  }
  return out;
}

//! Each schedule key and the schedules that read it (the schedule table's rows).
const std::vector<std::pair<std::string, std::vector<std::string>>>& schedule_params() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> all = [] {
    std::vector<std::pair<std::string, std::vector<std::string>>> out;
    for (const char* key : {"decay_steps", "decay_rate", "min_learning_rate"}) {
      out.emplace_back(fmt::format("optimizer.{}", key), optim::lr_schedules_reading(key));
    }
    return out;
  }();
  return all;
}

bool reads(const std::vector<std::string>& users, const std::string& value) {
  return std::find(users.begin(), users.end(), value) != users.end();
}

//! The first of `keys` that the config sets (where an error about them is shown), else the first.
std::string located(const Config& c, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    if (c.is_set(k)) {
      return k;
    }
  }
  return *keys.begin();
}

//! The definition of the schedule a run under `c` uses (its line settles it: sequential under batch
//! serialization; the key's values are the table's names).
const pipeline_schedules::ScheduleDef& schedule_of(const Config& c) {
  const pipeline_schedules::ScheduleDef* def =
      pipeline_schedules::find_schedule(settled_plain_keys(c).pipeline_schedule);
  return def != nullptr ? *def : pipeline_schedules::schedule_def(pipeline_schedules::ScheduleKind::Grouped);
}

//! The multiple of n after `size` (not one), or 0 past int64 (n may be 2^63 - 1: config_values fuzz).
int64_t next_multiple(int64_t size, int64_t n) {
  int64_t m = 0;
  return __builtin_mul_overflow(size / n + 1, n, &m) ? 0 : m;
}

// The layout rules (core/pipeline_schedules/layout_rules.hpp) when the config lists or maps its
// stages, so that it knows their number without the model; the planner checks them again for the
// model's own stages.
void check_listed_layout(const Config& c) {
  const int64_t stages = static_cast<int64_t>(
      !c.plain.pipeline_stages.empty() ? c.plain.pipeline_stages.size() : c.plain.pipeline_device_mapping.size());
  if (stages == 0) {
    return;
  }
  const int64_t per_replica = pipeline_schedules::replica_ipus(
      c.plain.pipeline_device_mapping, c.plain.pipeline_batch_serialization_iterations, num_ipus(c), stages);
  pipeline_schedules::fail_on(
      c, pipeline_schedules::replicas_breach(
             per_replica, num_ipus(c), c.is_set("ipu.select_ipus"),
             c.plain.pipeline_device_mapping.empty() ? "one IPU per stage" : "`pipeline.device_mapping`"));
  pipeline_schedules::fail_on(c, pipeline_schedules::sharing_breach(schedule_of(c), c.plain.pipeline_device_mapping));
  pipeline_schedules::fail_on(
      c, pipeline_schedules::accumulation_breach(schedule_of(c), c.plain.pipeline_gradient_accumulation_count, stages,
                                                 per_replica, true));
}

void check_pipeline(const Config& c) {
  if (!c.plain.pipeline_stages.empty() && c.plain.pipeline_stages.size() < 2) {
    c.fail_at("pipeline.stages", "`pipeline.stages` lists one stage; a pipeline has at least two",
              "remove `pipeline.stages` to train a single-stage model without pipelining");
  }
  // Batch serialization runs the slices of a micro-batch one after another: the sequential schedule.
  const std::string_view sequential = pipeline_schedules::unpipelined_schedule().name;
  if (c.plain.pipeline_batch_serialization_iterations > 1) {
    if (c.is_set("pipeline.schedule") && c.plain.pipeline_schedule != sequential) {
      c.fail_at("pipeline.schedule",
                fmt::format("batch serialization (`pipeline.batch_serialization_iterations` = {}) needs the "
                            "sequential schedule, not {}",
                            c.plain.pipeline_batch_serialization_iterations, c.plain.pipeline_schedule),
                "remove `pipeline.schedule` (it then defaults to sequential) or set it to \"sequential\"");
    }
    if (pipeline_schedules::mapped_ipus(c.plain.pipeline_device_mapping) > 1) {
      c.fail_at("pipeline.device_mapping",
                "batch serialization runs every stage on one IPU, but `pipeline.device_mapping` uses several",
                "map every stage to IPU 0, e.g. [0, 0, 0]");
    }
    if (c.plain.pipeline_reduction_method != GradientReduction::Sum) {
      c.fail_at("pipeline.reduction_method",
                fmt::format("batch serialization needs `pipeline.reduction_method` = \"sum\", not \"{}\"",
                            key_spelling(c.plain.pipeline_reduction_method)),
                "remove `pipeline.reduction_method`");
    }
    // The model is built at the slice size: data.batch_size (the micro-batch a stage computes)
    // divided by the iterations.
    const int64_t n = c.plain.pipeline_batch_serialization_iterations;
    if (c.plain.data_batch_size == 0) {
      c.fail_at("pipeline.batch_serialization_iterations",
                "batch serialization splits each micro-batch of `data.batch_size` samples, which is not set",
                fmt::format("set `data.batch_size` to a multiple of {}", n));
    }
    if (c.plain.data_batch_size % n != 0) {
      c.fail_at(
          "data.batch_size",
          fmt::format("`data.batch_size` = {} cannot be split into {} equal slices (batch_serialization_iterations)",
                      c.plain.data_batch_size, n),
          next_multiple(c.plain.data_batch_size, n) > 0
              ? fmt::format("use a multiple of {}, e.g. {}", n, next_multiple(c.plain.data_batch_size, n))
              : fmt::format("use a multiple of {}", n));
    }
    if (c.model.contains("batch")) {
      c.fail_at("model.batch",
                "with batch serialization the model's `batch` is the slice size, data.batch_size / "
                "batch_serialization_iterations; it cannot be set as well",
                "remove `[model] batch` and set `data.batch_size`");
    }
  }
  if (c.plain.pipeline_outfeed_loss && !c.plain.pipeline_outfeed_mask.empty()) {
    c.fail_at(located(c, {"pipeline.outfeed_mask", "pipeline.outfeed_loss"}),
              "`pipeline.outfeed_mask` cannot be combined with `pipeline.outfeed_loss`",
              "outfeed_loss outfeeds only the loss, so there is nothing to mask; keep one of them");
  }
  if (c.plain.pipeline_accumulate_outfeed && c.plain.training_outfeed_mode != OutfeedMode::All) {
    c.fail_at(located(c, {"pipeline.accumulate_outfeed", "training.outfeed_mode"}),
              "`pipeline.accumulate_outfeed` needs `training.outfeed_mode` = \"all\"",
              "an accumulated outfeed is enqueued once per weight update; the `last` mode would drop it");
  }
  const std::string mode(key_spelling(c.plain.pipeline_recomputation_mode));
  if (c.is_set("pipeline.recomputation_mode") && c.plain.pipeline_recomputation_mode != RecomputationMode::Auto &&
      !c.plain.ipu_allow_recompute) {
    c.fail_at(
        "pipeline.recomputation_mode",
        fmt::format("`pipeline.recomputation_mode` = \"{}\" has no effect while `ipu.allow_recompute` is off", mode),
        "set `ipu.allow_recompute = true` to recompute, or remove the key");
  }
  if (const pipeline_schedules::ScheduleDef& def = schedule_of(c); !pipeline_schedules::runs_recomputation(def, mode)) {
    const bool then = c.plain.pipeline_recomputation_mode == RecomputationMode::RecomputeThenBackpropagate;
    c.fail_at(
        located(c, {"pipeline.recomputation_mode", "pipeline.schedule"}),
        fmt::format("`{}` is supported by the {} schedules only", mode, pipeline_schedules::schedules_running(mode)),
        fmt::format("use `{}` (or `auto`) with the {} schedule",
                    then ? "recompute_and_backpropagate_interleaved" : "recompute_then_backpropagate", def.name));
  }
  if (c.plain.pipeline_offload_weights == true && c.plain.pipeline_replicated_weight_sharding == false) {
    c.fail_at("pipeline.offload_weights",
              "`pipeline.offload_weights` stores the shards of replicated weight sharding, which is off",
              "set `pipeline.replicated_weight_sharding` to true or \"auto\"");
  }
  const std::vector<int64_t>& blocks = c.plain.pipeline_auto_stage_blocks;
  const int64_t stages = c.plain.pipeline_auto_stages;
  if (!blocks.empty() && static_cast<int64_t>(blocks.size()) != stages) {
    c.fail_at("pipeline.auto_stage_blocks",
              fmt::format("`pipeline.auto_stage_blocks` has {} entries but `pipeline.auto_stages` asks for {} stages",
                          blocks.size(), stages),
              stages == 0 ? "set `pipeline.auto_stages` to the number of stages the counts describe"
                          : "give one count of blocks per automatic stage");
  }
  if (!c.plain.pipeline_stages.empty() && !c.plain.pipeline_device_mapping.empty() &&
      c.plain.pipeline_stages.size() != c.plain.pipeline_device_mapping.size()) {
    c.fail_at("pipeline.device_mapping",
              fmt::format("`pipeline.device_mapping` has {} entries but `pipeline.stages` lists {} stages",
                          c.plain.pipeline_device_mapping.size(), c.plain.pipeline_stages.size()),
              "give one IPU (or list of IPUs) per stage");
  }
  check_listed_layout(c);
}

void check_ipu(const Config& c) {
  check_hardware(c);
  // The devices' IPUs together: each physical IPU once.
  const std::vector<int32_t> physical = selected_ipus(c.plain.ipu_select_ipus);
  for (size_t i = 0; i < physical.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (physical[i] == physical[j]) {
        c.fail_at("ipu.select_ipus",
                  fmt::format("`ipu.select_ipus` = [{}] uses IPU {} twice: its devices overlap",
                              fmt::join(c.plain.ipu_select_ipus, ", "), physical[i]),
                  "list devices with no IPU in common (0-15 single IPUs, 16-23 pairs, 24-27 quads, 28-29 eights, "
                  "30 all sixteen)");
      }
    }
  }
  const SchedulerAlgorithm algorithm = c.plain.ipu_scheduling_algorithm;
  for (const char* k : {"ipu.scheduling.maximum_scheduler_lookahead_depth",
                        "ipu.scheduling.maximum_scheduler_search_space_size"}) {
    if (c.is_set(k) && algorithm != SchedulerAlgorithm::LookAhead) {
      c.fail_at(k, fmt::format("`{}` applies only to the look_ahead scheduler, not {}", k, key_spelling(algorithm)),
                "set `ipu.scheduling.algorithm = \"look_ahead\"` or remove the key");
    }
  }
  const int64_t index = c.plain.ipu_experimental_multi_replica_distribution_process_index;
  const int64_t count = c.plain.ipu_experimental_multi_replica_distribution_process_count;
  if (index > 0 && index >= count) {
    c.fail_at("ipu.experimental.multi_replica_distribution.process_index",
              fmt::format("`process_index` = {} must be less than `process_count` = {}", index, count),
              "processes are numbered 0 to process_count - 1");
  }
  const int64_t io_tiles = c.plain.ipu_io_tiles_num_io_tiles;
  if (c.plain.ipu_io_tiles_place_ops_on_io_tiles && io_tiles == 0) {
    c.fail_at("ipu.io_tiles.place_ops_on_io_tiles", "I/O ops cannot be placed on I/O tiles: there are none",
              "set `ipu.io_tiles.num_io_tiles` to the number of tiles to reserve");
  }
  const int64_t tiles = settled_tiles_per_ipu(c);
  if (io_tiles >= tiles) {
    c.fail_at("ipu.io_tiles.num_io_tiles",
              fmt::format("{} I/O tiles leave no compute tiles on an IPU of {} tiles", io_tiles, tiles),
              "reserve fewer tiles for I/O");
  }
  const int64_t dbn = c.plain.ipu_norms_experimental_distributed_batch_norm_replica_group_size;
  if (dbn > 1 && io_tiles > 0) {
    c.fail_at(located(c, {"ipu.norms.experimental.distributed_batch_norm_replica_group_size"}),
              "distributed batch norm cannot be combined with I/O tiles",
              "set `ipu.io_tiles.num_io_tiles = 0` or the replica group size to 1");
  }
  if (dbn > 1 && num_ipus(c) % dbn != 0) {
    c.fail_at("ipu.norms.experimental.distributed_batch_norm_replica_group_size",
              fmt::format("batch-norm replica groups of {} do not divide the {} IPUs", dbn, num_ipus(c)),
              "the group size must divide the number of replicas");
  }
}

void check_schedule(const Config& c) {
  const std::string& name = c.plain.optimizer_lr_schedule;
  for (const auto& [key, schedules] : schedule_params()) {
    if (c.is_set(key) && !reads(schedules, name)) {
      c.fail_at(
          key, fmt::format("`{}` has no effect with `optimizer.lr_schedule` = \"{}\"", key, name),
          fmt::format("it is used by the schedules: {}; remove it or change the schedule", fmt::join(schedules, ", ")));
    }
  }
  const optim::LrScheduleDef* schedule = find_lr_schedule_folded(name);
  if (schedule == nullptr) {
    return;  // the key's row has refused the spelling
  }
  if (schedule->reads_key("decay_steps") && c.plain.optimizer_decay_steps == 0) {
    c.fail_at("optimizer.lr_schedule", fmt::format("the {} schedule needs `optimizer.decay_steps`", schedule->name),
              fmt::format("set `decay_steps` to {}", schedule->decay_steps_means));
  }
  const double rate = c.plain.optimizer_learning_rate;
  const double floor = c.plain.optimizer_min_learning_rate;
  if (schedule->reads_key("min_learning_rate") && floor >= rate) {
    c.fail_at(located(c, {"optimizer.min_learning_rate", "optimizer.learning_rate"}),
              fmt::format("the {} schedule decays from `learning_rate` = {} to `min_learning_rate` = {}, "
                          "which is not lower",
                          schedule->name, rate, floor),
              "make `min_learning_rate` smaller than `learning_rate`");
  }
}

// The master weights, the optimizer state's type and sharding, and the float flags against the compute
// type and the optimizer; dynamic loss scaling under f32 is allowed (it still skips updates whose
// gradients overflow).
void check_precision(const Config& c) {
  if (c.plain.training_precision == FloatType::F32 && c.plain.training_master_weights != MasterWeightsPlace::OnChip) {
    c.fail_at("training.master_weights",
              fmt::format("`training.master_weights = \"{}\"` needs a half compute type: under f32 the weights "
                          "are their own master copy",
                          key_spelling(c.plain.training_master_weights)),
              "set `training.precision = \"f16\"` (or \"bf16\"), or remove the key");
  }
  if (c.plain.training_master_weights == MasterWeightsPlace::Offloaded &&
      !c.plain.pipeline_offload_weight_update_variables.value_or(false)) {
    c.fail_at("training.master_weights",
              "`training.master_weights = \"offloaded\"` keeps the f32 master with the optimizer state in host "
              "memory, but the optimizer state is on the IPU",
              "set `pipeline.offload_weight_update_variables = true`, or keep the master on chip");
  }
  const OptimizerSettings optimizer = resolve(c).optimizer;
  if (c.plain.optimizer_state_dtype != FloatType::F32 && optimizer_state_slots(optimizer) == 0) {
    c.fail_at("optimizer.state_dtype",
              fmt::format("`optimizer.state_dtype` has no effect: `optimizer.type` = \"{}\" keeps no state",
                          c.plain.optimizer_type),
              "remove the key, or choose an optimizer with moments (momentum, adam, lamb, ...)");
  }
  for (const auto& [key, on] :
       {std::pair{"pipeline.replicated_optimizer_state_sharding", c.plain.pipeline_replicated_optimizer_state_sharding},
        std::pair{"pipeline.replicated_weight_sharding", c.plain.pipeline_replicated_weight_sharding == true}}) {
    if (on && !optimizer_def(optimizer).shardable) {
      c.fail_at(located(c, {key, "optimizer.type"}),
                fmt::format("`{}` splits every tensor's optimizer state into blocks, one per replica, but the state "
                            "of `optimizer.type` = \"{}\" is not element-wise: it cannot be split",
                            key, optimizer.type),
                "turn the sharding off, or choose an optimizer with element-wise state (adam, lamb, ...)");
    }
  }
  if (c.plain.training_precision == FloatType::F32) {
    // Set by set_all, the flags are harmless; asked for one by one, they reveal a missing key.
    for (const auto& [k, on] :
         {std::pair{"ipu.floating_point_behaviour.esr", c.plain.ipu_floating_point_behaviour_esr},
          std::pair{"ipu.floating_point_behaviour.nanoo", c.plain.ipu_floating_point_behaviour_nanoo}}) {
      if (on && c.is_set(k) && !c.plain.ipu_floating_point_behaviour_set_all) {
        c.fail_at(k,
                  fmt::format("`{}` changes how f16/bf16 results are rounded, but `training.precision` is f32", k),
                  "set `training.precision = \"f16\"` (or \"bf16\") to compute in half precision, or remove "
                  "the key");
      }
    }
  }
}

// One execution stages every update's outfeed and metrics on the host before it hands them over.
constexpr int64_t kMaxUpdatesPerExecution = int64_t{1} << 20;

void check_run(const Config& c) {
  const int64_t spe = c.plain.training_steps_per_execution;
  const int64_t repeats = c.plain.pipeline_repeat_count;
  if (spe > 0 && repeats > 0 && (spe > kMaxUpdatesPerExecution || repeats > kMaxUpdatesPerExecution / spe)) {
    c.fail_at(
        located(c, {"pipeline.repeat_count", "training.steps_per_execution"}),
        fmt::format("{} updates in one execution (`training.steps_per_execution` {} x `pipeline.repeat_count` "
                    "{}) are more than {}",
                    static_cast<double>(spe) * static_cast<double>(repeats), spe, repeats, kMaxUpdatesPerExecution),
        "an execution keeps every update's outfeed and metrics on the host until it ends; run fewer per call");
  }
  for (const HyperKey& p : optimizer_hyper_keys()) {
    const std::string key = fmt::format("optimizer.{}", p.name);
    const auto types = optimizers_reading(key);
    if (c.is_set(key) && !reads(types, c.plain.optimizer_type)) {
      c.fail_at(key, fmt::format("`{}` has no effect with `optimizer.type` = \"{}\"", key, c.plain.optimizer_type),
                fmt::format("it is used by: {}; remove it or change the optimizer", fmt::join(types, ", ")));
    }
  }
  check_schedule(c);
  check_precision(c);
  for (const char* k : {"training.validate_every", "training.validate_every_unit", "checkpoint.keep_best"}) {
    if (c.is_set(k) && !validates(c)) {
      c.fail_at(k, fmt::format("`{}` is set but nothing is validated", k),
                "set `data.validation` to a source, or `data.validation_split` to the fraction to hold out");
    }
  }
  if (!c.plain.checkpoint_keep_best.empty() && !c.plain.checkpoint_keep_best.starts_with("val_")) {
    c.fail_at("checkpoint.keep_best",
              fmt::format("`checkpoint.keep_best` = \"{}\" is not a validation metric", c.plain.checkpoint_keep_best),
              fmt::format("validation metrics are `val_` and an output's name, e.g. \"val_{}\"",
                          c.plain.checkpoint_keep_best));
  }
  const bool off =
      c.plain.checkpoint_every == 0 || c.is_set("checkpoint.dir");  // off on purpose (`--set checkpoint.dir=`)
  for (const char* k : {"checkpoint.every", "checkpoint.keep", "checkpoint.keep_best"}) {
    if (c.is_set(k) && c.plain.checkpoint_dir.empty() && !off) {
      c.fail_at(k, fmt::format("`{}` is set but `checkpoint.dir` is not, so no checkpoint is written", k),
                "set `checkpoint.dir` to the directory for checkpoints");
    }
  }
}

// The accumulation rule of every schedule, from its definition.
std::string accumulation_rules_doc() {
  std::string text = "The count suits the schedule (each schedule's definition gives the rule):";
  const auto& table = pipeline_schedules::schedule_table();
  for (size_t i = 0; i < table.size(); ++i) {
    text += fmt::format("{} {} for {}", i == 0 ? "" : (i + 1 == table.size() ? "; and" : ";"),
                        table[i]->accumulation_doc, table[i]->name);
  }
  return text + ".";
}

}  // namespace

const std::vector<RuleDoc>& rule_docs() {
  static const std::vector<RuleDoc> all = {
      {{"ipu.auto_select_ipus", "ipu.select_ipus"}, "At most one of them is set."},
      {{"training.steps_per_execution", "pipeline.repeat_count"},
       "Their product, the weight updates of one execution, is at most 2^20 (1048576): an execution keeps "
       "every update's outfeed and metrics on the host until it ends."},
      {{"ipu.select_ipus"},
       "Device ids exist in the emulated 16-IPU listing (0-30) and share no IPU; the plan runs on their IPUs "
       "in the order listed."},
      {{"ipu.auto_select_ipus", "pipeline.device_mapping"},
       "IPUs = IPUs per replica x replicas: the device's IPUs are a multiple of the IPUs one replica uses "
       "(the highest IPU in `device_mapping` + 1; unset: one per stage, or all stages on the only IPU)."},
      {{"pipeline.device_mapping", "pipeline.stages"}, "`device_mapping` has one entry per stage.", true},
      {{"pipeline.auto_stage_blocks", "pipeline.auto_stages"},
       "`auto_stage_blocks` has one entry per automatic stage; its counts add up to the model's repeated blocks.",
       true},
      {{"pipeline.gradient_accumulation_count", "pipeline.schedule"}, accumulation_rules_doc(), true},
      {{"pipeline.schedule", "pipeline.device_mapping"},
       fmt::format("The {} schedules do not train two stages on one IPU.",
                   pipeline_schedules::schedule_list(
                       [](const pipeline_schedules::ScheduleDef& d) { return d.one_position_per_ipu; }))},
      {{"pipeline.batch_serialization_iterations", "pipeline.schedule", "pipeline.device_mapping",
        "pipeline.reduction_method"},
       "Batch serialization (> 1) forces the sequential schedule, every stage on IPU 0 and the sum "
       "reduction."},
      {{"pipeline.outfeed_mask", "pipeline.outfeed_loss"}, "`outfeed_mask` and `outfeed_loss` are exclusive."},
      {{"pipeline.outfeed_mask"}, "`outfeed_mask` has one flag per output of the last stage.", true},
      {{"pipeline.accumulate_outfeed", "training.outfeed_mode"}, "Accumulating the outfeed needs outfeed mode `all`."},
      {{"pipeline.recomputation_mode", "ipu.allow_recompute"},
       "A mode other than `auto` needs `ipu.allow_recompute = true` (it would have no effect)."},
      {{"pipeline.recomputation_mode", "pipeline.schedule"},
       fmt::format("`recompute_then_backpropagate` needs one of the {} schedules; "
                   "`recompute_and_backpropagate_interleaved` one of the {}.",
                   pipeline_schedules::schedules_running("recompute_then_backpropagate"),
                   pipeline_schedules::schedules_running("recompute_and_backpropagate_interleaved"))},
      {{"pipeline.stages"}, "Lists at least two distinct stages, equal to the model's stages.", true},
      {{"pipeline.offload_weights", "pipeline.replicated_weight_sharding"},
       "Offloading weights needs replicated weight sharding: true, or auto where it resolves to on (the "
       "sequential schedule with batch_serialization_iterations > 1; checked when the plan is made)."},
      {{"pipeline.forward_propagation_stages_poplar_options", "pipeline.backward_propagation_stages_poplar_options"},
       "One entry per stage when given.",
       true},
      {{"ipu.norms.experimental.distributed_batch_norm_replica_group_size", "ipu.io_tiles.num_io_tiles"},
       "Distributed batch norm is not combined with I/O tiles (as the seed refuses), and its group size divides "
       "the IPUs (the planner checks it against the replicas). Unlike the seed, it works in any stage of a "
       "pipeline."},
      {{"ipu.scheduling.maximum_scheduler_lookahead_depth", "ipu.scheduling.maximum_scheduler_search_space_size",
        "ipu.scheduling.algorithm"},
       "The look-ahead limits are set only with the `look_ahead` algorithm."},
      {{"ipu.experimental.multi_replica_distribution.process_index",
        "ipu.experimental.multi_replica_distribution.process_count"},
       "`process_index` < `process_count`."},
      {{"ipu.io_tiles.place_ops_on_io_tiles", "ipu.io_tiles.num_io_tiles"},
       "Placing ops on I/O tiles needs I/O tiles, and some tiles must remain for compute."},
      {{"ipu.floating_point_behaviour.set_all"}, "Turns `inv`, `div0`, `oflo`, `esr` and `nanoo` on."},
      {{"ipu.ipu_model.version", "device.version", "ipu.ipu_model.tiles_per_ipu", "device.tiles_per_ipu"},
       "Either version key picks the device preset (both set must agree); a `[device]` figure set explicitly "
       "replaces the preset's; `ipu.ipu_model.tiles_per_ipu` > 0 sets the tile count (an explicit "
       "`device.tiles_per_ipu` must agree)."},
      {{"optimizer.type", "optimizer.momentum", "optimizer.beta1", "optimizer.rho"},
       "A hyper-parameter is set only for an optimizer that uses it (see each key)."},
      {{"optimizer.lr_schedule", "optimizer.decay_steps", "optimizer.decay_rate", "optimizer.min_learning_rate"},
       "A schedule that reads `decay_steps` needs it; a schedule parameter is set only for a schedule that "
       "uses it; a schedule's floor `min_learning_rate` is below `learning_rate`."},
      {{"training.steps", "training.epochs"}, "At most one of them is set."},
      {{"checkpoint.every", "checkpoint.keep", "checkpoint.dir"},
       "`every` and `keep` need a `dir`; `every = 0`, or a `dir` set to \"\", switches checkpoints off."},
      {{"training.master_weights", "training.precision", "pipeline.offload_weight_update_variables"},
       "`offloaded` and `none` need an f16 or bf16 precision; `offloaded` also needs the optimizer state "
       "offloaded."},
      {{"optimizer.state_dtype", "optimizer.type"}, "Set only for an optimizer that keeps state."},
      {{"training.precision", "ipu.floating_point_behaviour.esr", "ipu.floating_point_behaviour.nanoo"},
       "`esr` and `nanoo` are set one by one only with an f16 or bf16 precision (`set_all` may set them "
       "under f32, where they do nothing)."},
  };
  return all;
}

std::vector<int32_t> selected_ipus(const std::vector<int64_t>& ids) {
  std::vector<int32_t> out;
  for (int64_t id : ids) {
    const int64_t size = emulated_device_size(id);
    const int64_t first_id = size == 1 ? 0 : size == 2 ? 16 : size == 4 ? 24 : size == 8 ? 28 : 30;
    for (int64_t k = 0; k < size; ++k) {
      out.push_back(static_cast<int32_t>((id - first_id) * size + k));
    }
  }
  return out;
}

int64_t emulated_device_size(int64_t id) {
  if (id < 16) {
    return 1;
  }
  if (id < 24) {
    return 2;
  }
  if (id < 28) {
    return 4;
  }
  if (id < 30) {
    return 8;
  }
  return 16;
}

// Whether what key `k` needs (KeySpec::needs) holds in `c`: `KEY` set to a value other than its
// default ("" for checkpoint.keep_best: none), or `KEY = VALUE` holding that value (set or not).
bool needs_met(const Config& c, const KeySpec& k) {
  const size_t equals = k.needs.find(" = ");
  if (equals != std::string::npos) {
    const std::optional<std::string> value = value_text(c, k.needs.substr(0, equals));
    return value == k.needs.substr(equals + 3);
  }
  const KeySpec* needed = find_key(k.needs);
  return c.is_set(k.needs) && (needed == nullptr || needed->access.get(c) != needed->default_value);
}

// A key set without what it needs would do nothing: refused at the key.
void check_needs(const Config& c) {
  for (const KeySpec& k : schema()) {
    if (!k.needs.empty() && c.is_set(k.path) && !needs_met(c, k)) {
      c.fail_at(k.path, fmt::format("`{}` has no effect without `{}`", k.path, k.needs),
                fmt::format("set `{}` too, or remove `{}`", k.needs, k.path));
    }
  }
}

void apply_rules(const Config& cfg) {
  check_needs(cfg);
  check_ipu(cfg);
  check_pipeline(cfg);
  check_run(cfg);
}

}  // namespace iputrain::config

namespace iputrain::config {

bool validates(const Config& c) { return !c.plain.data_validation.empty() || c.plain.data_validation_split > 0; }

std::string inactive_reason(const Config& c, const KeySpec& k) {
  if (c.is_set(k.path)) {
    return {};
  }
  const Value v = k.access.get(c);
  if ((k.type == KeyType::Int && !k.range.contains(static_cast<double>(std::get<int64_t>(v)))) ||
      (k.type == KeyType::Float && !k.range.contains(std::get<double>(v)))) {
    return "unset";  // a sentinel default such as "0 = use the model's value"
  }
  if (!k.needs.empty() && !needs_met(c, k)) {
    return fmt::format("unset; needs `{}`", k.needs);
  }
  for (const auto& other : k.conflicts) {
    const auto* list = std::get_if<ValueList>(&v);
    if (c.is_set(other) || (list != nullptr && list->empty())) {
      return fmt::format("unset; exclusive with `{}`", other);
    }
  }
  if (!reads(optimizers_reading(k.path), c.plain.optimizer_type)) {
    return fmt::format("not used by {}", c.plain.optimizer_type);
  }
  for (const auto& [key, schedules] : schedule_params()) {
    if (key == k.path && !reads(schedules, c.plain.optimizer_lr_schedule)) {
      return fmt::format("not used by the {} schedule", c.plain.optimizer_lr_schedule);
    }
  }
  if (k.path.find("maximum_scheduler_") != std::string::npos &&
      c.plain.ipu_scheduling_algorithm != SchedulerAlgorithm::LookAhead) {
    return "used by look_ahead only";
  }
  if ((k.path == "checkpoint.every" || k.path == "checkpoint.keep" || k.path == "checkpoint.keep_best") &&
      c.plain.checkpoint_dir.empty()) {
    return "no checkpoint.dir";
  }
  if ((k.path == "training.validate_every" || k.path == "training.validate_every_unit" ||
       k.path == "checkpoint.keep_best") &&
      !validates(c)) {
    return "nothing is validated";
  }
  return {};
}

const optim::LrScheduleDef* find_lr_schedule_folded(const std::string& name) {
  for (const optim::LrScheduleDef* d : optim::lr_schedule_table()) {
    if (enum_folded(d->name) == enum_folded(name)) {
      return d;
    }
  }
  return nullptr;
}

}  // namespace iputrain::config
