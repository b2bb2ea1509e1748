// `show`, `memory`, `schedule`, `explain`: looking at the model, the config and the plan.
#include <fmt/format.h>

#include <algorithm>

#include "cli/repl/handlers.hpp"
#include "iputrain/config_loader.hpp"

namespace iputrain::repl {

namespace {

std::string tensor_str(const TensorInfo& t) { return fmt::format("{}[{}]", t.dtype, fmt::join(t.shape, ", ")); }

void show_model(const Model& model) {
  std::string out = fmt::format("model {}: {} parameters, {:.0f} FLOPs per sample (forward)\n", model.name(),
                                model.parameter_count(), model.flops_per_sample());
  std::vector<std::string> params;
  for (const auto& [name, value] : model.compile_time_params()) {
    params.push_back(fmt::format("{} = {}", name, param_value_str(value)));
  }
  out += fmt::format("compile-time parameters: {}\n", fmt::join(params, ", "));
  out += fmt::format("stages: {}\n", fmt::join(model.stages(), ", "));
  out += "inputs:\n";
  for (const TensorInfo& t : model.inputs()) {
    out += fmt::format("  {:<32} {}\n", t.name, tensor_str(t));
  }
  out += "parameters:\n";
  for (const TensorInfo& t : model.parameters()) {
    out += fmt::format("  {:<32} {:<16} {:>10}  stage {}{}\n", t.name, tensor_str(t), t.numel(), t.stage,
                       t.trainable ? "" : " (non-trainable)");
  }
  out += fmt::format("outputs: {}\n", fmt::join(model.outputs(), ", "));
  fmt::print("{}", out);
}

void show_stage(const State& state, const std::string& name) {
  const Plan& plan = state.plan();
  const std::vector<PlanStage> stages = plan.stages();
  const auto it = std::find_if(stages.begin(), stages.end(), [&](const auto& s) { return s.name == name; });
  if (it == stages.end()) {
    fail_unknown("stage", name, state.model().stages());
  }
  std::string out = fmt::format("stage {}: pipeline position {}, IPU {} (physical {})\n", it->name, it->position,
                                it->ipu, fmt::join(it->physical_ids, ", "));
  out += fmt::format("  cycles per micro-batch: forward {:.0f}, backward {:.0f}\n", it->forward_cycles,
                     it->backward_cycles);
  out += fmt::format("  parameters: {} ({})\n", it->parameters, format_bytes(it->parameter_bytes));
  for (const TensorInfo& t : state.model().parameters()) {
    if (t.stage == name) {
      out += fmt::format("    {:<32} {}\n", t.name, tensor_str(t));
    }
  }
  fmt::print("{}", out);
}

int64_t ipu_index(const Plan& plan, const std::string& text) {
  return parse_int(text, 0, plan.ipus_per_replica() - 1, "the IPU (logical, within a replica)");
}

void show_ipu(const State& state, const std::string& text) {
  const Plan& plan = state.plan();
  const int64_t ipu = ipu_index(plan, text);
  std::vector<std::string> stages;
  for (const PlanStage& s : plan.stages()) {
    if (s.ipu == ipu) {
      stages.push_back(s.name);
    }
  }
  std::vector<int32_t> physical;
  for (const auto& replica : plan.physical_ipus()) {
    physical.push_back(replica.at(static_cast<size_t>(ipu)));
  }
  const PlanMemory m = plan.memory().at(static_cast<size_t>(ipu));
  std::string out = fmt::format("IPU {} (physical {}): stages {}\n", ipu, fmt::join(physical, ", "),
                                stages.empty() ? "none" : fmt::format("{}", fmt::join(stages, ", ")));
  const std::vector<double> util = plan.utilisation();
  if (static_cast<size_t>(ipu) < util.size()) {
    out += fmt::format("  busy {:.1f}% of a weight update (predicted)\n", 100 * util[static_cast<size_t>(ipu)]);
  }
  out += fmt::format("  memory at its peak: {} of {} {}\n", format_bytes(m.total_peak), format_bytes(m.capacity),
                     usage_bar(m.total_peak, m.capacity));
  const std::pair<const char*, int64_t> kinds[] = {{"weights", m.weights},
                                                   {"optimizer state", m.optimizer_state},
                                                   {"accumulators", m.accumulators},
                                                   {"activations", m.activations_peak},
                                                   {"io buffers", m.io_buffers}};
  for (const auto& [what, bytes] : kinds) {
    out += fmt::format("    {:<16} {:>10}\n", what, format_bytes(bytes));
  }
  const auto& contributors = m.contributors;
  if (!contributors.empty()) {
    out += "  largest at the peak:\n";
    for (size_t i = 0; i < contributors.size() && i < 5; ++i) {
      out += fmt::format("    {:>10}  {}\n", format_bytes(contributors[i].second), contributors[i].first);
    }
  }
  fmt::print("{}", out);
}

}  // namespace

bool cmd_show(State& state, const Args& args) {
  const std::string usage = "show config|model|ir|plan|stage NAME|ipu N";
  expect_words(args, 1, 2, usage);
  const std::string& topic = args.words[0];
  const bool takes_name = topic == "stage" || topic == "ipu";
  if (takes_name != (args.words.size() == 2)) {
    expect_words(args, takes_name ? 2 : 1, takes_name ? 2 : 1, takes_name ? "show " + topic + (topic == "ipu" ? " N" : " NAME") : usage);
  }
  if (topic == "config") {
    fmt::print("{}", config::show(state.config()));
  } else if (topic == "model") {
    show_model(state.model());
  } else if (topic == "ir") {
    fmt::print("{}", state.model().ir_text());
  } else if (topic == "plan") {
    state.throw_plan_failure();
    fmt::print("{}", state.plan().text());
  } else if (topic == "stage") {
    show_stage(state, args.words[1]);
  } else if (topic == "ipu") {
    show_ipu(state, args.words[1]);
  } else {
    fail_unknown("`show` topic", topic, {"config", "model", "ir", "plan", "stage", "ipu"});
  }
  return true;
}

bool cmd_memory(State& state, const Args& args) {
  expect_words(args, 0, 2, "memory [ipu N]");
  const Plan& plan = state.plan();
  if (args.words.empty()) {
    fmt::print("{}", plan.text(PlanSection::Memory));
    return true;
  }
  if (args.words[0] != "ipu" || args.words.size() != 2) {
    throw Error(ErrorKind::Usage, fmt::format("`memory {}` is not understood", args.rest), {},
                "usage: memory [ipu N]");
  }
  const int64_t ipu = ipu_index(plan, args.words[1]);
  const PlanMemory m = plan.memory().at(static_cast<size_t>(ipu));
  const auto peak = std::max_element(m.per_timestep.begin(), m.per_timestep.end());
  std::string out = fmt::format("IPU {}: bytes held at each timestep of one accumulation cycle, of {}\n", ipu,
                                format_bytes(m.capacity));
  out += fmt::format("{:>8}  {:>10}  use of capacity\n", "timestep", "bytes");
  for (size_t t = 0; t < m.per_timestep.size(); ++t) {
    out += fmt::format("{:>8}  {:>10}  {}{}\n", t, format_bytes(m.per_timestep[t]),
                       usage_bar(m.per_timestep[t], m.capacity),
                       m.per_timestep.begin() + static_cast<std::ptrdiff_t>(t) == peak ? "  <- peak" : "");
  }
  if (m.per_timestep.empty()) {
    out += "  (no timesteps: the plan runs no pipeline cycle)\n";
  }
  fmt::print("{}", out);
  return true;
}

bool cmd_schedule(State& state, const Args& args) {
  expect_words(args, 0, 0, "schedule");
  fmt::print("{}", state.plan().text(PlanSection::Schedule));
  return true;
}

bool cmd_explain(State&, const Args& args) {
  expect_words(args, 1, 1, "explain KEY");
  fmt::print("{}", config::explain(args.words[0]));
  return true;
}

}  // namespace iputrain::repl
