// Keys that are one row each (issue 48). A line of IPUTRAIN_PLAIN_KEYS is everything such a key
// needs but its consumer: its typed field in Config and in Settings (PlainKeys, which resolving a
// config copies whole, the value as written), and its row in the config schema, made from the line
// (docs/config.md, `iputrain config explain`, the range check, `config show`, the key walk's probe,
// and what `--resume`, `verify` and `tune` know of it). A key the planner or the engine reads as it
// is written is added so: its line here and the code that reads `settings.plain.FIELD`.
//
// X(FIELD, PATH, TYPE, DEFAULT, EFFECT, MARKS, DOC, RANGE, NEEDS, DERIVE):
// - FIELD is PATH with `_` for `.` (checked when the schema is built);
// - TYPE is double, int64_t, bool, std::string or an enum declared below by IPUTRAIN_KEY_ENUM, whose
//   enumerators are the key's spellings (ChooseBest is written "choose_best");
// - EFFECT is the schema's Effect: Runs (it changes the run) or Models (the plan's model);
// - MARKS is `plain`, or `defining` (checkpoints record it and `--resume` checks it), `layout`
//   (`verify`'s one-IPU reference resets it), `tunable` (`tune` may vary it) or `path` (a file or
//   folder: written configs rebase it; its DERIVE resolves it by the path rule), joined by `|`;
// - RANGE the accepted numbers, as the schema's Range writes them (Range::at_least(0)), or {};
// - NEEDS the key it has no effect without ("" for none): setting it without that key is refused,
//   located, with a hint;
// - DERIVE the rule that settles its value when the run is resolved: `as_written`, or a lambda
//   `[](const auto& c) { return ...; }` of the loaded Config `c` (its `plain` holds the values as
//   written) returning TYPE: `data.seed` 0 is `training.seed`. Resolving a config applies every rule
//   once, in the lines' order; the Config keeps the value as written (so `config show` loads back the same)
//   and Settings::plain holds the settled one.
#pragma once

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace iputrain {

//! The enumerators of an enum a plain key holds, as written: KeyEnum<E>::enumerators is
//! "ChooseBest, Clustering". IPUTRAIN_KEY_ENUM declares the enum and this together.
template <class E>
struct KeyEnum;

// Declares `enum class NAME { ... }` and its KeyEnum: the enumerators are the key's values, in
// the order docs and messages list them.
#define IPUTRAIN_KEY_ENUM(NAME, ...)                              \
  enum class NAME { __VA_ARGS__ };                                \
  template <>                                                     \
  struct KeyEnum<NAME> {                                          \
    static constexpr std::string_view enumerators = #__VA_ARGS__; \
  };

//! The spellings of `enumerators`, in order: "ChooseBest, PostOrder" is {"choose_best", "post_order"}.
inline std::vector<std::string> key_spellings_of(std::string_view enumerators) {
  std::vector<std::string> out(1);
  char previous = ',';
  for (const char c : enumerators) {
    if (c == ',') {
      out.emplace_back();
    } else if (std::isupper(static_cast<unsigned char>(c))) {
      // A capital after a small letter starts a word: OnChip is on_chip, BF16 is bf16.
      out.back() += std::islower(static_cast<unsigned char>(previous)) ? "_" : "";
      out.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (c != ' ') {
      out.back() += c;
    }
    previous = c;
  }
  return out;
}

//! The spellings of E's values, in declaration order.
template <class E>
const std::vector<std::string>& key_spellings() {
  static const std::vector<std::string> spellings = key_spellings_of(KeyEnum<E>::enumerators);
  return spellings;
}

//! How `value` is written in a config ("on_chip").
template <class E>
std::string_view key_spelling(E value) {
  return key_spellings<E>().at(static_cast<size_t>(value));
}

//! The DERIVE of a plain key whose value is used as written.
struct AsWritten {};
inline constexpr AsWritten as_written{};

//! A floating-point storage type a setting names (training.precision, optimizer.state_dtype, …).
IPUTRAIN_KEY_ENUM(FloatType, F32, F16, BF16)
IPUTRAIN_KEY_ENUM(LossScaling, Static, Dynamic)
IPUTRAIN_KEY_ENUM(OutfeedMode, All, Last)
//! Where the f32 master weights of a half-precision run live (training.master_weights).
IPUTRAIN_KEY_ENUM(MasterWeightsPlace, OnChip, Offloaded, None)
IPUTRAIN_KEY_ENUM(GradientReduction, Sum, Mean, RunningMean)
//! The order in which micro-batch gradients are summed (`pipeline.gradient_accumulation_order`):
//! Canonical, a pairwise tree over the global micro-batches (about log2(A) partial sums per
//! weight); Sequential, micro-batches in order into one sum per weight, then replicas in order.
IPUTRAIN_KEY_ENUM(GradientAccumulationOrder, Canonical, Sequential)
IPUTRAIN_KEY_ENUM(SelectionOrder, Auto, Zigzag, Snake, Hoof)
IPUTRAIN_KEY_ENUM(SchedulerAlgorithm, ChooseBest, Clustering, PostOrder, LookAhead, ShortestPath)
//! Which kernels split their blocks over the arena's threads (engine.spread_kernels,
//! engine/cluster/spread_tuner.hpp).
IPUTRAIN_KEY_ENUM(SpreadKernels, Auto, Always, LargeOnly)
//! What training.validate_every counts.
IPUTRAIN_KEY_ENUM(ValidateEveryUnit, Steps, Epochs)
//! Whether the best checkpoint.keep_best value is the lowest or the highest (Auto: by the name; a
//! resolved run holds Min or Max).
IPUTRAIN_KEY_ENUM(KeepBestMode, Auto, Min, Max)
//! profiling.profile_execution: every level but NoProfile writes the same execution trace here.
IPUTRAIN_KEY_ENUM(ProfileExecution, NoProfile, DeviceProfile, IpuProfile, TileProfile)

}  // namespace iputrain

#define IPUTRAIN_PLAIN_KEYS(X)                                                                                         \
  X(ipu_selection_order, "ipu.selection_order", SelectionOrder, SelectionOrder::Auto, Models, plain,                   \
    "How shards map to physical IPUs of the modelled C2 topology.", {}, "", as_written)                                \
  X(ipu_scheduling_algorithm, "ipu.scheduling.algorithm", SchedulerAlgorithm, SchedulerAlgorithm::ChooseBest, Models,  \
    plain,                                                                                                             \
    "Order of the ops inside each task, which sets the live bytes (planner/op_order.hpp): "                            \
    "post_order, clustering, shortest_path, look_ahead, or choose_best (the order of fewest live "                     \
    "bytes, kept only if the plan really packs smaller than the written order).",                                      \
    {}, "", as_written)                                                                                                \
  X(ipu_scheduling_maximum_scheduler_lookahead_depth, "ipu.scheduling.maximum_scheduler_lookahead_depth", int64_t, 5,  \
    Models, plain, "Ops `look_ahead` runs greedily after each candidate before judging it.", Range::at_least(1), "",   \
    as_written)                                                                                                        \
  X(ipu_scheduling_maximum_scheduler_search_space_size, "ipu.scheduling.maximum_scheduler_search_space_size", int64_t, \
    64, Models, plain, "Ready ops `look_ahead` considers at each step (the first in written order).",                  \
    Range::at_least(1), "", as_written)                                                                                \
  X(pipeline_repeat_count, "pipeline.repeat_count", int64_t, 1, Runs, plain,                                           \
    "Pipeline executions (each one weight update) per call.", Range::at_least(1), "", as_written)                      \
  X(pipeline_gradient_accumulation_order, "pipeline.gradient_accumulation_order", GradientAccumulationOrder,           \
    GradientAccumulationOrder::Canonical, Runs, tunable,                                                               \
    "Order micro-batch gradients are summed in. canonical: a pairwise tree over the update's "                         \
    "replicas x accumulation micro-batches, about log2(accumulation) accumulators per weight, the "                    \
    "same bits for any split with the same product. sequential: one accumulator per weight, "                          \
    "micro-batches in order, then replicas in order; the same bits across schedules and stage "                        \
    "placements at a fixed replica and accumulation count.",                                                           \
    {}, "", as_written)                                                                                                \
  X(pipeline_reduction_method, "pipeline.reduction_method", GradientReduction, GradientReduction::Sum, Runs, plain,    \
    "How micro-batch gradients are accumulated: sum, mean (each / count) or running_mean.", {}, "", as_written)        \
  X(optimizer_loss_scaling_mode, "optimizer.loss_scaling_mode", LossScaling, LossScaling::Static, Runs, defining,      \
    "static keeps `loss_scaling`; dynamic skips an update whose gradients overflow and backs the scale "               \
    "off, and grows it after `loss_scaling_growth_interval` clean updates (docs/training.md).",                        \
    {}, "", as_written)                                                                                                \
  X(training_master_weights, "training.master_weights", MasterWeightsPlace, MasterWeightsPlace::OnChip, Runs,          \
    defining,                                                                                                          \
    "Where the f32 weights live under f16/bf16 compute: on_chip (an f32 master and a half copy on the "                \
    "IPU, 6 bytes a weight), offloaded (the master in host memory with the offloaded optimizer state, "                \
    "2 bytes a weight on the IPU) or none (half weights only: every update is rounded to the compute "                 \
    "type, stochastically with `ipu.floating_point_behaviour.esr`).",                                                  \
    {}, "", as_written)                                                                                                \
  X(training_log_every, "training.log_every", int64_t, 0, Runs, plain, "Log a line every N steps; 0 = automatic.",     \
    Range::at_least(0), "", as_written)                                                                                \
  X(training_reset_states_every, "training.reset_states_every", int64_t, 0, Runs, defining,                            \
    "Stateful recurrent layers (`nn.lstm(..., stateful = true)`): zero their states every N batches of a pass "        \
    "over the data, besides at its first batch (each training epoch, evaluation, validation and prediction "           \
    "starts from zero states); 0 = only there. The plan report shows it with the states.",                             \
    Range::at_least(0), "", as_written)                                                                                \
  X(training_outfeed_mode, "training.outfeed_mode", OutfeedMode, OutfeedMode::All, Runs, plain,                        \
    "Outfeed mode: all (every enqueued value is kept) or last (only the newest).", {}, "", as_written)                 \
  X(engine_spread_kernels, "engine.spread_kernels", SpreadKernels, SpreadKernels::Auto, Runs, plain,                   \
    "Which kernels split their blocks over `engine.threads`: always (every one of at least 256k "                      \
    "multiply-adds), large_only (those of at least 4M: smaller ones stay on their virtual IPU's thread, "              \
    "which saves the cross-core hand-offs that dominate small steps when the cores are far apart), or "                \
    "auto (the time of each execution decides between the two, tried again every 16 executions). The "                 \
    "weights are bitwise the same for every value.",                                                                   \
    {}, "", as_written)                                                                                                \
  X(checkpoint_keep_best_min_delta, "checkpoint.keep_best_min_delta", double, 0.0, Runs, plain,                        \
    "An improvement of the `keep_best` metric by no more than this does not replace best.safetensors "                 \
    "(as the min_delta of Keras' EarlyStopping): noise does not rewrite the best checkpoint.",                         \
    Range::at_least(0), "checkpoint.keep_best", as_written)                                                            \
  X(checkpoint_keep_best, "checkpoint.keep_best", std::string, "", Runs, plain,                                        \
    "Also keep the checkpoint with the best value of this validation metric (`val_loss`, "                             \
    "`val_accuracy`: `val_` and a model output) as `best.safetensors`, which the rotation never removes.",             \
    {}, "", as_written)                                                                                                \
  X(profiling_report_directory, "profiling.report_directory", std::string, "", Runs, path,                             \
    "Where profile directories are made (a relative path follows the path rule, see Paths); \"\" = the "               \
    "current directory.",                                                                                              \
    {}, "",                                                                                                            \
    [](const auto& c) { return c.resolve_path("profiling.report_directory", c.plain.profiling_report_directory); })    \
  X(checkpoint_keep_best_mode, "checkpoint.keep_best_mode", KeepBestMode, KeepBestMode::Auto, Runs, plain,             \
    "Whether the best `keep_best` value is the lowest or the highest; auto: highest for a name with "                  \
    "`acc` in it, else lowest (as Keras).",                                                                            \
    {}, "checkpoint.keep_best", [](const auto& c) {                                                                    \
      const KeepBestMode written = c.plain.checkpoint_keep_best_mode;                                                  \
      const bool accuracy = c.plain.checkpoint_keep_best.find("acc") != std::string::npos;                             \
      return written != KeepBestMode::Auto ? written : accuracy ? KeepBestMode::Max : KeepBestMode::Min;               \
    })                                                                                                                 \
  X(data_seed, "data.seed", int64_t, 0, Runs, defining, "Shuffle seed; 0 = `training.seed`.", Range::at_least(0), "",  \
    [](const auto& c) { return c.plain.data_seed != 0 ? c.plain.data_seed : c.plain.training_seed; })                  \
  X(data_shuffle, "data.shuffle", bool, true, Runs, defining, "Reshuffle the training set every epoch.", {}, "",       \
    as_written)                                                                                                        \
  X(engine_threads, "engine.threads", int64_t, 0, Runs, plain,                                                         \
    "Threads of the one task arena every virtual IPU of the process splits its kernels over (GEMM, "                   \
    "convolution, reductions, softmax, elementwise ops, optimizer updates); 0 = every core. The weights "              \
    "are bitwise the same for any value; the plan report shows it as `host_threads`.",                                 \
    Range::at_least(0), "", as_written)                                                                                \
  X(training_steps, "training.steps", int64_t, 0, Runs, plain,                                                         \
    "Number of weight updates; unset = run `training.epochs` passes instead (one pass when that is unset too).",       \
    Range::at_least(1), "", as_written)                                                                                \
  X(training_steps_per_execution, "training.steps_per_execution", int64_t, 1, Runs, plain,                             \
    "Steps run by the on-device loop per host call.", Range::at_least(1), "", as_written)                              \
  X(training_seed, "training.seed", int64_t, 42, Runs, defining,                                                       \
    "Seeds parameter initialisers, dropout and shuffling.", Range::at_least(0), "", as_written)                        \
  X(training_validate_every, "training.validate_every", int64_t, 1, Runs, plain,                                       \
    "Validate every N `validate_every_unit`s, and after the last step (needs `data.validation` or "                    \
    "`data.validation_split`).",                                                                                       \
    Range::at_least(1), "", as_written)                                                                                \
  X(checkpoint_every, "checkpoint.every", int64_t, -1, Runs, plain,                                                    \
    "Save every N weight updates and at the end of training; unset = only at the end; 0 = no checkpoints "             \
    "(as `train --no-checkpoint`).",                                                                                   \
    Range::at_least(0), "", as_written)                                                                                \
  X(checkpoint_keep, "checkpoint.keep", int64_t, 5, Runs, plain, "Newest checkpoints kept; 0 = keep all.",             \
    Range::at_least(0), "", as_written)                                                                                \
  X(data_prefetch_depth, "data.prefetch_depth", int64_t, 2, Runs, plain,                                               \
    "Batches the infeed thread prepares ahead of the device; 1 when "                                                  \
    "`ipu.optimizations.prefetch_data_streams` is false.",                                                             \
    Range::between(1, 1024), "", [](const auto& c) {                                                                   \
      return c.ipu.optimizations.prefetch_data_streams ? c.plain.data_prefetch_depth : int64_t{1};                     \
    })                                                                                                                 \
  X(training_epochs, "training.epochs", double, 0.0, Runs, plain,                                                      \
    "Passes over the training set (fractions allowed); only when `training.steps` is unset. With neither set, a "      \
    "run trains one epoch.",                                                                                           \
    Range::at_least(0, true), "",                                                                                      \
    [](const auto& c) { return c.plain.training_epochs > 0 ? c.plain.training_epochs : 1.0; })                         \
  X(training_precision, "training.precision", FloatType, FloatType::F32, Runs, defining,                               \
    "Compute type of the forward and backward passes: f32, or f16/bf16 emulated (every result rounded "                \
    "to it; master weights and the update stay f32).",                                                                 \
    {}, "", as_written)                                                                                                \
  X(optimizer_state_dtype, "optimizer.state_dtype", FloatType, FloatType::F32, Runs, defining,                         \
    "Type the optimizer's moments are kept in: f32, or f16/bf16 (rounded after every update, "                         \
    "stochastically with `ipu.floating_point_behaviour.esr`; half the memory).",                                       \
    {}, "", as_written)                                                                                                \
  X(training_validate_every_unit, "training.validate_every_unit", ValidateEveryUnit, ValidateEveryUnit::Epochs, Runs,  \
    plain, "What `validate_every` counts: steps (weight updates) or epochs.", {}, "", as_written)                      \
  X(profiling_profile_execution, "profiling.profile_execution", ProfileExecution, ProfileExecution::NoProfile, Runs,   \
    plain,                                                                                                             \
    "Any value but no_profile adds the Chrome trace of the executions (execution.json); the levels "                   \
    "give the same per-instruction trace here (needs `profiling.enabled`).",                                           \
    {}, "", as_written)

namespace iputrain {

//! The plain keys' values (see above), each named by its FIELD.
struct PlainKeys {
#define IPUTRAIN_PLAIN_FIELD(field, path, type, value, ...) type field = value;
  IPUTRAIN_PLAIN_KEYS(IPUTRAIN_PLAIN_FIELD)
#undef IPUTRAIN_PLAIN_FIELD
};

}  // namespace iputrain
