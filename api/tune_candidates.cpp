// What a candidate of `iputrain tune` is: the knob axes over the layouts (each value a list of
// `key=value` overrides), the combinations the config rules refuse, and the accumulation that
// holds the global batch.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "api/tune_search.hpp"
#include "core/pipeline_schedules/schedule_def.hpp"
#include "iputrain/config_loader.hpp"

namespace iputrain::api::tune {

const char* const kNotCandidate = "no accumulation holds the batch, or the rules refuse the combination";
const char* const kPrunedByBound = "the plan does not fit in memory (a plan that needs no more did not)";

const char* const kAsConfigured = "as configured";

namespace {

// The accumulation a candidate needs to hold the global batch under its schedule, or 0 if none does
// within the tolerance.
int64_t accumulation_for(const Space& s, const Layout& l, int64_t micro, const pipeline_schedules::ScheduleDef& def) {
  const pipeline_schedules::AccumulationRule rule = def.accumulation(l.positions, l.ipus, true);
  const auto per_update = static_cast<double>(micro) * l.replicas;
  const auto within = [&](int64_t a) {
    const double batch = per_update * static_cast<double>(a);
    return a >= rule.minimum && a % rule.multiple == 0 &&
           std::abs(batch - static_cast<double>(s.global_batch)) <= s.tolerance * static_cast<double>(s.global_batch);
  };
  if (s.fixed_accumulation) {
    return within(s.accumulation) ? s.accumulation : 0;
  }
  const double exact = static_cast<double>(s.global_batch) / per_update;
  const int64_t m = std::max<int64_t>(1, rule.multiple);
  const auto below = static_cast<int64_t>(std::floor(exact / static_cast<double>(m))) * m;
  for (int64_t a : {below, below + m}) {
    if (within(a)) {
      return a;
    }
  }
  return 0;
}

// The value of axis `k` at point `p`: its label, or the config's own value when the axis is fixed.
std::string knob(const Context& ctx, const Point& p, size_t k, const std::string& configured) {
  const std::string& label = ctx.space.axes[k].labels[p.knobs[k]];
  return label == kAsConfigured ? configured : label;
}

std::string schedule_name(const Context& ctx, const Point& p) {
  return knob(ctx, p, kSchedule, ctx.settings.plain.pipeline_schedule);
}

// The recomputation mode of a point ("off" when none).
std::string recomputation_of(const Context& ctx, const Point& p) {
  return knob(ctx, p, kRecomputation,
              ctx.config.plain.ipu_allow_recompute
                  ? std::string(key_spelling(ctx.config.plain.pipeline_recomputation_mode))
                  : "off");
}

// Combinations the config rules refuse whatever the model: they are not candidates (planning them
// would only fail, and a seed made of one would drop its whole layout).
bool admissible(const Context& ctx, const Point& p, const Layout& l, int64_t micro) {
  const std::string schedule = schedule_name(ctx, p);
  const std::string rec = recomputation_of(ctx, p);
  const pipeline_schedules::ScheduleDef* def = pipeline_schedules::find_schedule(schedule);
  if (def != nullptr && !pipeline_schedules::runs_recomputation(*def, rec)) {
    return false;
  }
  // Sharding splits the state over replicas: with one replica it is the unsharded plan again.
  if (l.replicas == 1 && (knob(ctx, p, kShardWeights, "") == "true" || knob(ctx, p, kShardState, "") == "true")) {
    return false;
  }
  // Batch serialization slices the micro-batch on one IPU under the sequential schedule and a sum.
  const int64_t slices = std::stoll(
      knob(ctx, p, kBatchSerialization, std::to_string(ctx.config.plain.pipeline_batch_serialization_iterations)));
  if (slices > 1 && (l.ipus != 1 || schedule != pipeline_schedules::unpipelined_schedule().name ||
                     micro % slices != 0 || ctx.settings.plain.pipeline_reduction_method != GradientReduction::Sum)) {
    return false;
  }
  return def == nullptr || !(def->one_position_per_ipu && l.shares_ipu);
}

// The value of `key` in `options` replaced by `amp`, written as a TOML inline table.
std::string option_table(OptionMap options, const std::string& amp) {
  options["availableMemoryProportion"] = amp;
  std::vector<std::string> parts;
  for (const auto& [k, v] : options) {
    parts.push_back(fmt::format("{} = \"{}\"", k, v));
  }
  return fmt::format("{{ {} }}", fmt::join(parts, ", "));
}

// How the value `v` of an axis is written as overrides.
Sets value_sets(const Context& ctx, size_t axis, const std::string& key, const std::string& v) {
  if (axis == kRecomputation) {
    // Off resets the mode too: a mode set without recomputation is an error of the config rules.
    return v == "off" ? Sets{"ipu.allow_recompute=false", "pipeline.recomputation_mode=auto"}
                      : Sets{"ipu.allow_recompute=true", "pipeline.recomputation_mode=" + v};
  }
  if (axis == kMemoryProportion) {
    return {"ipu.matmuls.poplar_options=" + option_table(ctx.config.plain.ipu_matmuls_poplar_options, v),
            "ipu.convolutions.poplar_options=" + option_table(ctx.config.plain.ipu_convolutions_poplar_options, v)};
  }
  return {key + "=" + v};
}

//! One knob: its axis, the keys it sets (the first written by value_sets), whether the config
//! fixes it, its default values and the value that needs the least memory (the first of `frugal`
//! present). A knob varies only when the rows of all its keys say they are tunable.
struct KnobSpec {
  size_t axis;
  std::string name;
  std::vector<std::string> keys;
  bool fixed;
  std::vector<std::string> defaults;
  std::vector<std::string> frugal;
};

Axis make_axis(const Context& ctx, const KnobSpec& spec) {
  const auto listed = ctx.limits.values.find(spec.axis);
  std::vector<std::string> values = listed != ctx.limits.values.end() ? listed->second : spec.defaults;
  if (listed == ctx.limits.values.end() && (spec.fixed && !ctx.limits.vary_layout)) {
    values.clear();
  }
  if (!std::all_of(spec.keys.begin(), spec.keys.end(), config::is_tunable)) {
    values.clear();
  }
  if (values.empty()) {
    return {spec.name, {{}}, {kAsConfigured}, 0};
  }
  Axis axis{spec.name, {}, {}, 0};
  for (const std::string& v : values) {
    axis.values.push_back(value_sets(ctx, spec.axis, spec.keys.front(), v));
    axis.labels.push_back(v);
  }
  for (auto f = spec.frugal.rbegin(); f != spec.frugal.rend(); ++f) {
    if (const auto it = std::find(values.begin(), values.end(), *f); it != values.end()) {
      axis.frugal = static_cast<size_t>(it - values.begin());
    }
  }
  // The smallest proportion leaves the least memory to temporaries.
  for (size_t v = 0; spec.axis == kMemoryProportion && v < values.size(); ++v) {
    axis.frugal = std::stod(values[v]) < std::stod(values[axis.frugal]) ? v : axis.frugal;
  }
  return axis;
}

}  // namespace

bool free_key(const Context& ctx, const std::string& key) { return ctx.limits.vary_layout || !ctx.config.is_set(key); }

std::vector<Axis> make_axes(const Context& ctx, int32_t max_replicas) {
  const Config& c = ctx.config;
  const bool replicas = max_replicas > 1;
  const std::vector<std::string> yes_no = {"true", "false"};
  // "auto" (the config's default) first: at equal figures the plan that changes less ranks first.
  const std::vector<std::string> auto_yes = {"auto", "true"};
  // Batch serialization is tried only where [tune] lists it: the models price a micro-batch in
  // slices as the smaller micro-batch with more accumulation (the same cycles) plus the whole
  // micro-batch's buffers, so it never wins (docs/tune.md).
  // Every mode, off included, wherever the search may choose recomputation ([tune] vary_layout, or
  // a config that does not set it; a [tune] list is tried as listed). A config that turns it on
  // has "off" tried last: a large pipelined model's plans without it are the slowest to make
  // (10 to 66 s each here), and seldom fit where the config needed recomputation.
  std::vector<std::string> recomputation = {"off", "recompute_then_backpropagate",
                                            "recompute_and_backpropagate_interleaved"};
  if (c.plain.ipu_allow_recompute) {
    std::rotate(recomputation.begin(), recomputation.begin() + 1, recomputation.end());
  }
  const std::vector<KnobSpec> specs = {
      {kSchedule,
       "schedule",
       {"pipeline.schedule"},
       c.is_set("pipeline.schedule"),
       pipeline_schedules::schedule_names(),
       {}},
      {kRecomputation,
       "recompute",
       {"ipu.allow_recompute", "pipeline.recomputation_mode"},
       c.is_set("ipu.allow_recompute") || c.is_set("pipeline.recomputation_mode"),
       recomputation,
       {"recompute_and_backpropagate_interleaved"}},
      {kMemoryProportion,
       "memory proportion",
       {"ipu.matmuls.poplar_options", "ipu.convolutions.poplar_options"},
       c.plain.ipu_matmuls_poplar_options.count("availableMemoryProportion") > 0,
       {"0.6", "0.45", "0.3", "0.2", "0.1"},
       {}},
      {kAccumulationDtype, "accumulators", {"pipeline.gradient_accumulation_dtype"}, true, {}, {"fp16"}},
      {kAccumulationOrder, "accumulation order", {"pipeline.gradient_accumulation_order"}, true, {}, {"sequential"}},
      {kOffloadState,
       "optimizer state off-chip",
       {"pipeline.offload_weight_update_variables"},
       c.is_set("pipeline.offload_weight_update_variables"),
       yes_no,
       {"true"}},
      {kOffloadAccumulators,
       "accumulators off-chip",
       {"pipeline.offload_gradient_accumulation_buffers"},
       c.is_set("pipeline.offload_gradient_accumulation_buffers"),
       auto_yes,
       {"true"}},
      {kShardState,
       "sharded optimizer state",
       {"pipeline.replicated_optimizer_state_sharding"},
       c.is_set("pipeline.replicated_optimizer_state_sharding") || !replicas,
       replicas ? yes_no : Sets{},
       {"true"}},
      {kShardWeights,
       "sharded weights",
       {"pipeline.replicated_weight_sharding"},
       c.is_set("pipeline.replicated_weight_sharding") || c.is_set("pipeline.offload_weights") || !replicas,
       replicas ? auto_yes : Sets{},
       {"true"}},
      {kBatchSerialization,
       "batch serialization",
       {"pipeline.batch_serialization_iterations"},
       c.is_set("pipeline.batch_serialization_iterations"),
       {},
       {"4", "2"}},
  };
  std::vector<Axis> axes;
  std::set<std::string> knobbed;
  for (const KnobSpec& spec : specs) {
    axes.push_back(make_axis(ctx, spec));
    knobbed.insert(spec.keys.begin(), spec.keys.end());
  }
  // A tunable key no knob above sets: every value it accepts, after the knobs (AxisIndex).
  for (const std::string& key : config::keys()) {
    if (config::is_tunable(key) && knobbed.count(key) == 0) {
      const std::vector<std::string> choices = config::key_choices(key);
      axes.push_back(make_axis(ctx, {axes.size(), key, {key}, c.is_set(key), choices, {}}));
    }
  }
  return axes;
}

Point frugal_point(const Context& ctx, size_t layout, size_t micro, size_t schedule, bool all) {
  Point p{layout, micro, {}, {}};
  for (size_t k = 0; k < ctx.space.axes.size(); ++k) {
    p.knobs.push_back(secondary(k) && !all ? 0 : ctx.space.axes[k].frugal);
  }
  p.knobs[kSchedule] = schedule;
  // The interleaved schedule takes only recompute-then-backpropagate; batch serialization only the
  // sequential schedule on one IPU: fall back to the next most frugal value the point accepts.
  const Layout& l = ctx.space.layouts[layout];
  const auto try_axis = [&](size_t k, const std::vector<std::string>& most_frugal_first) {
    const std::vector<std::string>& labels = ctx.space.axes[k].labels;
    for (const std::string& v : most_frugal_first) {
      const auto it = std::find(labels.begin(), labels.end(), v);
      if (admissible(ctx, p, l, ctx.space.micro[micro]) || it == labels.end()) {
        continue;
      }
      p.knobs[k] = static_cast<size_t>(it - labels.begin());
    }
  };
  // Each fallback reaches a value its own rule accepts; recomputation last, as the other rules
  // hold by then.
  try_axis(kBatchSerialization, {"1"});
  try_axis(kShardState, {"false"});
  try_axis(kShardWeights, {"auto", "false"});
  try_axis(kRecomputation, {"recompute_then_backpropagate", "off"});
  return p;
}

namespace {

// Does value `q` of memory knob `axis` need no more memory than value `p`? A smaller proportion
// caps the temporaries lower; state or accumulators off-chip, or state sharded, hold less on the
// IPU. Sharded weights are no such knob: a shard is smaller, but each task gathers its stage's
// weights whole (one large stage on an IPU needs more than its weights unsharded).
bool frugal_or_equal(size_t axis, const std::string& q, const std::string& p) {
  if (q == p) {
    return true;
  }
  if (axis == kMemoryProportion) {
    return std::stod(q) <= std::stod(p);
  }
  return (axis == kOffloadState || axis == kOffloadAccumulators || axis == kShardState) && q == "true";
}

}  // namespace

bool needs_no_more_memory(const Context& ctx, const Point& q, const Point& p) {
  if (q.layout != p.layout || q.layout == kInputLayout || q.stage_amp != p.stage_amp || q.micro > p.micro) {
    return false;
  }
  for (size_t k = 0; k < ctx.space.axes.size(); ++k) {
    if (!frugal_or_equal(k, ctx.space.axes[k].labels[q.knobs[k]], ctx.space.axes[k].labels[p.knobs[k]])) {
      return false;
    }
  }
  // A larger micro-batch holds more activations, but needs less accumulation for the same global
  // batch: fewer accumulators under the canonical order. So only where they are off the IPU, or
  // the accumulation is fixed.
  const bool off_chip =
      knob(ctx, p, kOffloadAccumulators,
           ctx.config.plain.pipeline_offload_gradient_accumulation_buffers.value_or(false) ? "true" : "") == "true";
  return q.micro == p.micro || off_chip || ctx.space.fixed_accumulation;
}

// The overrides of a candidate; empty optional when no accumulation holds the global batch or the
// rules refuse the combination.
std::optional<Sets> sets_of(const Context& ctx, const Point& p) {
  if (p.layout == kInputLayout) {
    return Sets{};
  }
  const Space& s = ctx.space;
  const Layout& l = s.layouts[p.layout];
  const int64_t micro = s.micro[p.micro];
  if (!admissible(ctx, p, l, micro)) {
    return std::nullopt;
  }
  const pipeline_schedules::ScheduleDef* def = pipeline_schedules::find_schedule(schedule_name(ctx, p));
  const int64_t acc = accumulation_for(
      s, l, micro, def != nullptr ? *def : pipeline_schedules::schedule_def(pipeline_schedules::ScheduleKind::Grouped));
  if (acc == 0) {
    return std::nullopt;
  }
  Sets sets = l.sets;
  sets.push_back(fmt::format("data.batch_size={}", micro));
  if (!s.fixed_accumulation) {
    sets.push_back(fmt::format("pipeline.gradient_accumulation_count={}", acc));
  }
  for (size_t k = 0; k < s.axes.size(); ++k) {
    const Sets& v = s.axes[k].values[p.knobs[k]];
    sets.insert(sets.end(), v.begin(), v.end());
  }
  if (!p.stage_amp.empty()) {
    // Each stage's options go over the knob's for every matmul and convolution; `{}` keeps them.
    std::vector<std::string> entries;
    for (size_t amp : p.stage_amp) {
      const std::string v = amp == 0 ? "" : s.axes[kMemoryProportion].labels[amp - 1];
      entries.push_back(amp == 0 ? "{}"
                                 : fmt::format("{{ matmul_options = {{ availableMemoryProportion = \"{0}\" }}, "
                                               "convolution_options = {{ availableMemoryProportion = \"{0}\" }} }}",
                                               v));
    }
    for (const char* key : {"forward", "backward"}) {
      sets.push_back(fmt::format("pipeline.{}_propagation_stages_poplar_options=[{}]", key, fmt::join(entries, ", ")));
    }
  }
  return sets;
}

}  // namespace iputrain::api::tune
