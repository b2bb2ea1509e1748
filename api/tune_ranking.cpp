// The output of `iputrain tune`: the plans ranked (the fastest first, then the most headroom),
// what each changes over the input config, the Pareto front of throughput against memory
// headroom, and the best plans written as commented TOML that `iputrain plan` reads back to the
// same figures.
#include <fmt/format.h>

#include <algorithm>

#include "api/tune_search.hpp"
#include "iputrain/config_loader.hpp"
#include "iputrain/error.hpp"
#include "planner/report/report.hpp"

namespace iputrain::api::tune {

namespace {

// The faster plan first; at equal speed the one with more headroom, then the input config, then
// the candidate order.
bool better(const std::pair<const Point, Figures>& a, const std::pair<const Point, Figures>& b) {
  if (a.second.fits != b.second.fits) {
    return a.second.fits;
  }
  if (a.second.samples_per_second != b.second.samples_per_second) {
    return a.second.samples_per_second > b.second.samples_per_second;
  }
  if (a.second.peak != b.second.peak) {
    return a.second.peak < b.second.peak;
  }
  // A candidate that only changes knobs the model does not see is no better than the input config.
  if ((a.first.layout == kInputLayout) != (b.first.layout == kInputLayout)) {
    return a.first.layout == kInputLayout;
  }
  return a.first < b.first;
}

// The keys of `sets` whose value differs from the input config's, in key order.
Sets changes_of(const Context& ctx, const Sets& sets) {
  Sets all = ctx.base_sets;
  all.insert(all.end(), sets.begin(), sets.end());
  const Config config = config::load(ctx.request.config_path, all);
  std::map<std::string, std::string> out;
  for (const std::string& s : sets) {
    const std::string key = s.substr(0, s.find('='));
    const auto before = config::value_text(ctx.config, key);
    const auto after = config::value_text(config, key);
    if (!before || !after || *before != *after) {
      out[key] = s;
    }
  }
  Sets list;
  for (const auto& [key, s] : out) {
    list.push_back(s);
  }
  return list;
}

TunedPlan tuned(const Context& ctx, const Point& p, const Figures& f) {
  TunedPlan t;
  t.changes = changes_of(ctx, *sets_of(ctx, p));
  t.summary = summary(ctx, p, f);
  t.samples_per_second = f.samples_per_second;
  t.bubble_fraction = f.bubble;
  t.peak_bytes = f.peak;
  t.capacity = f.capacity;
  t.replicas = f.replicas;
  t.ipus_per_replica = f.ipus_per_replica;
  t.micro_batch = f.micro_batch;
  t.accumulation = f.accumulation;
  t.global_batch = f.micro_batch * f.accumulation * f.replicas;
  t.schedule = f.schedule;
  return t;
}

// A plan's config as TOML: the input config extended by the keys the request and the plan set (the
// whole config where that cannot be said so), its changes and figures in a comment on top.
std::string tuned_toml(const Context& ctx, const TunedPlan& t) {
  Sets sets = ctx.base_sets;
  sets.insert(sets.end(), t.changes.begin(), t.changes.end());
  const Config config = config::load(ctx.request.config_path, sets);
  std::string out = fmt::format(
      "# Written by `iputrain tune` for {} from {}.\n# {}\n# predicted {:.1f} samples/s, peak {} of {} bytes per "
      "IPU, bubble {:.1f}%\n# what differs from the input config:\n",
      ctx.request.model_path, ctx.request.config_path, t.summary, t.samples_per_second, t.peak_bytes, t.capacity,
      100 * t.bubble_fraction);
  for (const std::string& c : t.changes) {
    out += "#   " + c + "\n";
  }
  const std::optional<std::string> extending = config::show_extending(config, ctx.request.config_path, sets);
  return out + "\n" + (extending ? *extending : config::show(config));
}

void mark_pareto(std::vector<TunedPlan>& plans) {
  for (TunedPlan& r : plans) {
    r.pareto = std::none_of(plans.begin(), plans.end(), [&](const TunedPlan& s) {
      return s.samples_per_second >= r.samples_per_second && s.peak_bytes <= r.peak_bytes &&
             (s.samples_per_second > r.samples_per_second || s.peak_bytes < r.peak_bytes);
    });
  }
}

}  // namespace

// The fitting points, best first.
std::vector<const std::pair<const Point, Figures>*> ranking(const Context& ctx) {
  std::vector<const std::pair<const Point, Figures>*> out;
  for (const auto& entry : ctx.seen) {
    if (entry.second.fits) {
      out.push_back(&entry);
    }
  }
  std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return better(*a, *b); });
  return out;
}

std::string summary(const Context& ctx, const Point& p, const Figures& f) {
  if (p.layout == kInputLayout) {
    return fmt::format("{} x {} IPU{}, {}, micro-batch {} x {} (the input config)", f.replicas, f.ipus_per_replica,
                       f.ipus_per_replica == 1 ? "" : "s", f.schedule, f.micro_batch, f.accumulation);
  }
  std::string out = fmt::format("{} x {} IPU{}, {}, micro-batch {} x {}", f.replicas, f.ipus_per_replica,
                                f.ipus_per_replica == 1 ? "" : "s", f.schedule, f.micro_batch, f.accumulation);
  // The knobs the search chose (a yes-or-no knob only when on, batch serialization only when slicing).
  for (size_t k = kSchedule + 1; k < ctx.space.axes.size(); ++k) {
    const Axis& axis = ctx.space.axes[k];
    const std::string& label = axis.labels[p.knobs[k]];
    const bool off = label == "false" || label == "auto" || (k == kBatchSerialization && label == "1");
    if (k == kRecomputation && axis.values.size() > 1) {
      out += label == "off"                            ? ", no recomputation"
             : label == "recompute_then_backpropagate" ? ", recompute then backpropagate"
                                                       : ", recompute interleaved";
    } else if (axis.values.size() > 1 && !off) {
      out += label == "true" ? ", " + axis.name : fmt::format(", {} {}", axis.name, label);
    }
  }
  if (!p.stage_amp.empty()) {
    std::vector<std::string> per_stage;
    for (size_t a : p.stage_amp) {
      per_stage.push_back(a == 0 ? ctx.space.axes[kMemoryProportion].labels[p.knobs[kMemoryProportion]]
                                 : ctx.space.axes[kMemoryProportion].labels[a - 1]);
    }
    out += fmt::format(", memory proportion per stage [{}]", fmt::join(per_stage, ", "));
  }
  return out + "; " + ctx.space.layouts[p.layout].label;
}

namespace {

// No candidate fits: the one that misses by the least (its IPU and by how much) and what the search
// did not try.
[[noreturn]] void nothing_fits(const Context& ctx, const TuneResult& result) {
  const std::pair<const Point, Figures>* closest = nullptr;
  const auto over = [](const Figures& f) {
    return static_cast<double>(f.peak - f.capacity) / static_cast<double>(std::max<int64_t>(1, f.capacity));
  };
  for (const auto& entry : ctx.seen) {
    const Figures& f = entry.second;
    if (f.over_ipu >= 0 && entry.first.layout != kInputLayout &&
        (closest == nullptr || over(f) < over(closest->second))) {
      closest = &entry;
    }
  }
  std::string message = fmt::format("no layout of the {} planned fits the IPUs{}", ctx.planned,
                                    result.timed_out ? " before the time ran out" : "");
  if (closest != nullptr) {
    const Figures& f = closest->second;
    message += fmt::format(
        "\n  closest: {}\n    ({}): IPU {} of a replica needs {} at its peak, {} ({:.1f}%) more than its {}",
        fmt::join(changes_of(ctx, *sets_of(ctx, closest->first)), " "), ctx.space.layouts[closest->first.layout].label,
        f.over_ipu, planner::human_bytes(f.peak), planner::human_bytes(f.peak - f.capacity), 100 * over(f),
        planner::human_bytes(f.capacity));
  }
  std::vector<std::string> fixed;
  for (const Axis& axis : ctx.space.axes) {
    if (axis.values.size() == 1 && axis.labels.front() == kAsConfigured) {
      fixed.push_back(axis.name);
    }
  }
  std::string untried = fmt::format("{} candidate{} of the space{}", result.untried, result.untried == 1 ? "" : "s",
                                    result.timed_out ? " (the time ran out)" : "");
  if (!fixed.empty()) {
    untried += fmt::format("; other values of the knobs held at one ({})", fmt::join(fixed, ", "));
  }
  throw Error(ErrorKind::Plan, message, {},
              fmt::format("not tried: {}. Give more IPUs, a smaller global batch, more time (--time){}", untried,
                          fixed.empty() ? "" : ", or list values of those knobs in [tune] (or --vary-layout)"));
}

}  // namespace

void rank_into(const Context& ctx, TuneResult& result, const Figures& input) {
  const auto ranked = ranking(ctx);
  if (ranked.empty()) {
    nothing_fits(ctx, result);
  }
  // Candidates with the same figures differ in knobs the model does not see: the first (by the
  // candidate order) speaks for them.
  std::vector<TunedPlan> fitting;
  for (const auto* entry : ranked) {
    const Figures& f = entry->second;
    if (!fitting.empty() && fitting.back().samples_per_second == f.samples_per_second &&
        fitting.back().peak_bytes == f.peak) {
      continue;
    }
    fitting.push_back(tuned(ctx, entry->first, f));
  }
  mark_pareto(fitting);
  for (TunedPlan& t : fitting) {
    if (result.ranked.size() < static_cast<size_t>(std::max(1, ctx.limits.top))) {
      t.toml = tuned_toml(ctx, t);
      result.ranked.push_back(t);
    }
    if (t.pareto) {
      result.pareto.push_back(t);
    }
  }
  if (input.fits) {
    result.input.summary = fmt::format("{} x {} IPUs, {}, micro-batch {} x {} (the input config)", input.replicas,
                                       input.ipus_per_replica, input.schedule, input.micro_batch, input.accumulation);
    result.input.samples_per_second = input.samples_per_second;
    result.input.bubble_fraction = input.bubble;
    result.input.peak_bytes = input.peak;
    result.input.capacity = input.capacity;
    result.input.replicas = input.replicas;
    result.input.ipus_per_replica = input.ipus_per_replica;
    result.input.micro_batch = input.micro_batch;
    result.input.accumulation = input.accumulation;
    result.input.global_batch = input.micro_batch * input.accumulation * input.replicas;
    result.input.schedule = input.schedule;
  }
  result.seconds = ctx.elapsed();
}

}  // namespace iputrain::api::tune
