#include "engine/supported_keys.hpp"

#include <fmt/format.h>

#include <array>
#include <string_view>

#include "frontend/config/schema.hpp"

namespace iputrain::engine {

namespace {

// Keys (or whole tables, ending in '.') whose "runs" effect the engine implements.
constexpr auto kImplemented = std::to_array<std::string_view>({
    "model",
    "data.",
    "ipu.auto_select_ipus",
    "ipu.select_ipus",
    "ipu.allow_recompute",
    "ipu.floating_point_behaviour.inv",
    "ipu.floating_point_behaviour.div0",
    "ipu.floating_point_behaviour.oflo",
    "ipu.floating_point_behaviour.set_all",
    "ipu.floating_point_behaviour.esr",
    "ipu.floating_point_behaviour.nanoo",
    "ipu.optimizations.prefetch_data_streams",
    "ipu.optimizations.maximum_cross_replica_sum_buffer_size",
    "pipeline.stages",
    "pipeline.device_mapping",
    "pipeline.auto_stages",
    "pipeline.gradient_accumulation_count",
    "pipeline.gradient_accumulation_dtype",
    "pipeline.gradient_accumulation_order",
    "pipeline.repeat_count",
    "pipeline.schedule",
    "pipeline.recomputation_mode",
    "pipeline.outfeed_loss",
    "pipeline.accumulate_outfeed",
    "pipeline.accumulate_outfeed_dtype",
    "pipeline.outfeed_mask",
    "pipeline.name",
    "pipeline.reduction_method",
    "optimizer.type",
    "optimizer.learning_rate",
    "optimizer.momentum",
    "optimizer.use_nesterov",
    "optimizer.beta1",
    "optimizer.beta2",
    "optimizer.epsilon",
    "optimizer.weight_decay",
    "optimizer.rho",
    "optimizer.centered",
    "optimizer.initial_accumulator_value",
    "optimizer.gradient_clip_norm",
    "optimizer.loss_scaling",
    "optimizer.loss_scaling_mode",
    "optimizer.loss_scaling_growth_interval",
    "optimizer.loss_scaling_growth_factor",
    "optimizer.loss_scaling_backoff_factor",
    "optimizer.lr_schedule",
    "optimizer.warmup_steps",
    "optimizer.decay_steps",
    "optimizer.decay_rate",
    "optimizer.min_learning_rate",
    "optimizer.state_dtype",
    "training.steps",
    "training.epochs",
    "training.steps_per_execution",
    "training.seed",
    "training.log_every",
    "training.outfeed_mode",
    "checkpoint.",
    "training.precision",
    "training.master_weights",
});

bool implemented(std::string_view path) {
  for (std::string_view k : kImplemented) {
    const bool table = k.back() == '.';
    if (table ? path.substr(0, k.size()) == k : path == k) {
      return true;
    }
  }
  return false;
}

}  // namespace

void check_supported(const Config& config) {
  for (const config::KeySpec& key : config::schema()) {
    if (key.effect != config::Effect::Runs || implemented(key.path) || !config.is_set(key.path)) {
      continue;
    }
    config.fail_at(key.path,
                   fmt::format("`{}` is a valid key, but this version of the engine does not act on it yet",
                               key.path),
                   "remove it to train with the defaults; `iputrain config explain " + key.path +
                       "` says what it will do");
  }
}

}  // namespace iputrain::engine
