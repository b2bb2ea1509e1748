// The search of `iputrain tune`: every candidate planned by Plan::make in rounds of fixed size
// in parallel (oneTBB), merged in candidate order so that the result does not depend on the thread
// count; per layout the largest micro-batch that fits under the most frugal knobs (a layout whose
// smallest one does not fit is pruned whole: no knob makes it smaller); then either every
// candidate (small spaces) or a coordinate search from those seeds.
#include <fmt/format.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <iterator>
#include <limits>
#include <set>

#include "api/tune_search.hpp"
#include "iputrain/config_loader.hpp"
#include "iputrain/error.hpp"
#include "iputrain/model.hpp"
#include "iputrain/plan.hpp"

namespace iputrain::api::tune {

namespace {

constexpr size_t kRound = 8;  // candidates planned per round, whatever the thread count

Figures out_of_time_figures() {
  Figures f;
  f.error = "not planned: the time budget ran out";
  return f;
}

void report(const Context& ctx) {
  if (!ctx.request.progress) {
    return;
  }
  TuneProgress progress;
  progress.planned = ctx.planned;
  progress.pruned = ctx.pruned;
  progress.seconds = ctx.elapsed();
  progress.budget_seconds = ctx.limits.time_seconds;
  const auto ranked = ranking(ctx);
  if (!ranked.empty()) {
    progress.best_samples_per_second = ranked.front()->second.samples_per_second;
    progress.best = summary(ctx, ranked.front()->first, ranked.front()->second);
  }
  ctx.request.progress(progress);
}

bool memory_failure(const Figures& f) { return !f.fits && f.over_ipu >= 0; }

// A plan that fits: its throughput, fullest IPU, batch, layout and stage cycles.
void read_figures(const Plan& plan, Figures& f) {
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
}

// A plan that does not fit in memory (PlanRequest::keep_unfit): the IPU of a replica that misses
// by the most, its peak and its capacity.
void read_overflow(const Plan& plan, Figures& f) {
  f.fits = false;
  f.error = plan.unfit_reason();
  int64_t worst = std::numeric_limits<int64_t>::min();
  const std::vector<PlanMemory> memory = plan.memory();
  for (size_t i = 0; i < memory.size(); ++i) {
    if (memory[i].total_peak - memory[i].capacity > worst) {
      worst = memory[i].total_peak - memory[i].capacity;
      f.over_ipu = static_cast<int32_t>(i);
      f.peak = memory[i].total_peak;
      f.capacity = memory[i].capacity;
    }
  }
}

}  // namespace

Figures plan_with(const Context& ctx, const Sets& extra, PlanKind kind) {
  // A plan can take seconds: one that would likely end after the budget is not started. The input
  // and calibration plans (deeper pipelines, whole published layouts) estimate each other, the
  // candidates each other: one long calibration plan no longer ends a search of short candidates.
  if (kind == PlanKind::Candidate ? ctx.no_time_for_a_plan() : ctx.no_time_for_a_calibration()) {
    return out_of_time_figures();
  }
  const auto start = planner::plan_clock_now();
  Figures f;
  try {
    Sets sets = ctx.base_sets;
    sets.insert(sets.end(), extra.begin(), extra.end());
    const ResolvedConfig config(config::load(ctx.request.config_path, sets));  // once, for the model and the plan
    const Model model = Model::load(ctx.request.model_path, config);
    // Planning stops between passes at the budget: a long plan no longer carries the search past it.
    PlanRequest request;
    request.deadline = ctx.deadline();
    request.keep_unfit = true;
    const Plan plan = Plan::make(model, config, request);
    if (plan.fits()) {
      read_figures(plan, f);
    } else {
      read_overflow(plan, f);
    }
  } catch (const Error& e) {
    if (e.diagnostic().message == kPlanAbandoned) {
      return out_of_time_figures();
    }
    f.fits = false;
    f.error = e.diagnostic().message;
  }
  f.seconds = std::chrono::duration<double>(planner::plan_clock_now() - start).count();
  std::atomic<double>& longest = kind == PlanKind::Calibration ? ctx.longest_calibration : ctx.longest_plan;
  for (double seen = longest.load(); f.seconds > seen && !longest.compare_exchange_weak(seen, f.seconds);) {
  }
  return f;
}

// Plans the points not yet seen, in rounds; a point that needs no less memory than one that did
// not fit (needs_no_more_memory) is pruned unplanned: that one's peak is its lower bound.
void plan_points(Context& ctx, std::vector<Point> points) {
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  std::vector<Point> todo;
  for (const Point& p : points) {
    if (ctx.seen.count(p) == 0) {
      todo.push_back(p);
    }
  }
  // Per layout and micro-batch, the points with the fewest memory knobs off their most frugal
  // value first: one of them that does not fit prunes the others before they are planned.
  const auto spent = [&](const Point& p) {
    int32_t n = 0;
    for (size_t k : {kMemoryProportion, kOffloadState, kOffloadAccumulators, kShardState}) {
      n += p.knobs.size() > k && p.knobs[k] != ctx.space.axes[k].frugal ? 1 : 0;
    }
    return n;
  };
  std::stable_sort(todo.begin(), todo.end(), [&](const Point& a, const Point& b) {
    return std::tie(a.layout, a.micro) < std::tie(b.layout, b.micro) ||
           (std::tie(a.layout, a.micro) == std::tie(b.layout, b.micro) && spent(a) < spent(b));
  });
  for (size_t begin = 0; begin < todo.size() && !ctx.budget_spent(); begin += kRound) {
    std::vector<Point> round;
    std::vector<Sets> sets;
    // A round is cut to the plans the budget has left: the search stops at the same candidate on any
    // machine (the rounds after it see the budget spent).
    const auto room = static_cast<size_t>(std::min<int64_t>(kRound, ctx.plans_left()));
    for (size_t k = begin; k < std::min(todo.size(), begin + kRound) && round.size() < room; ++k) {
      const bool bounded = std::any_of(ctx.seen.begin(), ctx.seen.end(), [&](const auto& e) {
        return memory_failure(e.second) && needs_no_more_memory(ctx, e.first, todo[k]);
      });
      std::optional<Sets> s = sets_of(ctx, todo[k]);
      if (bounded || !s) {
        Figures f;
        f.error = bounded ? kPrunedByBound : kNotCandidate;
        ctx.seen[todo[k]] = f;
        ctx.pruned += bounded ? 1 : 0;  // a point the rules refuse is no candidate: not in the space
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

namespace {

// Per layout and schedule, the largest micro-batch that fits under the most frugal knobs (bisection,
// all of them in step); a layout whose smallest micro-batch does not fit is dropped. Each schedule
// has a seed of its own: they hold different numbers of micro-batches in flight, so the largest
// micro-batch of one (sequential on a pipeline) can be far from what another needs (grouped).
void seeds(Context& ctx) {
  struct Seed {
    size_t layout, schedule;
    std::vector<size_t> valid;  // the micro-batches (indices) that hold the global batch
    bool all = false;           // every knob frugal, not only the first search's
    bool from_middle = false;   // bisect from the middle, not from the smallest micro-batch
    int64_t lo = -1, hi = 0;    // indices into valid: lo known to fit (or -1), hi known not to (or size)
  };
  std::vector<Seed> units;
  for (size_t l = 0; l < ctx.space.layouts.size(); ++l) {
    std::vector<Seed> own;
    for (size_t v = 0; v < ctx.space.axes[kSchedule].values.size(); ++v) {
      Seed unit{l, v, {}};
      for (size_t m = 0; m < ctx.space.micro.size(); ++m) {
        unit.valid.resize(unit.valid.size() + (sets_of(ctx, frugal_point(ctx, l, m, v)) ? 1 : 0), m);
      }
      unit.hi = static_cast<int64_t>(unit.valid.size());
      if (!unit.valid.empty()) {
        own.push_back(std::move(unit));
      }
    }
    // The layout's first seed is the schedule that holds the global batch with the most
    // micro-batches; on one IPU per replica, where the schedules differ little, it is the only one.
    // The others bisect from the middle: their smallest micro-batches mean the largest
    // accumulations, whose pipelined timelines are the slowest plans to make (seconds each on
    // BERT-Base), and the first seed already tells whether the layout fits at all.
    std::stable_sort(own.begin(), own.end(),
                     [](const Seed& a, const Seed& b) { return a.valid.size() > b.valid.size(); });
    own.resize(ctx.space.layouts[l].ipus == 1 ? std::min<size_t>(1, own.size()) : own.size());
    for (size_t k = 1; k < own.size(); ++k) {
      own[k].from_middle = true;
    }
    std::move(own.begin(), own.end(), std::back_inserter(units));
  }
  const auto frugal = [&](const Seed& u, size_t m) { return frugal_point(ctx, u.layout, m, u.schedule, u.all); };
  for (bool more = true; more && !ctx.budget_spent();) {
    more = false;
    std::vector<Point> probe;
    std::vector<int64_t> mid(units.size(), -1);
    for (size_t k = 0; k < units.size(); ++k) {
      Seed& u = units[k];
      if (u.hi - u.lo > 1) {
        // The first seed's first probe is the smallest micro-batch: the layout's smallest plan.
        mid[k] = u.lo < 0 && !u.from_middle ? 0 : u.lo + (u.hi - u.lo) / 2;
        probe.push_back(frugal(u, u.valid[static_cast<size_t>(mid[k])]));
        more = true;
      }
    }
    plan_points(ctx, probe);
    for (size_t k = 0; k < units.size(); ++k) {
      Seed& u = units[k];
      if (mid[k] < 0) {
        continue;
      }
      const auto it = ctx.seen.find(frugal(u, u.valid[static_cast<size_t>(mid[k])]));
      const bool fits = it != ctx.seen.end() && it->second.fits;
      (fits ? u.lo : u.hi) = mid[k];
      // A smallest micro-batch that does not fit under the frugal first-search knobs gets one more
      // probe with every knob frugal (weights sharded, accumulators off-chip, ...): it may fit so.
      if (!fits && mid[k] == 0 && !u.all &&
          frugal_point(ctx, u.layout, u.valid[0], u.schedule, true) != frugal(u, u.valid[0])) {
        u.all = true;
        u.hi = static_cast<int64_t>(u.valid.size());
      } else if (!fits && mid[k] == 0) {
        u.lo = u.hi = 0;  // nothing of this layout and schedule fits
      }
    }
  }
}

// Every point one knob away from `p`, and those with the micro-batch one step either way too
// (a knob that costs memory often needs a smaller micro-batch to fit).
std::vector<Point> neighbours(const Context& ctx, const Point& p, bool second) {
  std::vector<Point> out;
  for (int64_t dm : {1, 0, -1}) {  // a larger micro-batch first: it is the likeliest gain
    const int64_t m = static_cast<int64_t>(p.micro) + dm;
    if (m < 0 || m >= static_cast<int64_t>(ctx.space.micro.size())) {
      continue;
    }
    Point q = p;
    q.micro = static_cast<size_t>(m);
    out.push_back(q);
    for (size_t k = 0; k < ctx.space.axes.size(); ++k) {
      for (size_t v = 0; v < ctx.space.axes[k].values.size() && secondary(k) == second; ++v) {
        Point r = q;
        r.knobs[k] = v;
        out.push_back(r);
        // The rules tie recomputation modes to schedules: a schedule moves with each of them.
        for (size_t w = 0; k == kSchedule && w < ctx.space.axes[kRecomputation].values.size(); ++w) {
          r.knobs[kRecomputation] = w;
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

}  // namespace

std::vector<Point> all_points(const Context& ctx) {
  std::vector<Point> out;
  for (size_t l = 0; l < ctx.space.layouts.size(); ++l) {
    for (size_t m = 0; m < ctx.space.micro.size(); ++m) {
      Point p{l, m, std::vector<size_t>(ctx.space.axes.size(), 0), {}};
      do {
        out.push_back(p);
      } while (next_knobs(ctx, p.knobs));
    }
  }
  return out;
}

namespace {

// Coordinate search with first improvement: from the best plans so far, the neighbours of the best few plans
// are planned round by round (a beam of kBeam layouts), and the first round that finds a better plan moves the beam to
// it. A search the budget ends has so made as many moves as it could (a full sweep of a large model's neighbours can
// take longer than the budget); it ends when every neighbour of the beam is planned.
constexpr size_t kBeam = 2;

void coordinate_search(Context& ctx, bool second, bool onward, int64_t patience = INT64_MAX) {
  const auto best_speed = [&] {
    const auto ranked = ranking(ctx);
    return ranked.empty() ? 0.0 : ranked.front()->second.samples_per_second;
  };
  int64_t improved_at = ctx.planned;  // plans made when the best plan last improved
  while (!ctx.budget_spent() && ctx.planned - improved_at < patience) {
    // The beam: the best plans of at most kBeam layouts (a layout's first plans have the most frugal
    // knobs, so a deeper pipeline that ends up the fastest can start behind a single IPU's). Past
    // the top (`onward`), a plan whose neighbours are all planned gives way to the next best.
    std::vector<std::vector<Point>> around;
    std::set<size_t> layouts;
    for (const auto* entry : ranking(ctx)) {
      if (around.size() == kBeam || (!onward && layouts.size() == kBeam)) {
        break;
      }
      // The per-stage memory variants around the best plan are no candidates to move from.
      if (entry->first.layout == kInputLayout || !entry->first.stage_amp.empty() ||
          layouts.count(entry->first.layout) > 0) {
        continue;
      }
      std::vector<Point> fresh;
      for (const Point& q : neighbours(ctx, entry->first, second)) {
        if (ctx.seen.count(q) == 0) {
          fresh.push_back(q);
        }
      }
      if (!fresh.empty() || !onward) {
        layouts.insert(entry->first.layout);
        around.push_back(std::move(fresh));
      }
    }
    // Their neighbours in turn, so that each beam plan is explored as far as the others.
    std::vector<Point> todo;
    std::set<Point> queued;
    for (size_t k = 0; std::any_of(around.begin(), around.end(), [&](const auto& a) { return k < a.size(); }); ++k) {
      for (const std::vector<Point>& a : around) {
        if (k < a.size() && queued.insert(a[k]).second) {
          todo.push_back(a[k]);
        }
      }
    }
    if (todo.empty()) {
      return;
    }
    const double before = best_speed();
    for (size_t begin = 0; begin < todo.size() && !ctx.budget_spent(); begin += kRound) {
      const auto end = todo.begin() + static_cast<std::ptrdiff_t>(std::min(todo.size(), begin + kRound));
      plan_points(ctx, std::vector<Point>(todo.begin() + static_cast<std::ptrdiff_t>(begin), end));
      if (best_speed() > before) {
        improved_at = ctx.planned;
        break;
      }
    }
  }
}

}  // namespace

void coordinate_search(Context& ctx) {
  seeds(ctx);
  coordinate_search(ctx, false, false);
}

void secondary_search(Context& ctx) { coordinate_search(ctx, true, false); }

void onward_search(Context& ctx) { coordinate_search(ctx, false, true, 4 * ctx.planned); }

void stage_memory_search(Context& ctx) {
  const Axis& amp = ctx.space.axes[kMemoryProportion];
  const bool fixed = !ctx.limits.vary_layout && !ctx.limits.values.contains(kMemoryProportion) &&
                     (ctx.config.is_set("pipeline.forward_propagation_stages_poplar_options") ||
                      ctx.config.is_set("pipeline.backward_propagation_stages_poplar_options"));
  const auto ranked = ranking(ctx);
  const auto best = std::find_if(ranked.begin(), ranked.end(), [](const auto* e) {
    return e->first.layout != kInputLayout && e->first.stage_amp.empty();
  });
  if (fixed || amp.values.size() < 2 || best == ranked.end() || (*best)->second.stage_cycles.size() < 2) {
    return;
  }
  const Point base = (*best)->first;
  const Figures base_figures = (*best)->second;
  const size_t stages = base_figures.stage_cycles.size();
  std::vector<Point> alone;
  std::vector<size_t> stage_of;
  for (size_t s = 0; s < stages; ++s) {
    for (size_t v = 0; v < amp.values.size(); ++v) {
      if (v == base.knobs[kMemoryProportion]) {
        continue;  // the plan itself
      }
      Point q = base;
      q.stage_amp.assign(stages, 0);
      q.stage_amp[s] = v + 1;
      alone.push_back(q);
      stage_of.push_back(s);
    }
  }
  plan_points(ctx, alone);
  // Per stage, the value that did best alone when it beat the plan: together they may beat each alone.
  Point together = base;
  together.stage_amp.assign(stages, 0);
  std::vector<double> best_alone(stages, base_figures.samples_per_second);
  for (size_t k = 0; k < alone.size(); ++k) {
    const size_t s = stage_of[k];
    const auto it = ctx.seen.find(alone[k]);
    if (it != ctx.seen.end() && it->second.fits && it->second.samples_per_second > best_alone[s]) {
      best_alone[s] = it->second.samples_per_second;
      together.stage_amp[s] = alone[k].stage_amp[s];
    }
  }
  if (std::count_if(together.stage_amp.begin(), together.stage_amp.end(), [](size_t a) { return a != 0; }) > 1) {
    plan_points(ctx, {together});
  }
}

}  // namespace iputrain::api::tune
