// `iputrain tune`: the planner proposes the fastest layout that fits. The whole pipeline is tune()
// below: the limits ([tune] and the flags, tune_limits.cpp), the input plan, the layouts
// (tune_space.cpp), the knob axes (tune_candidates.cpp), the search (tune_search.cpp) and the
// ranking (tune_ranking.cpp). Every candidate is a list of `key=value` overrides planned by
// Plan::make, so its figures are the planner's own.
#include "iputrain/tune.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "api/tune_search.hpp"
#include "frontend/model_access.hpp"
#include "iputrain/config_loader.hpp"
#include "iputrain/error.hpp"
#include "iputrain/model.hpp"
#include "iputrain/plan.hpp"
#include "planner/recurrent_states.hpp"

namespace iputrain {

namespace {

using api::tune::Context;
using api::tune::Figures;
using api::tune::Layout;
using api::tune::Point;

api::tune::ModelFacts model_facts(const Context& ctx, const Model& model) {
  api::tune::ModelFacts facts;
  facts.stages = model.stages();
  // [tune] ranges of the layout free it, as --vary-layout does.
  const bool vary =
      ctx.limits.vary_layout || ctx.config.is_set("tune.ipus_per_replica") || ctx.config.is_set("tune.stages");
  facts.layout_fixed =
      !vary && (ctx.config.is_set("pipeline.device_mapping") || ctx.config.is_set("pipeline.auto_stages") ||
                ctx.config.is_set("pipeline.auto_stage_blocks") || ctx.config.is_set("pipeline.stages"));
  if (facts.layout_fixed) {
    return facts;  // only the config's own layout is searched: no need to know what sizes the stages
  }
  facts.sizes = api::tune::find_stage_sizes(ctx.request.model_path, ctx.config);
  for (const std::string& p : facts.sizes.params) {
    facts.layout_fixed = facts.layout_fixed || (!vary && ctx.config.model.count(p) > 0);
  }
  facts.min_depth = ctx.limits.min_ipus_per_replica;
  facts.max_depth = ctx.limits.max_ipus_per_replica;
  return facts;
}

std::vector<int64_t> micro_values(const Context& ctx, int64_t global_batch) {
  if (!ctx.config.is_set("tune.micro_batch") && !api::tune::free_key(ctx, "data.batch_size") &&
      ctx.config.plain.data_batch_size > 0) {
    return {ctx.config.plain.data_batch_size};
  }
  std::vector<int64_t> out;
  for (int64_t d = ctx.limits.min_micro_batch; d <= std::min(global_batch, ctx.limits.max_micro_batch); ++d) {
    if (global_batch % d == 0 || ctx.space.tolerance > 0) {
      out.push_back(d);
    }
  }
  return out;
}

// The layouts of the search: the config's own when it fixes them, else every depth's, within the
// [tune] ranges.
std::vector<Layout> layouts(Context& ctx, const Model& model, int64_t ipus) {
  const api::tune::ModelFacts facts = model_facts(ctx, model);
  if (facts.layout_fixed) {
    const Figures f = api::tune::plan_with(ctx, {"device.memory_per_tile=100000000"}, api::tune::PlanKind::Calibration);
    if (!f.fits) {
      throw Error(ErrorKind::Config, "the config's own layout cannot be planned on these IPUs: " + f.error);
    }
    Layout own;
    own.ipus = f.ipus_per_replica;
    own.replicas = f.replicas;
    own.positions = static_cast<int32_t>(f.stage_cycles.size());
    own.shares_ipu = own.positions > own.ipus;
    own.label = "the config's layout";
    return {own};
  }
  std::vector<Layout> out = api::tune::make_layouts(facts, ipus, [&](const api::tune::Sets& s) {
    return api::tune::plan_with(ctx, s, api::tune::PlanKind::Calibration);
  });
  const std::vector<Layout> all = out;
  std::erase_if(
      out, [&](const Layout& l) { return l.positions < ctx.limits.min_stages || l.positions > ctx.limits.max_stages; });
  if (out.empty() && ctx.config.is_set("tune.stages")) {
    std::set<int32_t> counts;
    for (const Layout& l : all) {
      counts.insert(l.positions);
    }
    ctx.config.fail_at("tune.stages",
                       fmt::format("no layout of {} on {} IPUs has {} to {} stages", ctx.request.model_path, ipus,
                                   ctx.limits.min_stages, ctx.limits.max_stages),
                       fmt::format("the layouts searched have {} stages: widen the range", fmt::join(counts, " or ")));
  }
  return out;
}

int64_t space_size(const Context& ctx, std::vector<Point>* holding) {
  int64_t size = 0;
  for (const Point& p : api::tune::all_points(ctx)) {
    if (api::tune::sets_of(ctx, p)) {
      size += 1;
      if (holding != nullptr) {
        holding->push_back(p);
      }
    }
  }
  return size;
}

// No candidate holds the global batch: located at the [tune] key that made it so, when one did.
[[noreturn]] void no_layout_holds(const Context& ctx) {
  const auto& l = ctx.space.layouts;
  const std::string message =
      fmt::format("no layout of {} on {} IPUs holds a global batch of {}{}", ctx.request.model_path,
                  l.empty() ? 0 : l.front().ipus * l.front().replicas, ctx.space.global_batch,
                  ctx.space.tolerance > 0 ? fmt::format(" within {:g}%", 100 * ctx.space.tolerance) : "");
  const std::string hint =
      "the global batch must be micro-batch x accumulation x replicas, the accumulation a multiple of what the "
      "schedule needs: choose a global batch with more factors of 2, or allow --batch-tolerance ([tune] "
      "batch_tolerance)";
  for (const char* key : {"tune.global_batch", "tune.micro_batch", "tune.schedule", "tune.batch_tolerance"}) {
    const bool flag = std::string(key) == "tune.global_batch" && ctx.request.global_batch > 0;
    if (ctx.config.is_set(key) && !flag) {
      ctx.config.fail_at(key, message, hint, ErrorKind::Usage);
    }
  }
  throw Error(ErrorKind::Usage, message, {}, hint);
}

void search(Context& ctx, TuneResult& result, const Figures& input) {
  std::vector<Point> every;
  result.space = space_size(ctx, &every);
  const bool input_held =
      input.fits &&
      std::abs(static_cast<double>(input.micro_batch * input.accumulation * input.replicas - ctx.space.global_batch)) <=
          ctx.space.tolerance * static_cast<double>(ctx.space.global_batch);
  if (result.space == 0 && !input_held) {
    no_layout_holds(ctx);
  }
  result.exhaustive = result.space <= ctx.request.exhaustive_limit;
  if (input_held) {
    ctx.seen[Point{api::tune::kInputLayout, 0, {}, {}}] = input;
  }
  if (result.exhaustive) {
    api::tune::plan_points(ctx, every);
  } else {
    api::tune::coordinate_search(ctx);
    api::tune::secondary_search(ctx);
  }
  api::tune::stage_memory_search(ctx);
  if (!result.exhaustive) {
    api::tune::onward_search(ctx);
  }
  result.timed_out = ctx.no_time_for_a_plan();
  result.plans_spent = ctx.plans_left() == 0;
  result.exhaustive = result.exhaustive && !result.timed_out && !result.plans_spent;
  result.planned = ctx.planned;
  result.pruned = ctx.pruned;
  // Each candidate counted once: planned (placed or not), pruned, or not tried; the per-stage
  // memory variants around the best are plans outside the space.
  int64_t planned_in_space = 0;
  for (const auto& [p, f] : ctx.seen) {
    const bool planned = f.error != api::tune::kNotCandidate && f.error != api::tune::kPrunedByBound &&
                         p.layout != api::tune::kInputLayout;
    result.failed += planned && !f.fits ? 1 : 0;
    planned_in_space += planned && p.stage_amp.empty() ? 1 : 0;
  }
  result.variants = ctx.planned - planned_in_space;
  result.untried = std::max<int64_t>(0, result.space - planned_in_space - result.pruned);
  for (size_t k = 0; k < every.size() && ctx.request.keep_candidates; ++k) {
    TunedCandidate c;
    c.sets = *api::tune::sets_of(ctx, every[k]);
    if (const auto it = ctx.seen.find(every[k]); it != ctx.seen.end()) {
      c.pruned = it->second.error.rfind(api::tune::kPrunedByBound, 0) == 0;
      c.planned = !c.pruned;
      c.fits = it->second.fits;
      c.peak_bytes = it->second.peak;
    }
    for (const auto& [q, f] : ctx.seen) {
      if (f.fits && q != every[k] && api::tune::needs_no_more_memory(ctx, q, every[k])) {
        c.bound_bytes = std::max(c.bound_bytes, f.peak);
      }
    }
    result.candidates.push_back(std::move(c));
  }
}

// The input config's global batch on its own IPUs, when the search took it from the input planned on
// others (--ipus without --global-batch): the report names both, as the change is the user's to see.
void own_global_batch(const Context& ctx, const Config& config, int64_t ipus, int64_t global, TuneResult& result) {
  const int64_t own = config::num_ipus(config);
  if (own == ipus) {
    return;
  }
  try {
    const ResolvedConfig run(config);
    const Plan plan = Plan::make(Model::load(ctx.request.model_path, run), run);
    const int64_t g = plan.micro_batch() * plan.accumulation_count() * plan.replicas();
    if (g != global) {
      result.own_ipus = own;
      result.own_global_batch = g;
    }
  } catch (const Error&) {
    // The input does not plan on its own IPUs: there is no global batch of its own to name.
  }
}

}  // namespace

TuneResult tune(const TuneRequest& request) {
  const Config config = config::load(request.config_path, request.sets);
  Context ctx(request, config, api::tune::read_limits(config, request));
  if (ctx.limits.ipus > 0) {
    ctx.base_sets.push_back(fmt::format("ipu.auto_select_ipus={}", ctx.limits.ipus));
  }
  const int64_t ipus = ctx.limits.ipus > 0 ? ctx.limits.ipus : config::num_ipus(ctx.config);
  TuneResult result;
  // The input config: ranked with the candidates, and the global batch when none is given.
  const Figures input = api::tune::plan_with(ctx, {}, api::tune::PlanKind::Calibration);
  result.input_fits = input.fits;
  int64_t global = ctx.limits.global_batch;
  if (global <= 0) {
    if (!input.fits) {
      throw Error(ErrorKind::Usage,
                  fmt::format("the input config does not plan, so it gives no global batch to hold: {}",
                              input.error.substr(0, input.error.find('\n'))),
                  {}, "give the samples per weight update with --global-batch or [tune] global_batch");
    }
    global = input.micro_batch * input.accumulation * input.replicas;
    own_global_batch(ctx, config, ipus, global, result);
  }
  ctx.space.global_batch = result.global_batch = global;
  ctx.space.tolerance = ctx.limits.tolerance;
  ctx.space.fixed_accumulation = !api::tune::free_key(ctx, "pipeline.gradient_accumulation_count");
  ctx.space.accumulation = ctx.config.plain.pipeline_gradient_accumulation_count;
  const Model model = Model::load(request.model_path, ctx.config);
  ctx.space.layouts = layouts(ctx, model, ipus);
  const bool keeps_replicas = ir::depends_on_replica(graph_of(model)) && input.fits;
  if (keeps_replicas) {
    // Its collectives (a distributed batch norm, say) combine the replicas' micro-batches: other
    // replicas or another micro-batch would train other numbers, as another global batch would.
    std::erase_if(ctx.space.layouts, [&](const Layout& l) { return l.replicas != input.replicas; });
  }
  int32_t max_replicas = 1;
  for (const Layout& l : ctx.space.layouts) {
    max_replicas = std::max(max_replicas, l.replicas);
  }
  ctx.space.axes = api::tune::make_axes(ctx, max_replicas);
  ctx.space.micro = keeps_replicas ? std::vector<int64_t>{input.micro_batch} : micro_values(ctx, global);
  const ir::Graph& graph = graph_of(model);
  if (!planner::recurrent_states(graph).empty()) {
    // Stateful recurrent layers follow one stream of batches of the size the data was laid out
    // for (planner/recurrent_states.hpp): one replica, the model's micro-batch.
    std::erase_if(ctx.space.layouts, [](const Layout& l) { return l.replicas != 1; });
    ctx.space.micro = {graph.type(graph.inputs.front()).shape.front()};
  }
  search(ctx, result, input);
  api::tune::rank_into(ctx, result, input);
  result.seconds = ctx.elapsed();
  result.budget_seconds = ctx.limits.time_seconds;
  return result;
}

}  // namespace iputrain
