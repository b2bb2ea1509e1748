// Keys that are one row each (issue 48). A line of IPUTRAIN_PLAIN_KEYS is everything such a key
// needs but its consumer: its typed field in Config and in Settings (PlainKeys, which resolving a
// config copies whole, the value as written), and its row in the config schema, made from the line
// (docs/config.md, `iputrain config explain`, the range check, `config show`, the key walk's probe,
// and what `--resume`, `verify` and `tune` know of it). A key the planner or the engine reads as it
// is written is added so: its line here and the code that reads `settings.plain.FIELD`.
//
// X(FIELD, PATH, TYPE, DEFAULT, EFFECT, MARKS, DOC, RANGE, NEEDS, DERIVE):
// - FIELD is PATH with `_` for `.` (checked when the schema is built);
// - TYPE is double, int64_t, uint64_t, bool, std::optional<bool> ("auto" is nullopt), std::string, a
//   std::vector of int64_t, double, bool, std::string, a list of int64_t (each element an int or a list
//   in TOML: a device mapping) or StageOptions, OptionMap, StageOptions or an enum declared by IPUTRAIN_KEY_ENUM
//   (iputrain/key_enums.hpp), whose enumerators are the key's spellings (ChooseBest is written
//   "choose_best");
// - EFFECT is the schema's Effect: Runs (it changes the run) or Models (the plan's model); or, for a
//   key kept for compatibility, no_effect_here("why") (a value other than the default warns) or
//   refused_here("why", "what to do instead") (such a value is refused). Nothing reads those fields;
//   lint.table_rows fails when something does;
// - MARKS is `plain`, or `defining` (checkpoints record it and `--resume` checks it), `layout`
//   (`verify`'s one-IPU reference resets it), `tunable` (`tune` may vary it) or `path` (a file or
//   folder: written configs rebase it; its DERIVE resolves it by the path rule) or `unique` (a list
//   whose elements must differ) or `record_settled` (checkpoints record the value its DERIVE settles it
//   to, not the value written: the loss scale dynamic scaling starts from), joined by `|`;
// - RANGE the accepted numbers (of a list: its elements), as the schema's Range writes them
//   (Range::at_least(0); a braced Range in parentheses, since a macro argument splits at its commas), or {};
//   or, for a string or a list of strings, Names(LIST): the values it may hold, a table's names
//   (`pipeline.schedule`) or an enum's spellings, kept in their spelling (its row is an enum's);
// - NEEDS the key it has no effect without ("" for none), or `KEY = VALUE`, the value that key must
//   hold, as TOML writes it: setting it otherwise is refused, located, with a hint;
// - DERIVE the rule that settles its value when the run is resolved: `as_written`, or a lambda
//   `[](const auto& c) { return ...; }` of the loaded Config `c` (its `plain` holds the values as
//   written) returning TYPE: `data.seed` 0 is `training.seed`. Resolving a config applies every rule
//   once, in the lines' order; the Config keeps the value as written (so `config show` loads back the same)
//   and Settings::plain holds the settled one.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "iputrain/hardware.hpp"
#include "iputrain/key_enums.hpp"

#define IPUTRAIN_PLAIN_KEYS(X)                                                                                         \
  X(ipu_auto_select_ipus, "ipu.auto_select_ipus", int64_t, 1, Runs, layout,                                            \
    "Number of virtual IPUs to acquire as one device (replicas = this / IPUs per replica).", Range::between(1, 1024),  \
    "", as_written)                                                                                                    \
  X(ipu_select_ipus, "ipu.select_ipus", std::vector<int64_t>, {}, Runs, layout | unique,                               \
    "Devices to acquire by id in the emulated 16-IPU gc-info listing (0-15 single IPUs, 16-23 "                        \
    "pairs, 24-27 quads, 28-29 eights, 30 all); exclusive with `auto_select_ipus`.",                                   \
    Range::between(0, 30), "", as_written)                                                                             \
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
  X(pipeline_stages, "pipeline.stages", std::vector<std::string>, {}, Runs, unique,                                    \
    "The model's stages in order (checked against the model); at least two when given.", {}, "", as_written)           \
  X(pipeline_device_mapping, "pipeline.device_mapping", std::vector<std::vector<int64_t>>, {}, Runs, layout,           \
    "IPU of each stage within a replica (a list for parallel stages), e.g. [0, [1, 2], 3]; "                           \
    "unset = stage i on IPU i (every stage on IPU 0 if the device has one IPU).",                                      \
    Range::at_least(0), "", as_written)                                                                                \
  X(pipeline_forward_propagation_stages_poplar_options, "pipeline.forward_propagation_stages_poplar_options",          \
    std::vector<StageOptions>, {}, Models, plain,                                                                      \
    "Per forward stage: `{ convolution_options = {…}, matmul_options = {…} }`, over "                              \
    "`ipu.convolutions.poplar_options` and `ipu.matmuls.poplar_options` for that stage's forward pass "                \
    "(availableMemoryProportion and partialsType are read).",                                                          \
    {}, "", as_written)                                                                                                \
  X(pipeline_backward_propagation_stages_poplar_options, "pipeline.backward_propagation_stages_poplar_options",        \
    std::vector<StageOptions>, {}, Models, plain,                                                                      \
    "Per backward stage, as `forward_propagation_stages_poplar_options`.", {}, "", as_written)                         \
  X(pipeline_weight_update_poplar_options, "pipeline.weight_update_poplar_options", StageOptions, StageOptions{},      \
    no_effect_here("no optimizer's update has a matmul or a convolution, so its options have nothing to act on"),      \
    plain, "Options of the weight-update step: `{ convolution_options = {…}, matmul_options = {…} }`.", {}, "",        \
    as_written)                                                                                                        \
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
  X(pipeline_gradient_accumulation_count, "pipeline.gradient_accumulation_count", int64_t, 0, Runs, layout,            \
    "Micro-batches per weight update; a multiple of what the schedule needs (grouped: 2 x stages, "                    \
    "interleaved: IPUs, sequential: 1); unset = that minimum.",                                                        \
    Range::between(1, 65536), "", as_written)                                                                          \
  X(pipeline_gradient_accumulation_dtype, "pipeline.gradient_accumulation_dtype", AccumulatorType,                     \
    AccumulatorType::Same, Runs, tunable, "Type of the gradient accumulators; `same` = each variable's type.", {}, "", \
    as_written)                                                                                                        \
  X(pipeline_batch_serialization_iterations, "pipeline.batch_serialization_iterations", int64_t, 1, Runs, tunable,     \
    "Each stage computes its micro-batch (`data.batch_size`) in this many slices, one after another, each "            \
    "accumulated like a micro-batch of its own; > 1 needs the sequential schedule with every stage on IPU 0 "          \
    "and the sum reduction.",                                                                                          \
    Range::at_least(1), "",                                                                                            \
    [](const auto& c) { return std::max<int64_t>(1, c.plain.pipeline_batch_serialization_iterations); })               \
  X(pipeline_auto_stages, "pipeline.auto_stages", int64_t, 0, Runs, layout,                                            \
    "Split the model into this many stages of balanced cost, ignoring its own stage blocks; 0 = use the "              \
    "model's stages.",                                                                                                 \
    Range::between(0, std::numeric_limits<int32_t>::max()), "", as_written)                                            \
  X(pipeline_auto_stage_blocks, "pipeline.auto_stage_blocks", std::vector<int64_t>, {}, Runs, layout,                  \
    "With `auto_stages`, one per stage: how many of the model's repeated blocks (its longest run of equal "            \
    "consecutive blocks of ops) each holds; the first and last stages also hold what precedes and follows "            \
    "the blocks.",                                                                                                     \
    Range::at_least(0), "", as_written)                                                                                \
  X(pipeline_replicated_optimizer_state_sharding, "pipeline.replicated_optimizer_state_sharding", bool, false, Runs,   \
    tunable | layout,                                                                                                  \
    "Partition optimizer state across replicas (ZeRO-1): each replica keeps and updates one block of every "           \
    "state tensor, the gradients are reduce-scattered and the new weights all-gathered; the same weights "             \
    "bit for bit, 1/replicas of the state per IPU (docs/training.md).",                                                \
    {}, "", as_written)                                                                                                \
  X(pipeline_offload_weight_update_variables, "pipeline.offload_weight_update_variables", std::optional<bool>,         \
    std::nullopt, Models, tunable | layout, "Keep optimizer state in remote memory, streamed in for the update.", {},  \
    "", as_written)                                                                                                    \
  X(pipeline_offload_activations, "pipeline.offload_activations", std::optional<bool>, std::nullopt,                   \
    no_effect_here("the memory model keeps every stashed activation on the IPU"), layout,                              \
    "Keep activations of waiting micro-batches in remote memory.", {}, "", as_written)                                 \
  X(pipeline_offload_gradient_accumulation_buffers, "pipeline.offload_gradient_accumulation_buffers",                  \
    std::optional<bool>, std::nullopt, Models, tunable | layout,                                                       \
    "Keep gradient accumulators in remote memory: they leave the IPU's memory and each accumulation streams "          \
    "one in and out over the host link; \"auto\" keeps them on the IPU.",                                              \
    {}, "", as_written)                                                                                                \
  X(pipeline_replicated_weight_sharding, "pipeline.replicated_weight_sharding", std::optional<bool>, std::nullopt,     \
    Runs, tunable | layout,                                                                                            \
    "Partition weights across replicas (ZeRO-3): each replica keeps one block of every trained weight and of "         \
    "its optimizer state, each task all-gathers the full weights it reads into one buffer per IPU, and the "           \
    "update works on the blocks; the same weights bit for bit. auto: on for the sequential schedule with "             \
    "`batch_serialization_iterations` > 1 (docs/training.md).",                                                        \
    {}, "", as_written)                                                                                                \
  X(pipeline_offload_weights, "pipeline.offload_weights", std::optional<bool>, std::nullopt, Models, layout,           \
    "Keep each replica's blocks of the sharded weights in remote memory between uses: they leave the IPU, and "        \
    "each task streams them in before its gather, the update out again; \"auto\" = on with "                           \
    "`replicated_weight_sharding` (as in the seed).",                                                                  \
    {}, "", as_written)                                                                                                \
  X(ipu_allow_recompute, "ipu.allow_recompute", bool, false, Runs, tunable | layout,                                   \
    "Recompute forward activations during backpropagation instead of keeping them (dropout masks are "                 \
    "regenerated from the seed, not kept).",                                                                           \
    {}, "", as_written)                                                                                                \
  X(pipeline_recomputation_mode, "pipeline.recomputation_mode", RecomputationMode, RecomputationMode::Auto, Runs,      \
    tunable | layout, "How stages are recomputed when `ipu.allow_recompute` is on.", {}, "", as_written)               \
  X(pipeline_outfeed_loss, "pipeline.outfeed_loss", bool, false, Runs, plain,                                          \
    "Outfeed the loss instead of the last stage's outputs.", {}, "", as_written)                                       \
  X(pipeline_accumulate_outfeed, "pipeline.accumulate_outfeed", bool, false, Runs, plain,                              \
    "Sum outfed values over the micro-batches and outfeed once per weight update.", {}, "", as_written)                \
  X(pipeline_accumulate_outfeed_dtype, "pipeline.accumulate_outfeed_dtype", AccumulatorType, AccumulatorType::Same,    \
    Runs, plain, "Type of the outfeed accumulators; `same` = the outfed value's type.", {},                            \
    "pipeline.accumulate_outfeed", as_written)                                                                         \
  X(pipeline_outfeed_mask, "pipeline.outfeed_mask", std::vector<bool>, {}, Runs, plain,                                \
    "One flag per last-stage output; true = that output is NOT outfed.", {}, "", as_written)                           \
  X(pipeline_reduction_method, "pipeline.reduction_method", GradientReduction, GradientReduction::Sum, Runs, plain,    \
    "How micro-batch gradients are accumulated: sum, mean (each / count) or running_mean.", {}, "", as_written)        \
  X(optimizer_type, "optimizer.type", std::string, "sgd", Runs, defining,                                              \
    "Optimizer algorithm; update rules in docs/training.md.", Names(optimizer_names()), "", as_written)                \
  X(optimizer_learning_rate, "optimizer.learning_rate", double, 0.01, Runs, defining,                                  \
    "Step size of each weight update.", Range::at_least(0, true), "", as_written)                                      \
  X(optimizer_gradient_clip_norm, "optimizer.gradient_clip_norm", double, 0.0, Runs, defining,                         \
    "Clip the global gradient norm to this value; 0 = no clipping.", Range::at_least(0), "", as_written)               \
  X(optimizer_loss_scaling, "optimizer.loss_scaling", double, 1.0, Runs, defining | record_settled,                    \
    "Loss scale: the backward pass starts from it and the update divides the gradients by it; with "                   \
    "dynamic scaling, the first scale (65536 when unset).",                                                            \
    Range::at_least(0, true), "", [](const auto& c) {                                                                  \
      /* dynamic scaling starts from 2^16, torch.cuda.amp.GradScaler's first scale, unless one is written */           \
      const bool written = c.is_set("optimizer.loss_scaling") || c.plain.optimizer_loss_scaling != 1.0;                \
      return c.plain.optimizer_loss_scaling_mode == LossScaling::Dynamic && !written ? 65536.0                         \
                                                                                     : c.plain.optimizer_loss_scaling; \
    })                                                                                                                 \
  X(optimizer_loss_scaling_growth_interval, "optimizer.loss_scaling_growth_interval", int64_t, 2000, Runs, defining,   \
    "Dynamic loss scaling: clean updates in a row before the scale grows.", Range::at_least(1),                        \
    "optimizer.loss_scaling_mode = \"dynamic\"", as_written)                                                           \
  X(optimizer_loss_scaling_growth_factor, "optimizer.loss_scaling_growth_factor", double, 2.0, Runs, defining,         \
    "Dynamic loss scaling: what the scale is multiplied by when it grows.", Range::at_least(1, true),                  \
    "optimizer.loss_scaling_mode = \"dynamic\"", as_written)                                                           \
  X(optimizer_loss_scaling_backoff_factor, "optimizer.loss_scaling_backoff_factor", double, 0.5, Runs, defining,       \
    "Dynamic loss scaling: what the scale is multiplied by after an overflow.", (Range{0, true, 1, true}),             \
    "optimizer.loss_scaling_mode = \"dynamic\"", as_written)                                                           \
  X(optimizer_warmup_steps, "optimizer.warmup_steps", int64_t, 0, Runs, defining,                                      \
    "Raise the learning rate linearly over the first N updates, then start the schedule; 0 = no warmup.",              \
    Range::at_least(0), "", as_written)                                                                                \
  X(optimizer_decay_steps, "optimizer.decay_steps", int64_t, 0, Runs, defining,                                        \
    schedule_key_doc("decay_steps", "Updates per decay period, or the length of the decay."), Range::at_least(1), "",  \
    as_written)                                                                                                        \
  X(optimizer_decay_rate, "optimizer.decay_rate", double, 0.1, Runs, defining,                                         \
    schedule_key_doc("decay_rate", "Factor the learning rate is multiplied by every `decay_steps` updates."),          \
    (Range{0, true, 1, false}), "", as_written)                                                                        \
  X(optimizer_min_learning_rate, "optimizer.min_learning_rate", double, 0.0, Runs, defining,                           \
    schedule_key_doc("min_learning_rate", "Learning rate the schedule decays to and then keeps."), Range::at_least(0), \
    "", as_written)                                                                                                    \
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
  X(data_seed, "data.seed", uint64_t, 0, Runs, defining, "Shuffle seed; 0 = `training.seed`.", Range::at_least(0), "", \
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
  X(training_seed, "training.seed", uint64_t, 42, Runs, defining,                                                      \
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
      return c.plain.ipu_optimizations_prefetch_data_streams ? std::max<int64_t>(1, c.plain.data_prefetch_depth) : 1;  \
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
    {}, "profiling.enabled", as_written)                                                                               \
  X(profiling_enabled, "profiling.enabled", bool, false, Runs, plain,                                                  \
    "Each train() writes a profile directory under `report_directory`: the plan (JSON and text), "                     \
    "memory and schedule SVGs, the cycle model per op and the run report (docs/training.md).",                         \
    {}, "", as_written)                                                                                                \
  X(profiling_enable_ipu_events, "profiling.enable_ipu_events", bool, false, Runs, plain,                              \
    "Write every instruction each virtual IPU ran (events.csv), also without `enabled`.", {}, "", as_written)          \
  X(profiling_report_every_nth_execution, "profiling.report_every_nth_execution", int64_t, 0, Runs, plain,             \
    "Keep executions 0, N, 2N, ... in execution.json and events.csv; 0 = the first execution only.",                   \
    Range::at_least(0), "", as_written)                                                                                \
  X(profiling_max_report_size, "profiling.max_report_size", int64_t, 268435456, Runs, plain,                           \
    "Largest profile file, in bytes; a larger one is left out and listed in omitted.txt.", Range::at_least(1), "",     \
    as_written)                                                                                                        \
  X(pipeline_name, "pipeline.name", std::string, "pipeline", Runs, plain, "Name of the pipeline in logs and traces.",  \
    {}, "", as_written)                                                                                                \
  X(ipu_compilation_poplar_options, "ipu.compilation_poplar_options", OptionMap, OptionMap{},                          \
    no_effect_here("Poplar engine options tune the compiled program on silicon; the plan and the run do not "          \
                   "depend on them"),                                                                                  \
    plain, "Engine-level Poplar options, e.g. `{ \"debug.instrument\" = \"true\" }`.", {}, "", as_written)             \
  X(ipu_gcl_poplar_options, "ipu.gcl_poplar_options", OptionMap, OptionMap{},                                          \
    no_effect_here("it tunes Poplar's implementation of the collectives; the modelled cross-replica exchange "         \
                   "does not depend on it"),                                                                           \
    plain, "Options of the collectives library, applied to every collective.", {}, "", as_written)                     \
  X(ipu_experimental_always_rearrange_copies_on_the_host, "ipu.experimental.always_rearrange_copies_on_the_host",      \
    bool, false,                                                                                                       \
    no_effect_here("streamed data is copied into the virtual IPUs as it is, so there is no rearrangement to move"),    \
    plain, "Rearrange streamed data on the host instead of the device.", {}, "", as_written)                           \
  X(ipu_experimental_enable_remote_buffer_embedding, "ipu.experimental.enable_remote_buffer_embedding", bool, false,   \
    no_effect_here("there are no host embeddings here: every embedding table is a parameter held on the IPUs"), plain, \
    "Host embeddings use remote buffers instead of host callbacks.", {}, "", as_written)                               \
  X(ipu_ipu_model_compile_ipu_code, "ipu.ipu_model.compile_ipu_code", bool, true,                                      \
    no_effect_here("the memory model counts no code (vertices and control program), so there is no code size to "      \
                   "leave out"),                                                                                       \
    plain, "Count the code size in reported memory.", {}, "", as_written)                                              \
  X(ipu_matmuls_clear_pass_type, "ipu.matmuls.clear_pass_type", bool, false,                                           \
    no_effect_here("a PopLibs choice of how partial sums are cleared; neither the memory nor the cycle model "         \
                   "depends on it"),                                                                                   \
    plain, "Do not tell the matmul library which pass (forward, gradient, weight update) it serves.", {}, "",          \
    as_written)                                                                                                        \
  X(ipu_norms_use_stable_statistics, "ipu.norms.use_stable_statistics", bool, false,                                   \
    no_effect_here("the standard library's norms always take the variance in two passes (the mean first, then "        \
                   "the mean of squared deviations), the stable form this key asks for"),                              \
    plain, "Two-pass variance (subtract the mean first) in batch, group, layer and instance norms.", {}, "",           \
    as_written)                                                                                                        \
  X(ipu_optimizations_combine_embedding_lookups, "ipu.optimizations.combine_embedding_lookups", bool, false,           \
    no_effect_here("a Poplar graph rewrite; the planner models every lookup as the model writes it"), plain,           \
    "Fuse embedding lookups on the same tensor.", {}, "", as_written)                                                  \
  X(ipu_optimizations_combine_matmuls, "ipu.optimizations.combine_matmuls", bool, false,                               \
    no_effect_here("a Poplar graph rewrite; the planner models every matmul as the model writes it"), plain,           \
    "Fuse matmuls that share weights or inputs.", {}, "", as_written)                                                  \
  X(ipu_optimizations_enable_graph_outlining, "ipu.optimizations.enable_graph_outlining", bool, true,                  \
    no_effect_here("outlining shares code between identical ops, and the memory model counts no code"), plain,         \
    "Reuse code for identical ops (less code, more exchange).", {}, "", as_written)                                    \
  X(ipu_optimizations_merge_infeed_io_copies, "ipu.optimizations.merge_infeed_io_copies", bool, false,                 \
    no_effect_here("the infeed's staging buffer is modelled per micro-batch whatever the grouping of its copies"),     \
    plain, "Merge host-to-device input copies into one.", {}, "", as_written)                                          \
  X(ipu_optimizations_maximum_reduce_scatter_buffer_size, "ipu.optimizations.maximum_reduce_scatter_buffer_size",      \
    int64_t, 0, no_effect_here("the modelled reduce-scatter is not split into buffers"), plain,                        \
    "Bytes gathered before one reduce-scatter is issued.", Range::at_least(0), "", as_written)                         \
  X(ipu_optimizations_maximum_inter_ipu_copies_buffer_size, "ipu.optimizations.maximum_inter_ipu_copies_buffer_size",  \
    int64_t, 0, no_effect_here("inter-IPU copies are modelled as one message per value, buffered at the receiver"),    \
    plain, "Bytes gathered before one inter-IPU (stage to stage) copy is issued.", Range::at_least(0), "", as_written) \
  X(ipu_optimizations_maximum_send_recv_cluster_size, "ipu.optimizations.maximum_send_recv_cluster_size", int64_t, 0,  \
    no_effect_here("a Poplar grouping of send and receive operations; links are modelled per message"), plain,         \
    "Bytes gathered before one host send/receive is issued.", Range::at_least(0), "", as_written)                      \
  X(ipu_optimizations_minimum_remote_tensor_size, "ipu.optimizations.minimum_remote_tensor_size", int64_t, 128,        \
    no_effect_here("remote memory is modelled per offloaded buffer whatever its size"), plain,                         \
    "Smallest tensor, in bytes, that may live in remote (streaming) memory.", Range::at_least(0), "", as_written)      \
  X(ipu_optimizations_merge_remote_buffers, "ipu.optimizations.merge_remote_buffers", MergeRemoteBuffers,              \
    MergeRemoteBuffers::IfBeneficial,                                                                                  \
    no_effect_here("remote buffers are not merged in the model; each offloaded buffer streams on its own"), plain,     \
    "Merge compatible remote buffers.", {}, "", as_written)                                                            \
  X(ipu_optimizations_enable_gather_simplifier, "ipu.optimizations.enable_gather_simplifier", bool, true,              \
    no_effect_here("an XLA rewrite of gathers; the planner models gathers as the model writes them"), plain,           \
    "More aggressive embedding-lookup optimisation.", {}, "", as_written)                                              \
  X(ipu_optimizations_triangular_solve_expander_block_size, "ipu.optimizations.triangular_solve_expander_block_size",  \
    int64_t, 0, no_effect_here("the op set has no triangular solve"), plain,                                           \
    "Block size of triangular solves; 0 = the implementation's default.", Range::at_least(0), "", as_written)          \
  X(ipu_optimizations_cholesky_block_size, "ipu.optimizations.cholesky_block_size", int64_t, 0,                        \
    no_effect_here("the op set has no Cholesky factorisation"), plain,                                                 \
    "Block size of Cholesky factorisations; 0 = the implementation's default.", Range::at_least(0), "", as_written)    \
  X(ipu_optimizations_enable_fast_math, "ipu.optimizations.enable_fast_math", bool, false,                             \
    no_effect_here("kernels keep IEEE arithmetic and one fixed reduction order, on which the bitwise equality of "     \
                   "every plan rests"),                                                                                \
    plain, "Allow reordered reductions and other non-IEEE transformations.", {}, "", as_written)                       \
  X(ipu_pooling_poplar_options, "ipu.pooling.poplar_options", OptionMap, OptionMap{},                                  \
    no_effect_here("pooling has no temporaries in the memory model and its cycles do not depend on PopLibs "           \
                   "options"),                                                                                         \
    plain, "PopLibs options for every pooling op, e.g. `{ poolUseIntrospectiveMapping = \"false\" }`.", {}, "",        \
    as_written)                                                                                                        \
  X(profiling_use_poplar_text_report, "profiling.use_poplar_text_report", bool, false,                                 \
    no_effect_here("a Poplar report format; there is no Poplar report to write"), plain,                               \
    "Reports in Poplar's text format.", {}, "", as_written)                                                            \
  X(profiling_use_poplar_cbor_report, "profiling.use_poplar_cbor_report", bool, false,                                 \
    no_effect_here("a Poplar report format; there is no Poplar report to write"), plain,                               \
    "Reports in Poplar's CBOR format.", {}, "", as_written)                                                            \
  X(profiling_enable_poplar_serialized_graph, "profiling.enable_poplar_serialized_graph", bool, false,                 \
    no_effect_here("there is no Poplar graph to serialise"), plain, "Include the serialized graph in compile events.", \
    {}, "", as_written)                                                                                                \
  X(profiling_retain_control_dependencies, "profiling.retain_control_dependencies", bool, false,                       \
    no_effect_here("an option of Poplar's graph profiler; the plan's reports hold no control dependencies"), plain,    \
    "Pass control dependencies to the scheduler.", {}, "", as_written)                                                 \
  X(profiling_graph_options, "profiling.graph_options", OptionMap, OptionMap{},                                        \
    no_effect_here("options of Poplar's graph profiler, which does not exist here"), plain,                            \
    "Options of graph reports (set_report_options).", {}, "", as_written)                                              \
  X(profiling_execution_options, "profiling.execution_options", OptionMap, OptionMap{},                                \
    no_effect_here("options of Poplar's execution profiler, which does not exist here"), plain,                        \
    "Options of execution reports (set_report_options).", {}, "", as_written)                                          \
  X(transfers_use_verified_transfers, "transfers.use_verified_transfers", bool, false,                                 \
    no_effect_here("host-to-IPU copies are in-process memory copies, which need no verification"), plain,              \
    "Verify host-device transfers with keys and ids.", {}, "", as_written)                                             \
  X(pipeline_continuous_weight_updates, "pipeline.continuous_weight_updates", bool, false,                             \
    refused_here("the seeds' pipeline does not implement it either: gradients are always accumulated over "            \
                 "`gradient_accumulation_count` micro-batches",                                                        \
                 "remove the key"),                                                                                    \
    plain, "Apply gradients as soon as they are computed; not implemented by the seeds, so only false is accepted.",   \
    {}, "", as_written)                                                                                                \
  X(pipeline_gradient_accumulation_for_captured_grads, "pipeline.gradient_accumulation_for_captured_grads", bool,      \
    true,                                                                                                              \
    no_effect_here("the model language has no gradients captured from outside the stages; every gradient is "          \
                   "accumulated"),                                                                                     \
    plain, "Accumulate gradients of values captured from outside the stages too.", {}, "", as_written)                 \
  X(ipu_serialization_output_folder, "ipu.serialization_output_folder", std::string, "", Runs, path,                   \
    "Directory where a session saves what it will run, as the seed saves its executables: "                            \
    "<model>.plan.json and <model>.programs.txt (each IPU's instructions); \"\" = do not save.",                       \
    {}, "", [](const auto& c) {                                                                                        \
      return c.resolve_path("ipu.serialization_output_folder", c.plain.ipu_serialization_output_folder);               \
    })                                                                                                                 \
  X(ipu_floating_point_behaviour_inv, "ipu.floating_point_behaviour.inv", bool, false, Runs, plain,                    \
    "Stop at the first op that makes a NaN from operands without NaN (0/0, log(-1), inf - inf); "                      \
    "the error names the op, its stage and micro-batch.",                                                              \
    {}, "", [](const auto& c) {                                                                                        \
      return c.plain.ipu_floating_point_behaviour_inv || c.plain.ipu_floating_point_behaviour_set_all;                 \
    })                                                                                                                 \
  X(ipu_floating_point_behaviour_div0, "ipu.floating_point_behaviour.div0", bool, false, Runs, plain,                  \
    "Stop at the first op that makes an infinity from finite operands (x/0, log(0), rsqrt(0)).", {}, "",               \
    [](const auto& c) {                                                                                                \
      return c.plain.ipu_floating_point_behaviour_div0 || c.plain.ipu_floating_point_behaviour_set_all;                \
    })                                                                                                                 \
  X(ipu_floating_point_behaviour_oflo, "ipu.floating_point_behaviour.oflo", bool, false, Runs, plain,                  \
    "Stop at the first op whose finite result overflows f32 (exp(100)); underflow is never trapped.", {}, "",          \
    [](const auto& c) {                                                                                                \
      return c.plain.ipu_floating_point_behaviour_oflo || c.plain.ipu_floating_point_behaviour_set_all;                \
    })                                                                                                                 \
  X(ipu_floating_point_behaviour_esr, "ipu.floating_point_behaviour.esr", bool, false, Runs, plain,                    \
    "Stochastic rounding of fp16 results, seeded by the run's seed.", {}, "", [](const auto& c) {                      \
      return c.plain.ipu_floating_point_behaviour_esr || c.plain.ipu_floating_point_behaviour_set_all;                 \
    })                                                                                                                 \
  X(ipu_floating_point_behaviour_nanoo, "ipu.floating_point_behaviour.nanoo", bool, false, Runs, plain,                \
    "fp16 overflow gives NaN instead of saturating to the largest half.", {}, "", [](const auto& c) {                  \
      return c.plain.ipu_floating_point_behaviour_nanoo || c.plain.ipu_floating_point_behaviour_set_all;               \
    })                                                                                                                 \
  X(ipu_floating_point_behaviour_set_all, "ipu.floating_point_behaviour.set_all", bool, false, Runs, plain,            \
    "Turn all five flags above on.", {}, "", as_written)                                                               \
  X(ipu_io_tiles_num_io_tiles, "ipu.io_tiles.num_io_tiles", int64_t, 0, Models, plain,                                 \
    "Tiles per IPU reserved for I/O: they take no compute and no model data, so the compute "                          \
    "rate and the capacity shrink to the remaining tiles.",                                                            \
    Range::at_least(0), "", as_written)                                                                                \
  X(ipu_io_tiles_place_ops_on_io_tiles, "ipu.io_tiles.place_ops_on_io_tiles", bool, false, Models, plain,              \
    "Stage the infeed and outfeed on the I/O tiles (needs `num_io_tiles` > 0): the staging leaves "                    \
    "the compute tiles and host transfers overlap compute in the cycle model.",                                        \
    {}, "",                                                                                                            \
    [](const auto& c) { return c.plain.ipu_io_tiles_place_ops_on_io_tiles && c.plain.ipu_io_tiles_num_io_tiles > 0; }) \
  X(ipu_io_tiles_available_memory_proportion, "ipu.io_tiles.available_memory_proportion", double, 0.9, Models, plain,  \
    "Share of I/O-tile memory that holds the feeds' staging (the rest is code); staging that "                         \
    "does not fit is an error.",                                                                                       \
    (Range{0, true, 1, false}), "", as_written)                                                                        \
  X(ipu_norms_experimental_distributed_batch_norm_replica_group_size,                                                  \
    "ipu.norms.experimental.distributed_batch_norm_replica_group_size", int64_t, 1, Runs, plain,                       \
    "Training batch-norm statistics shared by groups of this many consecutive replicas: nn.batch_norm "                \
    "averages its batch mean and variance over the group's micro-batches with cross_replica_mean (the "                \
    "model's compile-time int `batch_norm_replica_group`; a layer's `replica_group` overrides it).",                   \
    Range::at_least(1), "", as_written)                                                                                \
  X(ipu_optimizations_prefetch_data_streams, "ipu.optimizations.prefetch_data_streams", bool, true, Runs, plain,       \
    "Prefetch infeed batches on a background thread while the device runs.", {}, "", as_written)                       \
  X(ipu_optimizations_maximum_cross_replica_sum_buffer_size,                                                           \
    "ipu.optimizations.maximum_cross_replica_sum_buffer_size", int64_t, 0, Runs, plain,                                \
    "Bytes of gradients gathered before one cross-replica sum is issued; 0 = one sum per tensor.", Range::at_least(0), \
    "", as_written)                                                                                                    \
  X(tune_ipus, "tune.ipus", int64_t, 0, Runs, plain, "IPUs in all (`--ipus`); 0 = the config's.", Range::at_least(0),  \
    "", as_written)                                                                                                    \
  X(tune_global_batch, "tune.global_batch", int64_t, 0, Runs, plain,                                                   \
    "Samples per weight update the plans hold (`--global-batch`); 0 = the input plan's.", Range::at_least(0), "",      \
    as_written)                                                                                                        \
  X(tune_batch_tolerance, "tune.batch_tolerance", double, 0.0, Runs, plain,                                            \
    "Relative distance from the global batch a plan may have (`--batch-tolerance`).", Range::between(0, 1), "",        \
    as_written)                                                                                                        \
  X(tune_time, "tune.time", double, 60.0, Runs, plain,                                                                 \
    "Search budget in seconds (`--time`, or the REPL's `tune SECONDS`; the REPL's default where this is "              \
    "unset: 30); the search stops at it with the best plan found.",                                                    \
    Range::at_least(0, true), "", as_written)                                                                          \
  X(tune_plans, "tune.plans", int64_t, 0, Runs, plain,                                                                 \
    "Candidates planned at most (`--plans`); 0 = no limit but the time. Counted in plans, the search stops at "        \
    "the same candidate on any machine and under any load, where a time budget does not.",                             \
    Range::at_least(0), "", as_written)                                                                                \
  X(tune_top, "tune.top", int64_t, 5, Runs, plain, "Ranked plans listed (`--top`).", Range::at_least(1), "",           \
    as_written)                                                                                                        \
  X(tune_vary_layout, "tune.vary_layout", bool, false, Runs, plain,                                                    \
    "Also vary the layout keys the config sets: stages, mapping, batch, schedule, recomputation, memory "              \
    "knobs (`--vary-layout`; `--keep-layout` turns it off for one run).",                                              \
    {}, "", as_written)                                                                                                \
  X(tune_ipus_per_replica, "tune.ipus_per_replica", std::vector<int64_t>, {}, Runs, plain,                             \
    "[min, max] IPUs of one replica (the pipeline's depth); the rest of the IPUs are replicas. Set, "                  \
    "it lets the search re-cut a model whose config fixes the stages.",                                                \
    Range::at_least(1), "", as_written)                                                                                \
  X(tune_stages, "tune.stages", std::vector<int64_t>, {}, Runs, plain,                                                 \
    "[min, max] pipeline stages (positions of the schedule; a stage back on IPU 0 counts).", Range::at_least(1), "",   \
    as_written)                                                                                                        \
  X(tune_micro_batch, "tune.micro_batch", std::vector<int64_t>, {}, Runs, plain,                                       \
    "[min, max] of `data.batch_size`; unset = 1 to 256, or the config's value when it sets one.", Range::at_least(1),  \
    "", as_written)                                                                                                    \
  X(tune_available_memory_proportion, "tune.available_memory_proportion", std::vector<double>, {}, Runs, plain,        \
    "availableMemoryProportion values tried for every matmul and convolution, then per stage around the "              \
    "best; unset = 0.6, 0.45, 0.3, 0.2, 0.1, or the config's when it sets one. Listing values lets the search "        \
    "vary the key even where the config sets it.",                                                                     \
    (Range{0, true, 1, false}), "", as_written)                                                                        \
  X(tune_offload_weight_update_variables, "tune.offload_weight_update_variables", std::vector<bool>, {}, Runs, plain,  \
    "The values tried for `pipeline.offload_weight_update_variables`; unset = both, or the config's when set. "        \
    "Listing values lets the search vary the key even where the config sets it.",                                      \
    {}, "", as_written)                                                                                                \
  X(tune_offload_gradient_accumulation_buffers, "tune.offload_gradient_accumulation_buffers", std::vector<bool>, {},   \
    Runs, plain,                                                                                                       \
    "The values tried for `pipeline.offload_gradient_accumulation_buffers`; unset = both, or the config's when "       \
    "set. Listing values lets the search vary the key even where the config sets it.",                                 \
    {}, "", as_written)                                                                                                \
  X(tune_replicated_optimizer_state_sharding, "tune.replicated_optimizer_state_sharding", std::vector<bool>, {}, Runs, \
    plain,                                                                                                             \
    "The values tried for `pipeline.replicated_optimizer_state_sharding` (with replicas); unset = both, or the "       \
    "config's. Listing values lets the search vary the key even where the config sets it.",                            \
    {}, "", as_written)                                                                                                \
  X(tune_replicated_weight_sharding, "tune.replicated_weight_sharding", std::vector<bool>, {}, Runs, plain,            \
    "The values tried for `pipeline.replicated_weight_sharding` (with replicas); unset = both, or the config's. "      \
    "Listing values lets the search vary the key even where the config sets it.",                                      \
    {}, "", as_written)                                                                                                \
  X(tune_batch_serialization_iterations, "tune.batch_serialization_iterations", std::vector<int64_t>, {}, Runs, plain, \
    "The `pipeline.batch_serialization_iterations` tried (plans with every stage on one IPU and the "                  \
    "sequential schedule); unset = the config's only (the models price slices as a smaller micro-batch plus "          \
    "buffers: docs/tune.md). Listing values lets the search vary the key even where the config sets it.",              \
    Range::at_least(1), "", as_written)                                                                                \
  X(data_train, "data.train", std::string, "", Runs, defining | path,                                                  \
    "Training data source (docs/data.md), one of " + data_source_docs() +                                              \
        "; files map to the model's inputs by name; a relative path resolves against the "                             \
        "folder of the file that sets it, or the current directory from `--set`.",                                     \
    {}, "", as_written)                                                                                                \
  X(data_test, "data.test", std::string, "", Runs, path,                                                               \
    "Evaluation data source, same forms as `data.train`; empty = no evaluation.", {}, "", as_written)                  \
  X(data_batch_size, "data.batch_size", int64_t, 0, Runs, plain,                                                       \
    "Micro-batch per replica; unset = the model's `batch` parameter.", Range::at_least(1), "", as_written)             \
  X(data_validation, "data.validation", std::string, "", Runs, path,                                                   \
    "Validation data source, same forms as `data.train`: the mean of each output over it (`val_<output>`) "            \
    "every `training.validate_every`, in the log, the outfeed file and the trace (docs/data.md).",                     \
    {}, "", as_written)                                                                                                \
  X(data_validation_split, "data.validation_split", double, 0.0, Runs, defining,                                       \
    "Hold out this fraction of the training samples (the last ones by index) for validation instead "                  \
    "of `data.validation`: they are never trained on.",                                                                \
    (Range{0, true, 1, true}), "", as_written)                                                                         \
  X(checkpoint_dir, "checkpoint.dir", std::string, "", Runs, path,                                                     \
    "Directory for checkpoints; each records the run's defining keys, its config's hash and the registered "           \
    "ops its model calls; a relative path follows the path rule (see Paths); \"\" = no checkpoints.",                  \
    {}, "", [](const auto& c) { return c.resolve_path("checkpoint.dir", c.plain.checkpoint_dir); })                    \
  X(ipu_ipu_model_tiles_per_ipu, "ipu.ipu_model.tiles_per_ipu", int64_t, 0, Models, plain,                             \
    "Tiles per virtual IPU, which sets `device.tiles_per_ipu` (capacity = tiles x "                                    \
    "`device.memory_per_tile`); 0 = the version's count. Both set must agree.",                                        \
    Range::between(0, 1 << 20), "", as_written)                                                                        \
  X(ipu_ipu_model_version, "ipu.ipu_model.version", IpuVersion, IpuVersion::Ipu2, Models, plain,                       \
    "Simulated IPU version, the same choice as `device.version`: ipu1 (1216 tiles x 256 KiB, 1.6 GHz), "               \
    "ipu2 (1472 tiles x 624 KiB, 1.33 GHz) or bow (ipu2 at 1.85 GHz); both set must agree.",                           \
    {}, "", [](const auto& c) { return config::settled_device_version(c); })                                           \
  X(device_version, "device.version", IpuVersion, IpuVersion::Ipu2, Models, plain,                                     \
    "The IPU modelled: ipu1 (Mk1: 1216 tiles x 256 KiB, 1.6 GHz), ipu2 (Mk2 GC200: 1472 tiles x "                      \
    "624 KiB, 1.33 GHz) or bow (GC200 at 1.85 GHz); the other `device.*` keys default to its "                         \
    "figures. Same choice as `ipu.ipu_model.version`; both set must agree.",                                           \
    {}, "", [](const auto& c) { return config::settled_device_version(c); })                                           \
  X(device_tiles_per_ipu, "device.tiles_per_ipu", int64_t, DeviceSection{}.tiles_per_ipu, Models, plain,               \
    "Tiles of one IPU; unset = the version's count, or `ipu.ipu_model.tiles_per_ipu` when that is set.",               \
    Range::between(1, 1 << 20), "", [](const auto& c) { return config::settled_tiles_per_ipu(c); })                    \
  X(device_memory_per_tile, "device.memory_per_tile", int64_t, DeviceSection{}.memory_per_tile, Models, plain,         \
    "SRAM of one tile, in bytes; unset = the version's (capacity = tiles x this).", /* bounded so that tiles x bytes   \
                                                                                       stays within int64              \
                                                                                       (config_values fuzz, issue 30)  \
                                                                                     */                                \
    Range::between(1, double(int64_t{1} << 40)), "", [](const auto& c) {                                               \
      return config::device_figure(c, "device.memory_per_tile", c.plain.device_memory_per_tile,                        \
                                   &DeviceSection::memory_per_tile);                                                   \
    })                                                                                                                 \
  X(device_clock_hz, "device.clock_hz", double, DeviceSection{}.clock_hz, Models, plain,                               \
    "Tile clock, in Hz; unset = the version's.", Range::at_least(0, true), "", [](const auto& c) {                     \
      return config::device_figure(c, "device.clock_hz", c.plain.device_clock_hz, &DeviceSection::clock_hz);           \
    })                                                                                                                 \
  X(device_flops_per_tile_per_cycle, "device.flops_per_tile_per_cycle", double,                                        \
    DeviceSection{}.flops_per_tile_per_cycle, Models, plain,                                                           \
    "Peak fp32 floating-point operations per tile per cycle; unset = the version's.", Range::at_least(0, true), "",    \
    [](const auto& c) {                                                                                                \
      return config::device_figure(c, "device.flops_per_tile_per_cycle", c.plain.device_flops_per_tile_per_cycle,      \
                                   &DeviceSection::flops_per_tile_per_cycle);                                          \
    })                                                                                                                 \
  X(device_flops_per_tile_per_cycle_fp16, "device.flops_per_tile_per_cycle_fp16", double,                              \
    DeviceSection{}.flops_per_tile_per_cycle_fp16, Models, plain,                                                      \
    "Peak fp16 floating-point operations per tile per cycle; unset = the version's.", Range::at_least(0, true), "",    \
    [](const auto& c) {                                                                                                \
      return config::device_figure(c, "device.flops_per_tile_per_cycle_fp16",                                          \
                                   c.plain.device_flops_per_tile_per_cycle_fp16,                                       \
                                   &DeviceSection::flops_per_tile_per_cycle_fp16);                                     \
    })                                                                                                                 \
  X(device_ipu_link_bandwidth, "device.ipu_link_bandwidth", double, DeviceSection{}.ipu_link_bandwidth, Models, plain, \
    "IPU-to-IPU bandwidth of one IPU over its IPU-Links, in bytes/s; unset = the version's.",                          \
    Range::at_least(0, true), "", [](const auto& c) {                                                                  \
      return config::device_figure(c, "device.ipu_link_bandwidth", c.plain.device_ipu_link_bandwidth,                  \
                                   &DeviceSection::ipu_link_bandwidth);                                                \
    })                                                                                                                 \
  X(device_host_bandwidth, "device.host_bandwidth", double, DeviceSection{}.host_bandwidth, Models, plain,             \
    "Host-to-IPU bandwidth of one IPU, in bytes/s; unset = the version's.", Range::at_least(0, true), "",              \
    [](const auto& c) {                                                                                                \
      return config::device_figure(c, "device.host_bandwidth", c.plain.device_host_bandwidth,                          \
                                   &DeviceSection::host_bandwidth);                                                    \
    })                                                                                                                 \
  X(device_compute_efficiency, "device.compute_efficiency", double, DeviceSection{}.compute_efficiency, Models, plain, \
    "The one calibrated scale on top of PopLibs' vertex cycle estimates (matmuls, convolutions by "                    \
    "vertex, elementwise ops by family, reductions): an op's kernels take the estimate divided by it. "                \
    "0.606 is calibrated once, on Graphcore's published BERT-Base phase 1 throughput (16,391 "                         \
    "sequences/s on a Bow Pod16, docs/ipu_scale.md); 1 takes the estimates as they are.",                              \
    (Range{0, true, 1, false}), "", as_written)                                                                        \
  X(system_preset, "system.preset", SystemPreset, SystemPreset::Auto, Models, plain,                                   \
    "The system the IPUs sit in: pod4 (one IPU-M2000 / Bow-2000), pod16, pod64 (IPU-Links "                            \
    "within a rack), pod128 or pod256 (2 or 4 POD64 racks joined by GW-Links); auto = the smallest "                   \
    "that holds the config's IPUs (past pod256, as many of its racks as they need); custom = no preset, "              \
    "the keys' defaults. The other `system.*` keys default to its figures "                                            \
    "(configs/systems/*.toml cite their sources). Sets the levels of the cross-replica collectives "                   \
    "and the hosts that feed the data.",                                                                               \
    {}, "", [](const auto& c) { return config::settled_system_preset(c); })                                            \
  X(system_ipus_per_machine, "system.ipus_per_machine", int64_t, SystemSection{}.ipus_per_machine, Models, plain,      \
    "IPUs of one machine (IPU-M2000 / Bow-2000: 4); replicas' peers within one share its IPU-Links.",                  \
    Range::between(1, 1 << 16), "", [](const auto& c) {                                                                \
      return config::system_figure(c, "system.ipus_per_machine", c.plain.system_ipus_per_machine,                      \
                                   &SystemSection::ipus_per_machine);                                                  \
    })                                                                                                                 \
  X(system_machines_per_pod, "system.machines_per_pod", int64_t, SystemSection{}.machines_per_pod, Models, plain,      \
    "Machines joined by IPU-Links into one domain (a Pod: 1, 4 or 16).", Range::between(1, 1 << 16), "",               \
    [](const auto& c) {                                                                                                \
      return config::system_figure(c, "system.machines_per_pod", c.plain.system_machines_per_pod,                      \
                                   &SystemSection::machines_per_pod);                                                  \
    })                                                                                                                 \
  X(system_pods, "system.pods", int64_t, SystemSection{}.pods, Models, plain,                                          \
    "IPU-Link domains joined by GW-Links through their gateways (POD128: 2, POD256: 4).", Range::between(1, 1 << 16),  \
    "",                                                                                                                \
    [](const auto& c) { return config::system_figure(c, "system.pods", c.plain.system_pods, &SystemSection::pods); })  \
  X(system_links_in_machine, "system.links_in_machine", int64_t, SystemSection{}.links_in_machine, Models, plain,      \
    "IPU-Links from one IPU to the other IPUs of its machine (the collective's machine level).",                       \
    Range::between(1, 1024), "", [](const auto& c) {                                                                   \
      return config::system_figure(c, "system.links_in_machine", c.plain.system_links_in_machine,                      \
                                   &SystemSection::links_in_machine);                                                  \
    })                                                                                                                 \
  X(system_links_between_machines, "system.links_between_machines", int64_t, SystemSection{}.links_between_machines,   \
    Models, plain,                                                                                                     \
    "IPU-Links from one IPU to other machines of its Pod: the collective's IPU-Link level, and "                       \
    "pipeline transfers between IPUs of a replica in different machines.",                                             \
    Range::between(1, 1024), "", [](const auto& c) {                                                                   \
      return config::system_figure(c, "system.links_between_machines", c.plain.system_links_between_machines,          \
                                   &SystemSection::links_between_machines);                                            \
    })                                                                                                                 \
  X(system_ipu_link_bandwidth, "system.ipu_link_bandwidth", double, SystemSection{}.ipu_link_bandwidth, Models, plain, \
    "Bandwidth of one IPU-Link in one direction, bytes/s (320 GB/s over 10 links per IPU).", Range::at_least(0, true), \
    "", [](const auto& c) {                                                                                            \
      return config::system_figure(c, "system.ipu_link_bandwidth", c.plain.system_ipu_link_bandwidth,                  \
                                   &SystemSection::ipu_link_bandwidth);                                                \
    })                                                                                                                 \
  X(system_ipu_link_latency, "system.ipu_link_latency", double, SystemSection{}.ipu_link_latency, Models, plain,       \
    "Seconds per step of a ring over IPU-Links within a Pod: derived from PopLibs' measured "                          \
    "crossovers between its ring methods (docs/ipu_scale.md).",                                                        \
    Range::at_least(0), "", [](const auto& c) {                                                                        \
      return config::system_figure(c, "system.ipu_link_latency", c.plain.system_ipu_link_latency,                      \
                                   &SystemSection::ipu_link_latency);                                                  \
    })                                                                                                                 \
  X(system_gw_link_bandwidth, "system.gw_link_bandwidth", double, SystemSection{}.gw_link_bandwidth, Models, plain,    \
    "GW-Link bandwidth of one machine in one direction, bytes/s (2 x 100 Gbps), shared by its IPUs.",                  \
    Range::at_least(0, true), "", [](const auto& c) {                                                                  \
      return config::system_figure(c, "system.gw_link_bandwidth", c.plain.system_gw_link_bandwidth,                    \
                                   &SystemSection::gw_link_bandwidth);                                                 \
    })                                                                                                                 \
  X(system_gw_link_latency, "system.gw_link_latency", double, SystemSection{}.gw_link_latency, Models, plain,          \
    "Seconds a synchronisation or a ring step across POD64 racks (through the gateways) adds to one "                  \
    "within a Pod: the one constant fitted across racks, on Graphcore's MLPerf Training v1.1 ResNet-50 "               \
    "on a Mk2 POD128 (docs/ipu_scale.md).",                                                                            \
    Range::at_least(0), "", [](const auto& c) {                                                                        \
      return config::system_figure(c, "system.gw_link_latency", c.plain.system_gw_link_latency,                        \
                                   &SystemSection::gw_link_latency);                                                   \
    })                                                                                                                 \
  X(system_hosts, "system.hosts", int64_t, SystemSection{}.hosts, Models, plain,                                       \
    "Host servers of the whole system; a config using part of it is fed by its share of them.",                        \
    Range::between(1, 1 << 16), "", [](const auto& c) {                                                                \
      return config::system_figure(c, "system.hosts", c.plain.system_hosts, &SystemSection::hosts);                    \
    })                                                                                                                 \
  X(system_host_link_bandwidth, "system.host_link_bandwidth", double, SystemSection{}.host_link_bandwidth, Models,     \
    plain,                                                                                                             \
    "Network bandwidth of one host server to the machines, bytes/s: the infeed and outfeed of every "                  \
    "replica it feeds share it.",                                                                                      \
    Range::at_least(0, true), "", [](const auto& c) {                                                                  \
      return config::system_figure(c, "system.host_link_bandwidth", c.plain.system_host_link_bandwidth,                \
                                   &SystemSection::host_link_bandwidth);                                               \
    })                                                                                                                 \
  X(system_host_sync_latency, "system.host_sync_latency", double, SystemSection{}.host_sync_latency, Models, plain,    \
    "Seconds of the host round trip of one engine call (launch, sync, results), shared by the weight "                 \
    "updates of the call; does not scale with the IPU clock (not published: assumed).",                                \
    Range::at_least(0), "", [](const auto& c) {                                                                        \
      return config::system_figure(c, "system.host_sync_latency", c.plain.system_host_sync_latency,                    \
                                   &SystemSection::host_sync_latency);                                                 \
    })                                                                                                                 \
  X(system_host_samples_per_second, "system.host_samples_per_second", double, SystemSection{}.host_samples_per_second, \
    Models, plain,                                                                                                     \
    "Samples one host server's CPUs prepare per second (decoding, cropping: the data's work before it "                \
    "is sent), declared by the user for their data and hosts; the hosts' feed takes the longer of this "               \
    "work and their network time. 0 (the default): the hosts' CPU work is not modelled.",                              \
    Range::at_least(0), "", [](const auto& c) {                                                                        \
      return config::system_figure(c, "system.host_samples_per_second", c.plain.system_host_samples_per_second,        \
                                   &SystemSection::host_samples_per_second);                                           \
    })                                                                                                                 \
  X(optimizer_lr_schedule, "optimizer.lr_schedule", std::string, "constant", Runs, defining,                           \
    "How the learning rate changes over the updates (after any warmup); formulas in docs/training.md.",                \
    Names(lr_schedule_names()), "", as_written)                                                                        \
  X(pipeline_schedule, "pipeline.schedule", std::string, "grouped", Runs, tunable | layout, schedules_doc(),           \
    Names(pipeline_schedules::schedule_names()), "", [](const auto& c) {                                               \
      /* batch serialization runs the slices of a micro-batch one after another */                                     \
      return c.plain.pipeline_batch_serialization_iterations > 1 ? config::unpipelined_schedule()                      \
                                                                 : c.plain.pipeline_schedule;                          \
    })                                                                                                                 \
  X(tune_schedule, "tune.schedule", std::vector<std::string>, {}, Runs, plain,                                         \
    "The schedules tried; unset = all, or the config's `pipeline.schedule` when it sets one. Listing values "          \
    "lets the search vary the key even where the config sets it.",                                                     \
    Names(pipeline_schedules::schedule_names()), "", as_written)                                                       \
  X(tune_recomputation, "tune.recomputation", std::vector<std::string>, {}, Runs, plain,                               \
    "The recomputation tried: off or a `pipeline.recomputation_mode`; unset = all three, or the config's "             \
    "when it sets `ipu.allow_recompute` or the mode. Listing values lets the search vary the key even where "          \
    "the config sets it.",                                                                                             \
    Names({"off", "recompute_then_backpropagate", "recompute_and_backpropagate_interleaved"}), "", as_written)         \
  X(tune_gradient_accumulation_dtype, "tune.gradient_accumulation_dtype", std::vector<std::string>, {}, Runs, plain,   \
    "The accumulator types tried; unset = the config's only (fp16 accumulators trade an accuracy the "                 \
    "models cannot price).",                                                                                           \
    Names(key_spellings<AccumulatorType>()), "", as_written)                                                           \
  X(tune_gradient_accumulation_order, "tune.gradient_accumulation_order", std::vector<std::string>, {}, Runs, plain,   \
    "The accumulation orders tried; unset = the config's only (canonical keeps a tuned plan's bits equal "             \
    "to the one-IPU run's).",                                                                                          \
    Names(key_spellings<GradientAccumulationOrder>()), "", as_written)                                                 \
  X(ipu_convolutions_poplar_options, "ipu.convolutions.poplar_options", OptionMap, OptionMap{}, Models, tunable,       \
    "PopLibs options for every convolution: availableMemoryProportion (default 0.6) caps its "                         \
    "temporaries and partialsType (\"float\" or \"half\") sizes its partial sums in the memory model; "                \
    "other options are not read.",                                                                                     \
    {}, "", as_written)                                                                                                \
  X(ipu_matmuls_poplar_options, "ipu.matmuls.poplar_options", OptionMap, OptionMap{}, Models, tunable,                 \
    "PopLibs options for every matmul: availableMemoryProportion (default 0.6) caps its temporaries "                  \
    "and partialsType (\"float\" or \"half\") sizes its partial sums in the memory model; other "                      \
    "options are not read.",                                                                                           \
    {}, "", as_written)                                                                                                \
  X(ipu_device_connection_type, "ipu.device_connection.type", DeviceConnection, DeviceConnection::Always,              \
    refused_here(                                                                                                      \
        "every virtual IPU is attached when the run starts; deferred or no attachment is not implemented yet",         \
        "remove it; `iputrain plan` and `iputrain check` work without running"),                                       \
    plain, "When to attach the IPUs; `pre_compile` never attaches and every run returns zeros.", {}, "", as_written)   \
  X(ipu_device_connection_version, "ipu.device_connection.version", std::string, "",                                   \
    no_effect_here("the virtual IPUs are attached when a run starts, so there is no unattached target; the "           \
                   "simulated IPU is `ipu.ipu_model.version` (or `device.version`)"),                                  \
    plain, "Target IPU version when no device is attached; required for `pre_compile` and `never`.",                   \
    Names({"", "ipu1", "ipu2"}), "", as_written)                                                                       \
  X(ipu_device_connection_enable_remote_buffers, "ipu.device_connection.enable_remote_buffers", bool, false,           \
    no_effect_here("the virtual IPUs are attached when a run starts; remote memory is modelled by the "                \
                   "`pipeline.offload_*` keys"),                                                                       \
    plain, "Declare that the unattached target supports remote buffers (ignored for `always`).", {}, "", as_written)   \
  X(ipu_experimental_multi_replica_distribution_process_count,                                                         \
    "ipu.experimental.multi_replica_distribution.process_count", int64_t, 0, Runs, layout,                             \
    "Instances (processes started by `mpirun -n`) sharing the replicas, each holding replicas / this; "                \
    "0 = as launched. Set, it must equal mpirun's count.",                                                             \
    Range::between(0, std::numeric_limits<int32_t>::max()), "", as_written)                                            \
  X(ipu_experimental_multi_replica_distribution_process_index,                                                         \
    "ipu.experimental.multi_replica_distribution.process_index", int64_t, 0, Runs, layout,                             \
    "This instance's index, less than `process_count`; taken from mpirun's rank (set, it must equal it).",             \
    Range::between(0, std::numeric_limits<int32_t>::max()), "", as_written)

namespace iputrain {

//! The plain keys' values (see above), each named by its FIELD.
struct PlainKeys {
#define IPUTRAIN_PLAIN_FIELD(field, path, type, value, ...) type field = value;
  IPUTRAIN_PLAIN_KEYS(IPUTRAIN_PLAIN_FIELD)
#undef IPUTRAIN_PLAIN_FIELD
};

}  // namespace iputrain
