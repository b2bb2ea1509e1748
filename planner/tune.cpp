// `iputrain tune`: the search. Layouts (tune_space.cpp) times the knob axes; every candidate is a
// list of `key=value` overrides planned by Plan::make, so its figures are the planner's own.
//
// Order of work: the input plan; one calibration plan per depth for the cut programme; per layout
// the largest micro-batch that fits under the most frugal knobs (a layout whose smallest one does
// not fit is pruned whole: no knob makes it smaller); then either every candidate (small spaces)
// or a coordinate search from the best seeds. Candidates are planned in rounds of fixed size in
// parallel (oneTBB) and merged in candidate order, so the result does not depend on the thread
// count; the time budget is checked between rounds.
#include "iputrain/tune.hpp"

#include <fmt/format.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <regex>
#include <set>

#include "core/schedules/schedule_def.hpp"
#include "iputrain/config_loader.hpp"
#include "iputrain/error.hpp"
#include "iputrain/model.hpp"
#include "iputrain/plan.hpp"
#include "planner/tune_space.hpp"

namespace iputrain {

namespace {

using tuning::Figures;
using tuning::Layout;
using tuning::Sets;

constexpr size_t kRound = 8;  // candidates planned per round, whatever the thread count
// The input config's own point: not in the space (its layout may be none of the search's), but
// ranked with the candidates, so the search can only improve on it.
constexpr size_t kInputLayout = static_cast<size_t>(-1);
constexpr const char* kNotCandidate = "no accumulation holds the batch, or the rules refuse the combination";

//! One axis of knobs: each value is the sets that express it (empty = the config's own).
struct Axis {
  std::string name;
  std::vector<Sets> values;
  std::vector<std::string> labels;
  size_t frugal = 0;  // the value that needs the least memory
};

//! A candidate: a layout, a micro-batch and one value per axis.
struct Point {
  size_t layout = 0;
  size_t micro = 0;
  std::vector<size_t> knobs;
  bool operator<(const Point& o) const { return std::tie(layout, micro, knobs) < std::tie(o.layout, o.micro, o.knobs); }
  bool operator==(const Point& o) const = default;
};

struct Space {
  std::vector<Layout> layouts;
  std::vector<int64_t> micro;  // micro-batch values
  std::vector<Axis> axes;      // axes[0] is the schedule
  int64_t global_batch = 0;
  double tolerance = 0;
  bool fixed_accumulation = false;
  int64_t accumulation = 0;  // when fixed
};

struct Context {
  const TuneRequest& request;
  Sets base_sets;  // the request's sets and the IPU count
  Config config;   // the input config with the request's sets
  Space space;
  std::map<Point, Figures> seen;
  int64_t pruned = 0;
  int64_t planned = 0;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  // The longest plan so far, in seconds: a plan is not started when it would
  // likely end after the budget.
  mutable std::atomic<double> longest_plan{0};
  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
  bool out_of_time() const { return elapsed() >= request.time_seconds; }
  bool no_time_for_a_plan() const { return elapsed() + longest_plan.load() >= request.time_seconds; }
};

Figures out_of_time_figures() {
  Figures f;
  f.error = "not planned: the time budget ran out";
  return f;
}

Figures plan_with(const Context& ctx, const Sets& extra) {
  // A plan can take seconds: one not started when the budget runs out is not started at all.
  if (ctx.no_time_for_a_plan()) {
    return out_of_time_figures();
  }
  const auto start = std::chrono::steady_clock::now();
  Figures f;
  try {
    Sets sets = ctx.base_sets;
    sets.insert(sets.end(), extra.begin(), extra.end());
    const Config config = config::load(ctx.request.config_path, sets);
    const Model model = Model::load(ctx.request.model_path, config);
    const Plan plan = Plan::make(model, config);
    f.fits = true;
    f.samples_per_second = plan.samples_per_second();
    f.bubble = plan.bubble_fraction();
    for (const PlanMemory& m : plan.memory()) {
      f.peak = std::max(f.peak, m.total_peak);
      f.capacity = m.capacity;
    }
    f.micro_batch = plan.micro_batch();
    f.accumulation = plan.accumulation_count();
    f.replicas = plan.replicas();
    f.ipus_per_replica = plan.ipus_per_replica();
    f.schedule = plan.schedule();
    for (const PlanStage& s : plan.stages()) {
      f.stage_cycles.push_back(s.forward_cycles + s.backward_cycles);
    }
  } catch (const Error& e) {
    f.fits = false;
    f.error = e.diagnostic().message;
  }
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (double seen = ctx.longest_plan.load(); took > seen && !ctx.longest_plan.compare_exchange_weak(seen, took);) {
  }
  return f;
}

// The accumulation a candidate needs to hold the global batch under its schedule, or 0 if none does
// within the tolerance.
int64_t accumulation_for(const Space& s, const Layout& l, int64_t micro, const planner::ScheduleDef& def) {
  const planner::AccumulationRule rule = def.accumulation(l.positions, l.ipus, true);
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

const planner::ScheduleDef& schedule_of(const Space& s, const Point& p, const Config& config) {
  const Sets& sched = s.axes[0].values[p.knobs[0]];
  const std::string name = sched.empty() ? config.pipeline.schedule : sched[0].substr(sched[0].find('=') + 1);
  const planner::ScheduleDef* def = planner::find_schedule(name);
  return def != nullptr ? *def : planner::schedule_def(planner::ScheduleKind::Grouped);
}

// The recomputation mode of a point ("off" when none).
std::string recomputation_of(const Context& ctx, const Point& p) {
  const Axis& axis = ctx.space.axes[1];
  if (axis.values.size() > 1) {
    return axis.labels[p.knobs[1]];
  }
  return ctx.config.ipu.allow_recompute ? ctx.config.pipeline.recomputation_mode : "off";
}

// Combinations the config rules refuse whatever the model: they are not candidates (planning them
// would only fail, and a seed made of one would drop its whole layout).
bool admissible(const Context& ctx, const Point& p, const Layout& l) {
  const std::string& schedule = ctx.space.axes[0].labels[p.knobs[0]];
  const std::string rec = recomputation_of(ctx, p);
  const planner::ScheduleDef* def = planner::find_schedule(schedule);
  return def == nullptr || (planner::runs_recomputation(*def, rec) && !(def->one_position_per_ipu && l.shares_ipu));
}

// The overrides of a candidate; empty optional when no accumulation holds the global batch or the
// rules refuse the combination.
std::optional<Sets> sets_of(const Context& ctx, const Point& p) {
  if (p.layout == kInputLayout) {
    return Sets{};
  }
  const Space& s = ctx.space;
  const Layout& l = s.layouts[p.layout];
  if (!admissible(ctx, p, l)) {
    return std::nullopt;
  }
  const int64_t micro = s.micro[p.micro];
  const int64_t acc = accumulation_for(s, l, micro, schedule_of(s, p, ctx.config));
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
  return sets;
}

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
  for (size_t k = 1; k < ctx.space.axes.size(); ++k) {
    const Axis& axis = ctx.space.axes[k];
    if (axis.values.size() > 1) {
      out += fmt::format(", {} {}", axis.name, axis.labels[p.knobs[k]]);
    }
  }
  return out + "; " + ctx.space.layouts[p.layout].label;
}

void report(const Context& ctx) {
  if (!ctx.request.progress) {
    return;
  }
  TuneProgress progress;
  progress.planned = ctx.planned;
  progress.pruned = ctx.pruned;
  progress.seconds = ctx.elapsed();
  progress.budget_seconds = ctx.request.time_seconds;
  const auto ranked = ranking(ctx);
  if (!ranked.empty()) {
    progress.best_samples_per_second = ranked.front()->second.samples_per_second;
    progress.best = summary(ctx, ranked.front()->first, ranked.front()->second);
  }
  ctx.request.progress(progress);
}

bool memory_failure(const Figures& f) { return !f.fits && f.error.rfind("the plan does not fit in memory", 0) == 0; }

// Plans the points not yet seen, in rounds; a point whose smaller micro-batch (all else equal)
// did not fit in memory is pruned unplanned: activations only grow with the micro-batch.
void plan_points(Context& ctx, std::vector<Point> points) {
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  std::vector<Point> todo;
  for (const Point& p : points) {
    if (ctx.seen.count(p) == 0) {
      todo.push_back(p);
    }
  }
  for (size_t begin = 0; begin < todo.size() && !ctx.no_time_for_a_plan(); begin += kRound) {
    std::vector<Point> round;
    std::vector<Sets> sets;
    for (size_t k = begin; k < std::min(todo.size(), begin + kRound); ++k) {
      Point smaller = todo[k];
      bool bounded = false;
      for (size_t m = 0; m < todo[k].micro && !bounded; ++m) {
        smaller.micro = m;
        const auto it = ctx.seen.find(smaller);
        bounded = it != ctx.seen.end() && memory_failure(it->second);
      }
      std::optional<Sets> s = sets_of(ctx, todo[k]);
      if (bounded || !s) {
        Figures f;
        f.error = bounded ? "the plan does not fit in memory (a smaller micro-batch did not)" : kNotCandidate;
        ctx.seen[todo[k]] = f;
        ctx.pruned += 1;
        continue;
      }
      round.push_back(todo[k]);
      sets.push_back(std::move(*s));
    }
    std::vector<Figures> figures(round.size());
    oneapi::tbb::parallel_for(size_t{0}, round.size(), [&](size_t k) { figures[k] = plan_with(ctx, sets[k]); });
    for (size_t k = 0; k < round.size(); ++k) {
      // A candidate skipped for time was not planned: it is neither a result nor a failure.
      if (figures[k].error != out_of_time_figures().error) {
        ctx.seen[round[k]] = std::move(figures[k]);
        ctx.planned += 1;
      }
    }
    report(ctx);
  }
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

// May the search choose `key`? Not when the config (or a --set) fixes it, unless the layout is freed.
bool free_key(const Context& ctx, const std::string& key) { return ctx.request.vary_layout || !ctx.config.is_set(key); }

std::vector<Axis> make_axes(const Context& ctx, int32_t max_replicas) {
  std::vector<Axis> axes;
  Axis sched{"schedule", {{}}, {ctx.config.pipeline.schedule}, 0};
  if (free_key(ctx, "pipeline.schedule")) {
    sched = {"schedule", {}, {}, 0};
    for (const std::string& name : planner::schedule_names()) {
      sched.values.push_back({"pipeline.schedule=" + name});
      sched.labels.push_back(name);
    }
  }
  axes.push_back(std::move(sched));
  Axis rec{"recomputation", {{}}, {"as configured"}, 0};
  if (free_key(ctx, "ipu.allow_recompute") && free_key(ctx, "pipeline.recomputation_mode")) {
    rec = {"recomputation", {{"ipu.allow_recompute=false"}}, {"off"}, 2};
    for (const char* mode : {"recompute_then_backpropagate", "recompute_and_backpropagate_interleaved"}) {
      rec.values.push_back({"ipu.allow_recompute=true", fmt::format("pipeline.recomputation_mode={}", mode)});
      rec.labels.emplace_back(mode);
    }
  }
  axes.push_back(std::move(rec));
  Axis amp{"availableMemoryProportion", {{}}, {"as configured"}, 0};
  const OptionMap& mm = ctx.config.ipu.matmuls.poplar_options;
  if (ctx.request.vary_layout || mm.count("availableMemoryProportion") == 0) {
    amp = {"availableMemoryProportion", {}, {}, 0};
    for (const char* v : {"0.1", "0.2", "0.3", "0.45", "0.6"}) {
      amp.values.push_back(
          {"ipu.matmuls.poplar_options=" + option_table(mm, v),
           "ipu.convolutions.poplar_options=" + option_table(ctx.config.ipu.convolutions.poplar_options, v)});
      amp.labels.emplace_back(v);
    }
  }
  axes.push_back(std::move(amp));
  Axis offload{"optimizer state off-chip", {{}}, {"as configured"}, 0};
  if (free_key(ctx, "pipeline.offload_weight_update_variables")) {
    offload = {"optimizer state off-chip",
               {{"pipeline.offload_weight_update_variables=true"}, {"pipeline.offload_weight_update_variables=false"}},
               {"yes", "no"},
               0};
  }
  axes.push_back(std::move(offload));
  Axis rts{"sharded optimizer state", {{}}, {"as configured"}, 0};
  if (max_replicas > 1 && free_key(ctx, "pipeline.replicated_optimizer_state_sharding")) {
    rts = {
        "sharded optimizer state",
        {{"pipeline.replicated_optimizer_state_sharding=true"}, {"pipeline.replicated_optimizer_state_sharding=false"}},
        {"yes", "no"},
        0};
  }
  axes.push_back(std::move(rts));
  return axes;
}

Point frugal_point(const Context& ctx, size_t layout, size_t micro) {
  Point p{layout, micro, {}};
  for (const Axis& axis : ctx.space.axes) {
    p.knobs.push_back(axis.frugal);
  }
  return p;
}

// The most frugal recomputation mode the point's schedule accepts: the interleaved schedule takes
// only recompute-then-backpropagate.
Point with_frugal_recomputation(const Context& ctx, Point p) {
  const Axis& axis = ctx.space.axes[1];
  if (axis.values.size() > 2 && ctx.space.axes[0].labels[p.knobs[0]] == "interleaved") {
    p.knobs[1] = 1;
  }
  return p;
}

// Per layout, the largest micro-batch that fits under the most frugal knobs (bisection, all
// layouts in step); a layout whose smallest micro-batch does not fit is dropped.
std::vector<Point> seeds(Context& ctx) {
  const size_t layouts = ctx.space.layouts.size();
  std::vector<std::vector<size_t>> valid(layouts);
  // The frugal point's schedule is the first that holds the global batch with the most micro-batches
  // (grouped with many stages on one IPU may hold none).
  std::vector<size_t> sched(layouts, 0);
  for (size_t l = 0; l < layouts; ++l) {
    for (size_t v = 0; v < ctx.space.axes[0].values.size(); ++v) {
      std::vector<size_t> ok;
      for (size_t m = 0; m < ctx.space.micro.size(); ++m) {
        Point p = frugal_point(ctx, l, m);
        p.knobs[0] = v;
        p = with_frugal_recomputation(ctx, p);
        ok.resize(ok.size() + (sets_of(ctx, p) ? 1 : 0), m);
      }
      if (ok.size() > valid[l].size()) {
        valid[l] = ok;
        sched[l] = v;
      }
    }
  }
  const auto frugal = [&](size_t l, size_t m) {
    Point p = frugal_point(ctx, l, m);
    p.knobs[0] = sched[l];
    return with_frugal_recomputation(ctx, p);
  };
  // lo: index into valid[l] known to fit (or -1), hi: known not to (or size).
  std::vector<int64_t> lo(layouts, -1);
  std::vector<int64_t> hi(layouts);
  for (size_t l = 0; l < layouts; ++l) {
    hi[l] = static_cast<int64_t>(valid[l].size());
  }
  for (bool more = true; more && !ctx.no_time_for_a_plan();) {
    more = false;
    std::vector<Point> probe;
    std::vector<int64_t> mid(layouts, -1);
    for (size_t l = 0; l < layouts; ++l) {
      if (hi[l] - lo[l] > 1) {
        // The first probe is the smallest micro-batch: the layout's memory lower bound.
        mid[l] = lo[l] < 0 ? 0 : (lo[l] + hi[l]) / 2;
        probe.push_back(frugal(l, valid[l][static_cast<size_t>(mid[l])]));
        more = true;
      }
    }
    plan_points(ctx, probe);
    for (size_t l = 0; l < layouts; ++l) {
      if (mid[l] < 0) {
        continue;
      }
      const auto it = ctx.seen.find(frugal(l, valid[l][static_cast<size_t>(mid[l])]));
      const bool fits = it != ctx.seen.end() && it->second.fits;
      (fits ? lo[l] : hi[l]) = mid[l];
      if (!fits && mid[l] == 0) {
        lo[l] = hi[l] = 0;  // nothing of this layout fits
      }
    }
  }
  std::vector<Point> out;
  for (size_t l = 0; l < layouts; ++l) {
    if (lo[l] >= 0 && hi[l] > 0) {
      out.push_back(frugal(l, valid[l][static_cast<size_t>(lo[l])]));
    }
  }
  return out;
}

// Every point one knob away from `p`, and those with the micro-batch one step either way too
// (a knob that costs memory often needs a smaller micro-batch to fit).
std::vector<Point> neighbours(const Context& ctx, const Point& p) {
  std::vector<Point> out;
  for (int64_t dm : {-1, 0, 1}) {
    const int64_t m = static_cast<int64_t>(p.micro) + dm;
    if (m < 0 || m >= static_cast<int64_t>(ctx.space.micro.size())) {
      continue;
    }
    Point q = p;
    q.micro = static_cast<size_t>(m);
    out.push_back(q);
    for (size_t k = 0; k < ctx.space.axes.size(); ++k) {
      for (size_t v = 0; v < ctx.space.axes[k].values.size(); ++v) {
        Point r = q;
        r.knobs[k] = v;
        out.push_back(r);
        // The rules tie recomputation modes to schedules: a schedule moves with each of them.
        for (size_t w = 0; k == 0 && w < ctx.space.axes[1].values.size(); ++w) {
          r.knobs[1] = w;
          out.push_back(r);
        }
      }
    }
  }
  return out;
}

// The next combination of knob values, the last knob fastest; false after the last one.
bool next_knobs(const Context& ctx, std::vector<size_t>& knobs) {
  for (size_t k = knobs.size(); k-- > 0;) {
    if (++knobs[k] < ctx.space.axes[k].values.size()) {
      return true;
    }
    knobs[k] = 0;
  }
  return false;
}

std::vector<Point> all_points(const Context& ctx) {
  std::vector<Point> out;
  for (size_t l = 0; l < ctx.space.layouts.size(); ++l) {
    for (size_t m = 0; m < ctx.space.micro.size(); ++m) {
      Point p{l, m, std::vector<size_t>(ctx.space.axes.size(), 0)};
      do {
        out.push_back(p);
      } while (next_knobs(ctx, p.knobs));
    }
  }
  return out;
}

// Coordinate search: from the best seeds, plan every neighbour of the best few plans and move to
// the best, until a round finds nothing better or the time runs out.
void coordinate_search(Context& ctx) {
  constexpr size_t kBeam = 2;
  std::vector<Point> beam;
  for (std::vector<Point> seeds_left = seeds(ctx); !ctx.no_time_for_a_plan();) {
    std::vector<Point> next;
    for (const auto* entry : ranking(ctx)) {
      if (next.size() < kBeam && entry->first.layout != kInputLayout) {
        next.push_back(entry->first);
      }
    }
    if (next == beam && seeds_left.empty()) {
      return;
    }
    beam = next;
    std::vector<Point> todo;
    for (const Point& p : beam) {
      const std::vector<Point> n = neighbours(ctx, p);
      todo.insert(todo.end(), n.begin(), n.end());
    }
    seeds_left.clear();
    plan_points(ctx, todo);
  }
}

tuning::ModelFacts model_facts(const Context& ctx, const Model& model) {
  tuning::ModelFacts facts;
  facts.stages = model.stages();
  const auto params = model.compile_time_params();
  if (const auto it = params.find("layers"); it != params.end() && std::holds_alternative<int64_t>(it->second)) {
    facts.layers = std::get<int64_t>(it->second);
  }
  for (size_t k = 0; params.count(fmt::format("ipu{}_layers", k)) > 0; ++k) {
    facts.size_params.push_back(fmt::format("ipu{}_layers", k));
  }
  facts.layout_fixed =
      !ctx.request.vary_layout && (ctx.config.is_set("pipeline.device_mapping") ||
                                   ctx.config.is_set("pipeline.auto_stages") || ctx.config.is_set("pipeline.stages"));
  for (const std::string& p : facts.size_params) {
    facts.layout_fixed = facts.layout_fixed || (!ctx.request.vary_layout && ctx.config.model.count(p) > 0);
  }
  return facts;
}

std::vector<int64_t> micro_values(const Context& ctx, int64_t global_batch) {
  if (!free_key(ctx, "data.batch_size") && ctx.config.data.batch_size > 0) {
    return {ctx.config.data.batch_size};
  }
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= std::min<int64_t>(global_batch, 256); ++d) {
    if (global_batch % d == 0 || ctx.space.tolerance > 0) {
      out.push_back(d);
    }
  }
  return out;
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

// The whole config of a plan as TOML, its changes and figures in a comment on top.
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
  return out + "\n" + config::show(config);
}

void mark_pareto(std::vector<TunedPlan>& plans) {
  for (TunedPlan& r : plans) {
    r.pareto = std::none_of(plans.begin(), plans.end(), [&](const TunedPlan& s) {
      return s.samples_per_second >= r.samples_per_second && s.peak_bytes <= r.peak_bytes &&
             (s.samples_per_second > r.samples_per_second || s.peak_bytes < r.peak_bytes);
    });
  }
}

int64_t space_size(const Context& ctx, std::vector<Point>* holding) {
  int64_t size = 0;
  for (const Point& p : all_points(ctx)) {
    if (sets_of(ctx, p)) {
      size += 1;
      if (holding != nullptr) {
        holding->push_back(p);
      }
    }
  }
  return size;
}

TuneResult finish(Context& ctx, TuneResult& result, const Figures& input) {
  std::vector<Point> every;
  result.space = space_size(ctx, &every);
  const bool input_held =
      input.fits &&
      std::abs(static_cast<double>(input.micro_batch * input.accumulation * input.replicas - ctx.space.global_batch)) <=
          ctx.space.tolerance * static_cast<double>(ctx.space.global_batch);
  if (result.space == 0 && !input_held) {
    throw Error(
        ErrorKind::Usage,
        fmt::format("no layout of {} on {} IPUs holds a global batch of {}{}", ctx.request.model_path,
                    ctx.space.layouts.empty() ? 0 : ctx.space.layouts.front().ipus * ctx.space.layouts.front().replicas,
                    ctx.space.global_batch,
                    ctx.space.tolerance > 0 ? fmt::format(" within {:g}%", 100 * ctx.space.tolerance) : ""),
        {},
        "the global batch must be micro-batch x accumulation x replicas, the accumulation a multiple of what "
        "the schedule needs: choose a global batch with more factors of 2, or allow --batch-tolerance");
  }
  result.exhaustive = result.space <= ctx.request.exhaustive_limit;
  if (input_held) {
    ctx.seen[Point{kInputLayout, 0, {}}] = input;
  }
  if (result.exhaustive) {
    plan_points(ctx, every);
  } else {
    coordinate_search(ctx);
  }
  result.timed_out = ctx.no_time_for_a_plan();
  result.exhaustive = result.exhaustive && !result.timed_out;
  result.planned = ctx.planned;
  result.pruned = ctx.pruned;
  for (const auto& [p, f] : ctx.seen) {
    result.failed += !f.fits && f.error != kNotCandidate ? 1 : 0;
  }
  const auto ranked = ranking(ctx);
  if (ranked.empty()) {
    throw Error(ErrorKind::Plan,
                fmt::format("no layout of the {} planned fits the IPUs{}", ctx.planned,
                            result.timed_out ? " before the time ran out" : ""),
                {}, "give more IPUs, a smaller global batch, or more time (--time)");
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
    if (result.ranked.size() < static_cast<size_t>(std::max(1, ctx.request.top))) {
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
  return result;
}

}  // namespace

TuneResult tune(const TuneRequest& request) {
  Context ctx{request, request.sets, config::load(request.config_path, request.sets), {}, {}};
  if (request.ipus > 0) {
    ctx.base_sets.push_back(fmt::format("ipu.auto_select_ipus={}", request.ipus));
  }
  const int64_t ipus = request.ipus > 0 ? request.ipus : config::num_ipus(ctx.config);
  TuneResult result;
  const Figures input = plan_with(ctx, {});
  result.input_fits = input.fits;
  int64_t global = request.global_batch;
  if (global <= 0) {
    if (!input.fits) {
      throw Error(ErrorKind::Usage,
                  fmt::format("the input config does not plan, so it gives no global batch to hold: {}",
                              input.error.substr(0, input.error.find('\n'))),
                  {}, "give the samples per weight update with --global-batch");
    }
    global = input.micro_batch * input.accumulation * input.replicas;
  }
  ctx.space.global_batch = result.global_batch = global;
  ctx.space.tolerance = request.batch_tolerance;
  ctx.space.fixed_accumulation = !free_key(ctx, "pipeline.gradient_accumulation_count");
  ctx.space.accumulation = ctx.config.pipeline.gradient_accumulation_count;
  const Model model = Model::load(request.model_path, ctx.config);
  const tuning::ModelFacts facts = model_facts(ctx, model);
  if (facts.layout_fixed) {
    const Figures f = plan_with(ctx, {"device.memory_per_tile=100000000"});
    if (!f.fits) {
      throw Error(ErrorKind::Config, "the config's own layout cannot be planned on these IPUs: " + f.error);
    }
    Layout own;
    own.ipus = f.ipus_per_replica;
    own.replicas = f.replicas;
    own.positions = static_cast<int32_t>(f.stage_cycles.size());
    own.shares_ipu = own.positions > own.ipus;
    own.label = "the config's layout";
    ctx.space.layouts = {own};
  } else {
    ctx.space.layouts = tuning::make_layouts(facts, ipus, [&](const Sets& s) { return plan_with(ctx, s); });
  }
  int32_t max_replicas = 1;
  for (const Layout& l : ctx.space.layouts) {
    max_replicas = std::max(max_replicas, l.replicas);
  }
  ctx.space.axes = make_axes(ctx, max_replicas);
  ctx.space.micro = micro_values(ctx, global);
  return finish(ctx, result, input);
}

}  // namespace iputrain
