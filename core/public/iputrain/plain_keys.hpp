// Keys that are one row each (issue 48). A line of IPUTRAIN_PLAIN_KEYS is everything such a key
// needs but its consumer: its typed field in Config and in Settings (PlainKeys, which resolving a
// config copies whole, the value as written), and its row in the config schema, made from the line
// (docs/config.md, `iputrain config explain`, the range check, `config show`, the key walk's probe,
// and what `--resume`, `verify` and `tune` know of it). A key the planner or the engine reads as it
// is written is added so: its line here and the code that reads `settings.plain.FIELD`.
//
// X(FIELD, PATH, TYPE, DEFAULT, EFFECT, MARKS, DOC, RANGE, NEEDS):
// - FIELD is PATH with `_` for `.` (checked when the schema is built);
// - TYPE is double, int64_t, bool or an enum declared below by IPUTRAIN_KEY_ENUM, whose
//   enumerators are the key's spellings (ChooseBest is written "choose_best");
// - EFFECT is the schema's Effect: Runs (it changes the run) or Models (the plan's model);
// - MARKS is `plain`, or `defining` (checkpoints record it and `--resume` checks it), `layout`
//   (`verify`'s one-IPU reference resets it) or `tunable` (`tune` may vary it), joined by `|`;
// - RANGE the accepted numbers, as the schema's Range writes them (Range::at_least(0)), or {};
// - NEEDS the key it has no effect without ("" for none): setting it without that key is refused,
//   located, with a hint.
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
  for (const char c : enumerators) {
    if (c == ',') {
      out.emplace_back();
    } else if (std::isupper(static_cast<unsigned char>(c))) {
      out.back() += out.back().empty() ? "" : "_";
      out.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (c != ' ') {
      out.back() += c;
    }
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

}  // namespace iputrain

#define IPUTRAIN_PLAIN_KEYS(X)                                                                                         \
  X(ipu_selection_order, "ipu.selection_order", SelectionOrder, SelectionOrder::Auto, Models, plain,                   \
    "How shards map to physical IPUs of the modelled C2 topology.", {}, "")                                            \
  X(ipu_scheduling_algorithm, "ipu.scheduling.algorithm", SchedulerAlgorithm, SchedulerAlgorithm::ChooseBest, Models,  \
    plain,                                                                                                             \
    "Order of the ops inside each task, which sets the live bytes (planner/op_order.hpp): "                            \
    "post_order, clustering, shortest_path, look_ahead, or choose_best (the order of fewest live "                     \
    "bytes, kept only if the plan really packs smaller than the written order).",                                      \
    {}, "")                                                                                                            \
  X(ipu_scheduling_maximum_scheduler_lookahead_depth, "ipu.scheduling.maximum_scheduler_lookahead_depth", int64_t, 5,  \
    Models, plain, "Ops `look_ahead` runs greedily after each candidate before judging it.", Range::at_least(1), "")   \
  X(ipu_scheduling_maximum_scheduler_search_space_size, "ipu.scheduling.maximum_scheduler_search_space_size", int64_t, \
    64, Models, plain, "Ready ops `look_ahead` considers at each step (the first in written order).",                  \
    Range::at_least(1), "")                                                                                            \
  X(pipeline_repeat_count, "pipeline.repeat_count", int64_t, 1, Runs, plain,                                           \
    "Pipeline executions (each one weight update) per call.", Range::at_least(1), "")                                  \
  X(pipeline_gradient_accumulation_order, "pipeline.gradient_accumulation_order", GradientAccumulationOrder,           \
    GradientAccumulationOrder::Canonical, Runs, tunable,                                                               \
    "Order micro-batch gradients are summed in. canonical: a pairwise tree over the update's "                         \
    "replicas x accumulation micro-batches, about log2(accumulation) accumulators per weight, the "                    \
    "same bits for any split with the same product. sequential: one accumulator per weight, "                          \
    "micro-batches in order, then replicas in order; the same bits across schedules and stage "                        \
    "placements at a fixed replica and accumulation count.",                                                           \
    {}, "")                                                                                                            \
  X(pipeline_reduction_method, "pipeline.reduction_method", GradientReduction, GradientReduction::Sum, Runs, plain,    \
    "How micro-batch gradients are accumulated: sum, mean (each / count) or running_mean.", {}, "")                    \
  X(optimizer_loss_scaling_mode, "optimizer.loss_scaling_mode", LossScaling, LossScaling::Static, Runs, defining,      \
    "static keeps `loss_scaling`; dynamic skips an update whose gradients overflow and backs the scale "               \
    "off, and grows it after `loss_scaling_growth_interval` clean updates (docs/training.md).",                        \
    {}, "")                                                                                                            \
  X(training_master_weights, "training.master_weights", MasterWeightsPlace, MasterWeightsPlace::OnChip, Runs,          \
    defining,                                                                                                          \
    "Where the f32 weights live under f16/bf16 compute: on_chip (an f32 master and a half copy on the "                \
    "IPU, 6 bytes a weight), offloaded (the master in host memory with the offloaded optimizer state, "                \
    "2 bytes a weight on the IPU) or none (half weights only: every update is rounded to the compute "                 \
    "type, stochastically with `ipu.floating_point_behaviour.esr`).",                                                  \
    {}, "")                                                                                                            \
  X(training_log_every, "training.log_every", int64_t, 0, Runs, plain, "Log a line every N steps; 0 = automatic.",     \
    Range::at_least(0), "")                                                                                            \
  X(training_reset_states_every, "training.reset_states_every", int64_t, 0, Runs, defining,                            \
    "Stateful recurrent layers (`nn.lstm(..., stateful = true)`): zero their states every N batches of a pass "        \
    "over the data, besides at its first batch (each training epoch, evaluation, validation and prediction "           \
    "starts from zero states); 0 = only there. The plan report shows it with the states.",                             \
    Range::at_least(0), "")                                                                                            \
  X(training_outfeed_mode, "training.outfeed_mode", OutfeedMode, OutfeedMode::All, Runs, plain,                        \
    "Outfeed mode: all (every enqueued value is kept) or last (only the newest).", {}, "")                             \
  X(engine_spread_kernels, "engine.spread_kernels", SpreadKernels, SpreadKernels::Auto, Runs, plain,                   \
    "Which kernels split their blocks over `engine.threads`: always (every one of at least 256k "                      \
    "multiply-adds), large_only (those of at least 4M: smaller ones stay on their virtual IPU's thread, "              \
    "which saves the cross-core hand-offs that dominate small steps when the cores are far apart), or "                \
    "auto (the time of each execution decides between the two, tried again every 16 executions). The "                 \
    "weights are bitwise the same for every value.",                                                                   \
    {}, "")                                                                                                            \
  X(checkpoint_keep_best_min_delta, "checkpoint.keep_best_min_delta", double, 0.0, Runs, plain,                        \
    "An improvement of the `keep_best` metric by no more than this does not replace best.safetensors "                 \
    "(as the min_delta of Keras' EarlyStopping): noise does not rewrite the best checkpoint.",                         \
    Range::at_least(0), "checkpoint.keep_best")

namespace iputrain {

//! The plain keys' values (see above), each named by its FIELD.
struct PlainKeys {
#define IPUTRAIN_PLAIN_FIELD(field, path, type, value, ...) type field = value;
  IPUTRAIN_PLAIN_KEYS(IPUTRAIN_PLAIN_FIELD)
#undef IPUTRAIN_PLAIN_FIELD
};

}  // namespace iputrain
