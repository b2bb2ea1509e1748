// The search of `iputrain tune`, internal to api/tune*.cpp: what a candidate is (a layout of
// tune_space.hpp, a micro-batch and one value per knob axis), the search's state, and the steps
// tune() chains: the knob axes (tune_candidates.cpp), the planning and the search
// (tune_search.cpp), the ranking and the written configs (tune_ranking.cpp).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/tune_space.hpp"
#include "iputrain/config.hpp"
#include "iputrain/config_loader.hpp"
#include "iputrain/tune.hpp"
#include "planner/deadline.hpp"

namespace iputrain::api::tune {

//! The input config's own point: not in the space (its layout may be none of the search's), but
//! ranked with the candidates, so the search can only improve on it.
constexpr size_t kInputLayout = static_cast<size_t>(-1);
//! The error of a point that is no candidate (no accumulation holds the batch, or a rule refuses it).
extern const char* const kNotCandidate;
//! The one label of a knob axis the config fixes.
extern const char* const kAsConfigured;
//! The error of a point pruned unplanned by a memory bound (it starts as a memory failure does).
extern const char* const kPrunedByBound;

//! One axis of knobs: each value is the sets that express it (empty = the config's own).
struct Axis {
  std::string name;  //!< for the summary: "recomputation", "availableMemoryProportion", ...
  std::vector<Sets> values;
  std::vector<std::string> labels;
  size_t frugal = 0;  //!< the value that needs the least memory
};

//! The axes' order: tune_candidates.cpp builds them so, the rules read them by these indices.
enum AxisIndex : size_t {
  kSchedule,
  kRecomputation,
  kMemoryProportion,
  kAccumulationDtype,
  kAccumulationOrder,
  kOffloadState,
  kOffloadAccumulators,
  kShardState,
  kShardWeights,
  kBatchSerialization,
  kAxes
};

//! The knobs that only trade speed for memory in ways the first search rarely needs (the
//! accumulators' type, order and place, weight sharding, batch serialization): the seeds keep them
//! at their first value (the config's own where it has one), and only the second coordinate search
//! moves them, from the first one's best plans. Their plans are slow to make (weights gathered per
//! task), and the first search's neighbourhood stays the size it had without them.
inline bool secondary(size_t axis) {
  return axis == kAccumulationDtype || axis == kAccumulationOrder || axis == kOffloadAccumulators ||
         axis == kShardWeights || axis == kBatchSerialization;
}

//! A candidate: a layout, a micro-batch and one value per axis.
struct Point {
  size_t layout = 0;
  size_t micro = 0;
  std::vector<size_t> knobs;
  //! Per stage, 1 + the memory-proportion value of that stage, or 0 for the knob's; empty = every
  //! stage the knob's (tune_search.cpp's stage_memory_search fills it around the best plan).
  std::vector<size_t> stage_amp;
  bool operator<(const Point& o) const {
    return std::tie(layout, micro, knobs, stage_amp) < std::tie(o.layout, o.micro, o.knobs, o.stage_amp);
  }
  bool operator==(const Point& o) const = default;
};

//! The limits of the search: the [tune] section with the command's flags over it (tune_limits.cpp).
struct Limits {
  int64_t ipus = 0;
  int64_t global_batch = 0;
  double tolerance = 0;
  double time_seconds = 60;
  int64_t plans = 0;  //!< candidates planned at most; 0 = no limit
  int32_t top = 5;
  bool vary_layout = false;
  int64_t min_ipus_per_replica = 1, max_ipus_per_replica = INT64_MAX;
  int64_t min_stages = 1, max_stages = INT64_MAX;
  int64_t min_micro_batch = 1, max_micro_batch = 256;
  //! Per knob axis (AxisIndex), the values [tune] allows, as the config key's value text; empty =
  //! the search's defaults (tune_candidates.cpp).
  std::map<size_t, std::vector<std::string>> values;
};

struct Space {
  std::vector<Layout> layouts;
  std::vector<int64_t> micro;  //!< micro-batch values
  std::vector<Axis> axes;      //!< indexed by AxisIndex, then one per tunable key no knob sets
  int64_t global_batch = 0;
  double tolerance = 0;
  bool fixed_accumulation = false;
  int64_t accumulation = 0;  //!< when fixed
};

struct Context {
  Context(const TuneRequest& r, Config c, Limits l)
      : request(r),
        base_sets(r.sets),
        config(std::move(c)),
        settings(iputrain::config::resolve(config)),
        limits(std::move(l)) {}
  const TuneRequest& request;
  Sets base_sets;     //!< the request's sets and the IPU count
  Config config;      //!< the input config with the request's sets
  Settings settings;  //!< `config` resolved, for the choices the search keeps as they are
  Limits limits;
  Space space;
  std::map<Point, Figures> seen;
  int64_t pruned = 0;
  int64_t planned = 0;
  //! The budget's clock is the plan deadline's (planner/deadline.hpp): steady_clock, or a test's.
  std::chrono::steady_clock::time_point start = planner::plan_clock_now();
  //! The longest candidate plan so far, in seconds: a candidate is not started when it would likely
  //! end after the budget. Calibration plans have their own estimate (tune_search.cpp).
  mutable std::atomic<double> longest_plan{0};
  //! The longest of the input and calibration plans so far: those of another depth take as long.
  mutable std::atomic<double> longest_calibration{0};
  double elapsed() const { return std::chrono::duration<double>(planner::plan_clock_now() - start).count(); }
  std::chrono::steady_clock::time_point deadline() const {
    return start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       std::chrono::duration<double>(limits.time_seconds));
  }
  bool no_time_for_a_plan() const { return elapsed() + longest_plan.load() >= limits.time_seconds; }
  //! Candidates the plan budget still allows (INT64_MAX without one).
  int64_t plans_left() const { return limits.plans > 0 ? std::max<int64_t>(0, limits.plans - planned) : INT64_MAX; }
  //! No candidate may start: the time or the plan budget is spent.
  bool budget_spent() const { return no_time_for_a_plan() || plans_left() == 0; }
  bool no_time_for_a_calibration() const { return elapsed() + longest_calibration.load() >= limits.time_seconds; }
};

// tune_limits.cpp
//! The search's limits from the config's [tune] section and the request (its flags win). Throws a
//! located Config error for a [tune] range that cannot be met.
Limits read_limits(const Config& config, const TuneRequest& request);

// tune_candidates.cpp
//! May the search choose `key`? Not when the config (or a --set) fixes it, unless the layout is freed.
bool free_key(const Context& ctx, const std::string& key);
std::vector<Axis> make_axes(const Context& ctx, int32_t max_replicas);
//! The overrides of a candidate; nullopt when no accumulation holds the global batch or the rules
//! refuse the combination.
std::optional<Sets> sets_of(const Context& ctx, const Point& p);
//! Every knob at its most frugal value the point's schedule accepts, the secondary ones at their
//! first (or at their most frugal too: `all`).
Point frugal_point(const Context& ctx, size_t layout, size_t micro, size_t schedule, bool all = false);
//! Does `q` need no more memory than `p` on every IPU, by the memory model's structure? The same
//! layout, schedule and knobs but for memory knobs at least as frugal (tune_candidates.cpp), and a
//! micro-batch no larger where that cannot add accumulators. A `q` that does not fit bounds `p`:
//! the search prunes `p` unplanned.
bool needs_no_more_memory(const Context& ctx, const Point& q, const Point& p);

// tune_search.cpp
enum class PlanKind { Candidate, Calibration };
Figures plan_with(const Context& ctx, const Sets& extra, PlanKind kind = PlanKind::Candidate);
//! Plans the points not yet seen, in rounds of a fixed size, in parallel.
void plan_points(Context& ctx, std::vector<Point> points);
std::vector<Point> all_points(const Context& ctx);
void coordinate_search(Context& ctx);
//! The coordinate search again from the best plans, over the knobs the first one leaves alone.
void secondary_search(Context& ctx);
//! The first coordinate search again with what the budget leaves, past its top: where the best
//! plans' neighbours are all planned, from the next best (best first). It stops after four times as
//! many plans as the search had made without finding a better one, so that a search on a frozen
//! clock (or in a huge space) ends.
void onward_search(Context& ctx);
//! Per-stage availableMemoryProportion around the best plan: each stage alone at each value, then
//! the stages' best values together.
void stage_memory_search(Context& ctx);

// tune_ranking.cpp
//! The fitting points, best first.
std::vector<const std::pair<const Point, Figures>*> ranking(const Context& ctx);
std::string summary(const Context& ctx, const Point& p, const Figures& f);
//! The ranked plans, the Pareto front and the written configs into `result`.
void rank_into(const Context& ctx, TuneResult& result, const Figures& input);

}  // namespace iputrain::api::tune
