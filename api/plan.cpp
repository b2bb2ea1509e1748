// iputrain::Plan: the public face of the planner. Plans a loaded model under a config and formats
// the result through planner/report/report.hpp, so every client prints the same figures.
#include "iputrain/plan.hpp"

#include "iputrain/config_loader.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "api/plan_access.hpp"
#include "frontend/model_access.hpp"
#include "planner/plan.hpp"
#include "planner/report/report.hpp"
#include "planner/report/svg.hpp"

namespace iputrain {

struct Plan::Impl {
  planner::Plan plan;
  std::string model;
  std::string dumps;
  std::shared_ptr<const SourceManager> sources;  //!< the model's files, named by the op table
};

namespace {

void check_pass_names(const std::vector<std::string>& wanted) {
  const std::vector<std::string>& known = planner::pass_names();
  for (const std::string& name : wanted) {
    if (std::find(known.begin(), known.end(), name) != known.end()) {
      continue;
    }
    const std::string near = nearest_name(name, known);
    throw Error(ErrorKind::Usage, fmt::format("--dump-after: the planner has no pass `{}`", name), {},
                fmt::format("{}the passes are: {}", near.empty() ? "" : fmt::format("did you mean `{}`? ", near),
                            fmt::join(known, ", ")));
  }
}

}  // namespace

Plan Plan::make(const Model& model, const ResolvedConfig& config, const PlanRequest& request) {
  check_pass_names(request.dump_after);
  auto impl = std::make_shared<Impl>();
  impl->model = model.name();
  impl->sources = model.sources();
  planner::PlanOptions options;
  options.dump_after = request.dump_after;
  options.inference = request.inference;
  options.dumps = &impl->dumps;
  options.deadline = request.deadline;
  options.keep_unfit = request.keep_unfit;
  try {
    const Settings& settings = config.settings();
    impl->plan = planner::make_plan(graph_for(model, settings), settings, options);
  } catch (Error& e) {
    throw e.with_sources(model.sources());  // errors located in the model (config ones have theirs)
  }
  return Plan(std::move(impl));
}

std::vector<std::string> Plan::pass_names() { return planner::pass_names(); }

std::vector<PassDescription> Plan::passes() {
  std::vector<PassDescription> out;
  for (const planner::PassInfo& p : planner::passes()) {
    out.push_back({p.name, p.reads, p.writes, p.purpose});
  }
  return out;
}

std::string Plan::text() const { return planner::plan_text(impl_->plan, impl_->model); }

std::string Plan::text(PlanSection section) const {
  const planner::Plan& p = impl_->plan;
  switch (section) {
    case PlanSection::Header:
      return planner::text_header(p, impl_->model);
    case PlanSection::Stages:
      return planner::text_stages(p);
    case PlanSection::Memory:
      return planner::text_memory(p);
    case PlanSection::Schedule:
      return planner::text_schedule(p);
    case PlanSection::Predicted:
      return planner::text_predicted(p);
  }
  return {};
}

std::string Plan::json() const { return planner::plan_json(impl_->plan, impl_->model); }

std::string Plan::dot() const { return planner::plan_dot(impl_->plan, impl_->model); }

std::string Plan::gantt_svg() const { return planner::gantt_svg(impl_->plan); }

std::string Plan::memory_svg() const { return planner::memory_svg(impl_->plan); }

std::string Plan::html(const Config& config) const {
  return planner::plan_html(impl_->plan, impl_->model, impl_->sources.get(), config::show(config));
}

const std::string& Plan::dumps() const { return impl_->dumps; }

const std::string& Plan::model_name() const { return impl_->model; }

int32_t Plan::replicas() const { return impl_->plan.placement.replicas; }
bool Plan::replica_dependent() const { return ir::depends_on_replica(impl_->plan.graph); }

int32_t Plan::ipus_per_replica() const { return impl_->plan.placement.pipeline.ipus_per_replica; }

int32_t Plan::num_ipus() const { return impl_->plan.num_ipus(); }

std::string Plan::schedule() const { return std::string(planner::schedule_name(impl_->plan.decided.schedule)); }

bool Plan::training() const { return impl_->plan.decided.training; }

int64_t Plan::accumulation_count() const { return impl_->plan.decided.accumulation_count; }

int64_t Plan::micro_batch() const { return impl_->plan.micro_batch(); }

int64_t Plan::global_batch() const { return impl_->plan.global_batch(); }

std::vector<PlanStage> Plan::stages() const {
  std::vector<PlanStage> out;
  for (const planner::StageSummary& s : planner::stage_summaries(impl_->plan)) {
    out.push_back(
        {s.name, s.position, s.ipu, s.params, s.param_bytes, s.forward_cycles, s.backward_cycles, s.physical_ids});
  }
  return out;
}

std::vector<PlanMemory> Plan::memory() const {
  std::vector<PlanMemory> out;
  for (const planner::IpuMemory& m : impl_->plan.memory) {
    out.push_back({m.weights, m.optimizer_state, m.optimizer_state_offloaded, m.accumulators, m.activations_peak,
                   m.io_buffers, m.total_peak, m.capacity, m.activations_live, m.weights_offloaded, m.per_timestep,
                   m.contributors});
  }
  return out;
}

std::vector<std::vector<int32_t>> Plan::physical_ipus() const { return impl_->plan.placement.physical; }

std::string format_bytes(int64_t bytes) { return planner::human_bytes(bytes); }
std::string usage_bar(int64_t used, int64_t capacity, int width) { return planner::usage_bar(used, capacity, width); }

std::vector<double> Plan::utilisation() const { return impl_->plan.cost.utilisation; }

double Plan::samples_per_second() const { return impl_->plan.cost.samples_per_second; }
bool Plan::fits() const { return impl_->plan.unfit.empty(); }
std::string Plan::unfit_reason() const { return impl_->plan.unfit; }

double Plan::cycles_per_update() const { return impl_->plan.cost.cycles_per_update; }

double Plan::bubble_fraction() const { return impl_->plan.cost.bubble_fraction; }

double Plan::analytic_bubble_fraction() const { return impl_->plan.cost.analytic_bubble_fraction; }

const planner::Plan& PlanAccess::plan(const Plan& p) { return p.impl_->plan; }

}  // namespace iputrain
