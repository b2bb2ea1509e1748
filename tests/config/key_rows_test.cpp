// What a key is to the commands is a field of its row (issue 48, point 1): the keys that define a
// run (`--resume`), the layout keys `verify` resets, the keys `tune` varies and the enum spellings
// resolve() reads. Each set is pinned here to what the commands held in lists of their own before
// (engine/checkpoint.cpp's defines_run, cli/verify_command.cpp's resets, api/tune_candidates.cpp's
// knobs, resolve.cpp's spelling tables), so moving them into the rows changed none of them.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "core/optim/lr_schedule.hpp"
#include "frontend/config/schema.hpp"
#include "iputrain/config_loader.hpp"

using namespace iputrain;

namespace {

// engine/checkpoint.cpp's defines_run before the rows held it, verbatim.
bool listed_defines_run(const std::string& key) {
  static const std::set<std::string> kFree = {"data.test",
                                              "data.validation",
                                              "data.prefetch_depth",
                                              "data.batch_size",
                                              "training.steps",
                                              "training.epochs",
                                              "training.steps_per_execution",
                                              "training.log_every",
                                              "training.outfeed_mode",
                                              "training.validate_every",
                                              "training.validate_every_unit"};
  const bool table = key.starts_with("model.") || key.starts_with("optimizer.") || key.starts_with("data.") ||
                     key.starts_with("training.");
  return table && kFree.count(key) == 0;
}

// cli/verify_command.cpp's reference_config before the rows held its resets: each key it set back
// (auto_select_ipus, the mapping, the accumulation and the schedule are then set to the
// reference's own values, here left at their defaults).
Config listed_layout_reset(const Config& config) {
  Config r = config;
  r.plain.ipu_auto_select_ipus = 1;
  r.plain.ipu_select_ipus = {};
  r.plain.ipu_allow_recompute = false;
  r.plain.ipu_experimental_multi_replica_distribution_process_count = 0;
  r.plain.ipu_experimental_multi_replica_distribution_process_index = 0;
  r.plain.pipeline_device_mapping = {};
  r.plain.pipeline_auto_stages = 0;
  r.plain.pipeline_auto_stage_blocks = {};
  r.plain.pipeline_gradient_accumulation_count = 0;
  r.plain.pipeline_schedule = "grouped";
  r.plain.pipeline_recomputation_mode = RecomputationMode::Auto;
  r.plain.pipeline_replicated_optimizer_state_sharding = false;
  r.plain.pipeline_replicated_weight_sharding.reset();
  r.plain.pipeline_offload_weight_update_variables.reset();
  r.plain.pipeline_offload_activations.reset();
  r.plain.pipeline_offload_gradient_accumulation_buffers.reset();
  r.plain.pipeline_offload_weights.reset();
  return r;
}

std::set<std::string> rows_where(bool config::KeySpec::*field) {
  std::set<std::string> out;
  for (const config::KeySpec& k : config::schema()) {
    if (k.*field) {
      out.insert(k.path);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("the rows that define the run are the keys checkpoint.cpp listed") {
  int defining = 0;
  for (const std::string& key : config::keys()) {
    CAPTURE(key);
    CHECK(config::defines_run(key) == listed_defines_run(key));
    defining += config::defines_run(key) ? 1 : 0;
  }
  CHECK(defining >= 22);  // the optimizer's keys, data.train/shuffle/seed/validation_split, 4 of training
  CHECK_FALSE(config::defines_run("no.such.key"));
}

TEST_CASE("the layout rows are the keys verify reset, and without_layout resets them as it did") {
  const std::set<std::string> layout = {"ipu.auto_select_ipus",
                                        "ipu.select_ipus",
                                        "ipu.allow_recompute",
                                        "ipu.experimental.multi_replica_distribution.process_count",
                                        "ipu.experimental.multi_replica_distribution.process_index",
                                        "pipeline.device_mapping",
                                        "pipeline.auto_stages",
                                        "pipeline.auto_stage_blocks",
                                        "pipeline.gradient_accumulation_count",
                                        "pipeline.schedule",
                                        "pipeline.recomputation_mode",
                                        "pipeline.replicated_optimizer_state_sharding",
                                        "pipeline.replicated_weight_sharding",
                                        "pipeline.offload_weight_update_variables",
                                        "pipeline.offload_activations",
                                        "pipeline.offload_gradient_accumulation_buffers",
                                        "pipeline.offload_weights"};
  CHECK(rows_where(&config::KeySpec::layout) == layout);
  // Every layout key off its default, and keys that are not layout, set through their rows (past
  // the cross-key rules, which would refuse the combination: the reset is of values).
  using config::Value;
  using config::ValueList;
  const std::vector<std::pair<std::string, Value>> values = {
      {"ipu.auto_select_ipus", 8},
      {"ipu.select_ipus", ValueList{16}},
      {"ipu.allow_recompute", true},
      {"ipu.experimental.multi_replica_distribution.process_count", 2},
      {"ipu.experimental.multi_replica_distribution.process_index", 1},
      {"pipeline.device_mapping", ValueList{0, 1}},
      {"pipeline.auto_stages", 2},
      {"pipeline.auto_stage_blocks", ValueList{1, 1}},
      {"pipeline.gradient_accumulation_count", 8},
      {"pipeline.schedule", "interleaved"},
      {"pipeline.recomputation_mode", "recompute_then_backpropagate"},
      {"pipeline.replicated_optimizer_state_sharding", true},
      {"pipeline.replicated_weight_sharding", true},
      {"pipeline.offload_weight_update_variables", true},
      {"pipeline.offload_activations", true},
      {"pipeline.offload_gradient_accumulation_buffers", true},
      {"pipeline.offload_weights", true},
      {"pipeline.batch_serialization_iterations", 2},
      {"pipeline.stages", ValueList{"a", "b"}},
      {"optimizer.type", "adam"},
      {"training.seed", 3},
  };
  Config c;
  for (const auto& [key, value] : values) {
    CAPTURE(key);
    const config::KeySpec* row = config::find_key(key);
    REQUIRE(row != nullptr);
    row->access.set(c, value);
    CHECK_FALSE(config::holds_default(c, *row));
  }
  const Config now = config::without_layout(c);
  const Config listed = listed_layout_reset(c);
  int changed = 0;
  for (const std::string& key : config::keys()) {
    CAPTURE(key);
    CHECK(config::value_text(now, key) == config::value_text(listed, key));
    changed += config::value_text(now, key) != config::value_text(c, key) ? 1 : 0;
  }
  CHECK(changed == static_cast<int>(layout.size()));
  CHECK(now.plain.pipeline_batch_serialization_iterations == 2);  // not layout: verify keeps the micro-batch
}

TEST_CASE("the tunable rows are the keys tune's knobs set") {
  const std::set<std::string> knobs = {"pipeline.schedule",
                                       "ipu.allow_recompute",
                                       "pipeline.recomputation_mode",
                                       "ipu.matmuls.poplar_options",
                                       "ipu.convolutions.poplar_options",
                                       "pipeline.gradient_accumulation_dtype",
                                       "pipeline.gradient_accumulation_order",
                                       "pipeline.offload_weight_update_variables",
                                       "pipeline.offload_gradient_accumulation_buffers",
                                       "pipeline.replicated_optimizer_state_sharding",
                                       "pipeline.replicated_weight_sharding",
                                       "pipeline.batch_serialization_iterations"};
  CHECK(rows_where(&config::KeySpec::tunable) == knobs);
  for (const std::string& key : knobs) {
    CHECK(config::is_tunable(key));
  }
  CHECK_FALSE(config::is_tunable("data.batch_size"));
}

namespace {

// resolve.cpp's spelling tables (and its string comparisons) before the rows held them: key,
// spelling, the setting it gave.
struct Case {
  const char* key;
  const char* spelling;
  int setting;
  int (*read)(const Settings&);
};

std::vector<Case> enum_cases() {
  const auto precision = [](const Settings& s) { return static_cast<int>(s.plain.training_precision); };
  const auto state = [](const Settings& s) { return static_cast<int>(s.plain.optimizer_state_dtype); };
  const auto accumulators = [](const Settings& s) {
    return static_cast<int>(s.plain.pipeline_gradient_accumulation_dtype);
  };
  const auto outfeed_type = [](const Settings& s) {
    return static_cast<int>(s.plain.pipeline_accumulate_outfeed_dtype);
  };
  const auto master = [](const Settings& s) { return static_cast<int>(s.plain.training_master_weights); };
  const auto scaling = [](const Settings& s) { return static_cast<int>(s.plain.optimizer_loss_scaling_mode); };
  const auto outfeed_mode = [](const Settings& s) { return static_cast<int>(s.plain.training_outfeed_mode); };
  const auto accumulation_order = [](const Settings& s) {
    return static_cast<int>(s.plain.pipeline_gradient_accumulation_order);
  };
  const int f32 = static_cast<int>(FloatType::F32), f16 = static_cast<int>(FloatType::F16),
            bf16 = static_cast<int>(FloatType::BF16);
  std::vector<Case> cases = {
      {"training.precision", "f32", f32, precision},
      {"training.precision", "f16", f16, precision},
      {"training.precision", "bf16", bf16, precision},
      {"optimizer.state_dtype", "f32", f32, state},
      {"optimizer.state_dtype", "f16", f16, state},
      {"optimizer.state_dtype", "bf16", bf16, state},
      {"pipeline.gradient_accumulation_dtype", "same", static_cast<int>(AccumulatorType::Same), accumulators},
      {"pipeline.gradient_accumulation_dtype", "fp32", static_cast<int>(AccumulatorType::Fp32), accumulators},
      {"pipeline.gradient_accumulation_dtype", "fp16", static_cast<int>(AccumulatorType::Fp16), accumulators},
      {"pipeline.accumulate_outfeed_dtype", "same", static_cast<int>(AccumulatorType::Same), outfeed_type},
      {"pipeline.accumulate_outfeed_dtype", "fp32", static_cast<int>(AccumulatorType::Fp32), outfeed_type},
      {"pipeline.accumulate_outfeed_dtype", "fp16", static_cast<int>(AccumulatorType::Fp16), outfeed_type},
      {"training.master_weights", "on_chip", static_cast<int>(MasterWeightsPlace::OnChip), master},
      {"training.master_weights", "offloaded", static_cast<int>(MasterWeightsPlace::Offloaded), master},
      {"training.master_weights", "none", static_cast<int>(MasterWeightsPlace::None), master},
      {"optimizer.loss_scaling_mode", "static", static_cast<int>(LossScaling::Static), scaling},
      {"optimizer.loss_scaling_mode", "dynamic", static_cast<int>(LossScaling::Dynamic), scaling},
      {"training.outfeed_mode", "all", static_cast<int>(OutfeedMode::All), outfeed_mode},
      {"training.outfeed_mode", "last", static_cast<int>(OutfeedMode::Last), outfeed_mode},
      {"pipeline.gradient_accumulation_order", "canonical", static_cast<int>(GradientAccumulationOrder::Canonical),
       accumulation_order},
      {"pipeline.gradient_accumulation_order", "sequential", static_cast<int>(GradientAccumulationOrder::Sequential),
       accumulation_order},
  };
  const auto reduction = [](const Settings& s) { return static_cast<int>(s.plain.pipeline_reduction_method); };
  // A schedule's setting is its row's name; its position in the table stands for it here.
  const auto lr = [](const Settings& s) {
    const auto& table = iputrain::optim::lr_schedule_table();
    return static_cast<int>(
        std::find(table.begin(), table.end(), iputrain::optim::find_lr_schedule(s.plain.optimizer_lr_schedule)) -
        table.begin());
  };
  const auto order = [](const Settings& s) { return static_cast<int>(s.plain.ipu_selection_order); };
  const auto scheduler = [](const Settings& s) { return static_cast<int>(s.plain.ipu_scheduling_algorithm); };
  std::vector<Case> more = {
      {"pipeline.reduction_method", "sum", static_cast<int>(GradientReduction::Sum), reduction},
      {"pipeline.reduction_method", "mean", static_cast<int>(GradientReduction::Mean), reduction},
      {"pipeline.reduction_method", "running_mean", static_cast<int>(GradientReduction::RunningMean), reduction},
      {"ipu.selection_order", "auto", static_cast<int>(SelectionOrder::Auto), order},
      {"ipu.selection_order", "zigzag", static_cast<int>(SelectionOrder::Zigzag), order},
      {"ipu.selection_order", "snake", static_cast<int>(SelectionOrder::Snake), order},
      {"ipu.selection_order", "hoof", static_cast<int>(SelectionOrder::Hoof), order},
      {"ipu.scheduling.algorithm", "choose_best", static_cast<int>(SchedulerAlgorithm::ChooseBest), scheduler},
      {"ipu.scheduling.algorithm", "clustering", static_cast<int>(SchedulerAlgorithm::Clustering), scheduler},
      {"ipu.scheduling.algorithm", "post_order", static_cast<int>(SchedulerAlgorithm::PostOrder), scheduler},
      {"ipu.scheduling.algorithm", "look_ahead", static_cast<int>(SchedulerAlgorithm::LookAhead), scheduler},
      {"ipu.scheduling.algorithm", "shortest_path", static_cast<int>(SchedulerAlgorithm::ShortestPath), scheduler},
  };
  // A schedule's setting is its row: every row of the table, by its position.
  for (size_t k = 0; k < iputrain::optim::lr_schedule_table().size(); ++k) {
    more.push_back(
        {"optimizer.lr_schedule", iputrain::optim::lr_schedule_table()[k]->name.data(), static_cast<int>(k), lr});
  }
  const auto recomputation = [](const Settings& s) { return static_cast<int>(s.plain.pipeline_recomputation_mode); };
  for (const RecomputationMode mode : {RecomputationMode::Auto, RecomputationMode::RecomputeThenBackpropagate,
                                       RecomputationMode::RecomputeAndBackpropagateInterleaved}) {
    more.push_back({"pipeline.recomputation_mode", key_spelling(mode).data(), static_cast<int>(mode), recomputation});
  }
  const auto every_epochs = [](const Settings& s) {
    return static_cast<int>(s.plain.training_validate_every_unit == ValidateEveryUnit::Epochs);
  };
  const auto execution = [](const Settings& s) {
    return static_cast<int>(s.plain.profiling_profile_execution != ProfileExecution::NoProfile);
  };
  // keep_best_mode: max and min whatever the metric, auto by its name (keep_best is "" here: min).
  const auto maximize = [](const Settings& s) {
    return static_cast<int>(s.plain.checkpoint_keep_best_mode == KeepBestMode::Max);
  };
  more.insert(more.end(), {{"training.validate_every_unit", "steps", 0, every_epochs},
                           {"training.validate_every_unit", "epochs", 1, every_epochs},
                           {"profiling.profile_execution", "no_profile", 0, execution},
                           {"profiling.profile_execution", "device_profile", 1, execution},
                           {"profiling.profile_execution", "ipu_profile", 1, execution},
                           {"profiling.profile_execution", "tile_profile", 1, execution},
                           {"checkpoint.keep_best_mode", "auto", 0, maximize},
                           {"checkpoint.keep_best_mode", "min", 0, maximize},
                           {"checkpoint.keep_best_mode", "max", 1, maximize}});
  cases.insert(cases.end(), more.begin(), more.end());
  return cases;
}

}  // namespace

TEST_CASE("resolve reads each enum key's spellings from its row, to the settings its own tables gave") {
  const std::vector<Case> all = enum_cases();
  std::set<std::pair<std::string, std::string>> seen;
  for (const Case& c : all) {
    CAPTURE(c.key);
    CAPTURE(c.spelling);
    // Spelt as a user may (upper case, `-` for `_`): the row's spellings are compared folded.
    std::string loud = c.spelling;
    for (char& ch : loud) {
      ch = ch == '_' ? '-' : static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    }
    const config::KeySpec* row = config::find_key(c.key);
    REQUIRE(row != nullptr);
    for (const std::string& spelt : {std::string(c.spelling), loud}) {
      // Set through the row, past the cross-key rules (master weights without half precision, …),
      // which resolve() does not run.
      Config cfg;
      cfg.plain.ipu_allow_recompute = true;
      row->access.set(cfg, config::Value(spelt));
      CHECK(c.read(config::resolve(cfg)) == c.setting);
    }
    seen.insert({c.key, c.spelling});
  }
  // keep_best_mode auto: the highest value for a metric with `acc` in its name.
  Config acc;
  acc.plain.checkpoint_keep_best = "val_accuracy";
  CHECK(config::resolve(acc).plain.checkpoint_keep_best_mode == KeepBestMode::Max);
  acc.plain.checkpoint_keep_best_mode = KeepBestMode::Min;
  CHECK(config::resolve(acc).plain.checkpoint_keep_best_mode == KeepBestMode::Min);
  acc.plain.checkpoint_keep_best = "val_loss";
  acc.plain.checkpoint_keep_best_mode = KeepBestMode::Auto;
  CHECK(config::resolve(acc).plain.checkpoint_keep_best_mode == KeepBestMode::Min);
  // Every spelling of every enum key resolve turns into a setting is pinned above.
  for (const auto& [key, spelling] : seen) {
    const config::KeySpec* row = config::find_key(key);
    REQUIRE(row != nullptr);
    for (const std::string& s : row->allowed) {
      CHECK(seen.count({key, s}) == 1);
    }
  }
}

// An enum plain key's spellings are its enumerators (IPUTRAIN_KEY_ENUM): its row allows exactly
// them, in order, its default is the spelling of PlainKeys{}'s value, and a value reads back as the
// spelling `config show` writes.
TEST_CASE("a plain enum key's spellings are its enumerators") {
  CHECK(key_spellings_of("ChooseBest, Clustering, PostOrder") ==
        std::vector<std::string>{"choose_best", "clustering", "post_order"});
  CHECK(key_spellings_of("OnChip,Offloaded") == std::vector<std::string>{"on_chip", "offloaded"});
  CHECK(key_spellings<MasterWeightsPlace>() == std::vector<std::string>{"on_chip", "offloaded", "none"});
  // A capital after a capital or a digit continues the word.
  CHECK(key_spellings<FloatType>() == std::vector<std::string>{"f32", "f16", "bf16"});
  CHECK(key_spelling(SchedulerAlgorithm::LookAhead) == "look_ahead");
  int enums = 0;
  for (const config::KeySpec& row : config::plain_keys()) {
    CAPTURE(row.path);
    CHECK(row.access.get(Config{}) == row.default_value);  // the field's initial value is the row's default
    if (row.type != config::KeyType::Enum) {
      continue;
    }
    ++enums;
    REQUIRE(!row.allowed.empty());
    for (const std::string& spelling : row.allowed) {
      Config c;
      row.access.set(c, config::Value(spelling));
      CHECK(row.access.get(c) == config::Value(spelling));
    }
  }
  // Besides these 25 enum rows (four of them strings named from a list), the lines are numbers,
  // flags, strings, lists, option tables and true/false/"auto" flags (plain_keys.hpp lists them); 35
  // of them are kept for compatibility (the next case). The count moves with every key that becomes a line.
  CHECK(enums == 25);
  CHECK(config::plain_keys().size() == 175);
  // Through the loader, any case and `-` for `_`.
  const Config c = config::parse(
      "[training]\nprecision = \"f16\"\nmaster_weights = \"NONE\"\n"
      "[ipu.scheduling]\nalgorithm = \"Look-Ahead\"\n");
  CHECK(c.plain.training_master_weights == MasterWeightsPlace::None);
  CHECK(c.plain.ipu_scheduling_algorithm == SchedulerAlgorithm::LookAhead);
  CHECK(config::resolve(c).plain.ipu_scheduling_algorithm == SchedulerAlgorithm::LookAhead);
}

// A line whose EFFECT is no_effect_here or refused_here is a key kept for compatibility: the loader
// warns of a value other than its default, or refuses it, with the line's reason; the value is kept
// as written (an OptionMap too), and nothing reads it.
TEST_CASE("a plain key kept for compatibility warns or is refused with its line's reason") {
  int inert = 0;
  for (const config::KeySpec& row : config::plain_keys()) {
    if (row.effect == config::Effect::None || row.effect == config::Effect::Refused) {
      ++inert;
      CAPTURE(row.path);
      CHECK(!row.reason.empty());
      CHECK((row.effect == config::Effect::None) == row.hint.empty());
    }
  }
  CHECK(inert == 35);
  const Config c = config::parse(
      "[ipu]\ncompilation_poplar_options = { \"debug.instrument\" = \"true\" }\n"
      "[ipu.optimizations]\nenable_fast_math = true\nmerge_remote_buffers = \"merge\"\n");
  CHECK(c.plain.ipu_compilation_poplar_options.at("debug.instrument") == "true");
  CHECK(c.plain.ipu_optimizations_merge_remote_buffers == MergeRemoteBuffers::Merge);
  const std::vector<std::string> warnings = c.warnings();
  REQUIRE(warnings.size() == 3);
  CHECK(warnings[0].find("`ipu.compilation_poplar_options` has no effect on a virtual IPU: Poplar engine "
                         "options") != std::string::npos);
  CHECK(std::count_if(warnings.begin(), warnings.end(), [](const std::string& w) {
          return w.find("`ipu.optimizations.enable_fast_math` has no effect on a virtual IPU: kernels keep IEEE") !=
                 std::string::npos;
        }) == 1);
  // The default written is no change, and warns of nothing.
  CHECK(config::parse("[pipeline]\ncontinuous_weight_updates = false\n").warnings().empty());
  try {
    (void)config::parse("[pipeline]\ncontinuous_weight_updates = true\n");
    FAIL("a refused value was accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("`pipeline.continuous_weight_updates` is refused: the seeds' pipeline") !=
          std::string::npos);
    CHECK(e.span().line == 2);
    CHECK(e.hint() == "remove the key");
  }
}

// A plain key's DERIVE settles its value once, in config::resolve; the config keeps what was
// written, so that `config show` loads back the same.
TEST_CASE("a plain key's derived value is settled by its line, and the config keeps it as written") {
  Config unset;
  unset.plain.training_seed = 9;
  unset.plain.ipu_optimizations_prefetch_data_streams = false;
  const Settings derived = config::resolve(unset);
  CHECK(derived.plain.data_seed == 9);            // 0: training.seed
  CHECK(derived.plain.data_prefetch_depth == 1);  // no prefetching: one batch at a time
  CHECK(derived.plain.training_epochs == 1.0);    // neither steps nor epochs: one epoch
  CHECK(derived.plain.checkpoint_keep_best_mode == KeepBestMode::Min);
  CHECK(unset.plain.data_seed == 0);
  CHECK(unset.plain.training_epochs == 0.0);

  const Config written = config::parse(
      "[data]\nseed = 3\nprefetch_depth = 4\n[training]\nepochs = 2.5\nseed = 9\n"
      "[ipu.optimizations]\nprefetch_data_streams = true\n");
  const Settings as_written = config::resolve(written);
  CHECK(as_written.plain.data_seed == 3);
  CHECK(as_written.plain.data_prefetch_depth == 4);
  CHECK(as_written.plain.training_epochs == 2.5);
  CHECK(written.plain.data_seed == 3);
  // A depth of 0 set in a program (the loader refuses it in a file) is one batch at a time.
  Config none;
  none.plain.data_prefetch_depth = 0;
  CHECK(config::resolve(none).plain.data_prefetch_depth == 1);
}

// A plain string marked `path` is a path key (written configs rebase it), and its DERIVE resolves it
// by the path rule: relative to the folder of the file that set it.
TEST_CASE("a plain path key is resolved against its config file's folder, and kept as written") {
  const config::KeySpec* row = config::find_key("profiling.report_directory");
  REQUIRE(row != nullptr);
  CHECK(row->is_path);
  CHECK(row->type == config::KeyType::String);
  const Config c = config::parse("[profiling]\nreport_directory = \"prof\"\n", "/configs/run.toml");
  CHECK(c.plain.profiling_report_directory == "prof");
  CHECK(config::resolve(c).plain.profiling_report_directory == "/configs/prof");
  CHECK(config::resolve(Config{}).plain.profiling_report_directory.empty());  // "" stays: the current directory
}
