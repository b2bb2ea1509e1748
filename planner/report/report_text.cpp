// The plan for people: a header, the stage -> IPU table, memory per IPU, the schedule and the
// predicted throughput. Byte figures are human-readable; tools should read the JSON instead.
#include <fmt/format.h>

#include <algorithm>

#include "planner/report/report.hpp"
#include "planner/sharding.hpp"

namespace iputrain::planner {

namespace {

std::string percent(double share) { return fmt::format("{:.1f}%", 100.0 * share); }

std::string join_ids(const std::vector<int32_t>& ids) {
  return ids.empty() ? "-" : fmt::format("{}", fmt::join(ids, ","));
}

}  // namespace

// What one simulated cycle of the plan is.
static std::string unit(const Plan& plan) {
  return plan.decided.training
             ? "weight update"
             : fmt::format("cycle of {} micro-batches", plan.decided.accumulation_count * plan.placement.replicas);
}

namespace {

// mpirun -n P: one line naming the replicas of each instance (nothing for one process).
std::string text_instances(const Plan& plan) {
  const Placement& pl = plan.placement;
  if (pl.instances <= 1) {
    return {};
  }
  std::string out = fmt::format("instances: {} (mpirun -n {}), {} replica{} each:", pl.instances, pl.instances,
                                pl.replicas_per_instance(), pl.replicas_per_instance() == 1 ? "" : "s");
  const int32_t per = pl.replicas_per_instance();
  for (int32_t k = 0; k < pl.instances; ++k) {
    out += per == 1 ? fmt::format(" {} holds replica {}{}", k, k, k + 1 < pl.instances ? ";" : "")
                    : fmt::format(" {} holds replicas {}-{}{}", k, k * per, (k + 1) * per - 1,
                                  k + 1 < pl.instances ? ";" : "");
  }
  return out + "\n";
}

}  // namespace

std::string text_header(const Plan& plan, std::string_view model) {
  const Placement& pl = plan.placement;
  return fmt::format(
             "plan for {}: {} replica{} x {} IPU{} per replica = {} IPU{}; {} schedule{}, {} {}; "
             "micro-batch {}{}, {} {}\n",
             model, pl.replicas, pl.replicas == 1 ? "" : "s", pl.pipeline.ipus_per_replica,
             pl.pipeline.ipus_per_replica == 1 ? "" : "s", plan.num_ipus(), plan.num_ipus() == 1 ? "" : "s",
             schedule_name(plan.decided.schedule), plan.decided.training ? "" : " (inference)",
             plan.decided.training ? "gradient accumulation" : "micro-batches per replica per cycle",
             plan.decided.accumulation_count, plan.micro_batch(),
             plan.settings.plain.pipeline_batch_serialization_iterations > 1
                 ? fmt::format(" (a slice: each stage computes its micro-batch of {} as {} slices in a row)",
                               plan.micro_batch() * plan.settings.plain.pipeline_batch_serialization_iterations,
                               plan.settings.plain.pipeline_batch_serialization_iterations)
                 : std::string(),
             plan.decided.training ? "global batch" : "samples per cycle", plan.global_batch()) +
         text_instances(plan);
}

std::string text_stages(const Plan& plan) {
  const std::vector<StageSummary> stages = stage_summaries(plan);
  size_t name_width = 5;
  size_t physical_width = 8;
  for (const StageSummary& s : stages) {
    name_width = std::max(name_width, s.name.size());
    physical_width = std::max(physical_width, join_ids(s.physical_ids).size());
  }
  std::string out = fmt::format("{:<{}}  position  IPU  {:<{}}  {:>10}  {:>11}  {:>14}\n", "stage", name_width,
                                "physical", physical_width, "parameters", "param bytes", "forward cycles");
  for (const StageSummary& s : stages) {
    out +=
        fmt::format("{:<{}}  {:>8}  {:>3}  {:<{}}  {:>10}  {:>11}  {:>14.0f}\n", s.name, name_width, s.position, s.ipu,
                    join_ids(s.physical_ids), physical_width, s.params, human_bytes(s.param_bytes), s.forward_cycles);
  }
  return out;
}

namespace {

// One device type per plan: the capacity goes in the heading unless the IPUs differ.
bool same_capacity(const Plan& plan) {
  return std::all_of(plan.memory.begin(), plan.memory.end(),
                     [&](const IpuMemory& m) { return m.capacity == plan.memory[0].capacity; });
}

double use_of_capacity(const IpuMemory& m) {
  return m.capacity > 0 ? static_cast<double>(m.total_peak) / static_cast<double>(m.capacity) : 0.0;
}

}  // namespace

std::string text_memory_heading(const Plan& plan) {
  return fmt::format(
      "memory per IPU at its peak timestep{} (every replica holds the same{}):\n",
      same_capacity(plan) ? fmt::format(", of {} each", human_bytes(plan.memory[0].capacity)) : "",
      weights_sharded(plan) ? fmt::format("; weights and optimizer state are sharded, each replica keeps 1/{} of them",
                                          plan.placement.replicas)
      : state_sharded(plan)
          ? fmt::format("; the optimizer state is sharded, each replica keeps 1/{} of it", plan.placement.replicas)
          : "");
}

std::string text_memory_notes(const Plan& plan) {
  std::string out;
  if (plan.memory.empty()) {
    return out;
  }
  bool offloaded = false;
  bool accumulators_offloaded = false;
  size_t fullest = 0;
  for (size_t i = 0; i < plan.memory.size(); ++i) {
    const IpuMemory& m = plan.memory[i];
    offloaded = offloaded || m.optimizer_state_offloaded > 0;
    accumulators_offloaded = accumulators_offloaded || m.accumulators_offloaded > 0;
    fullest = use_of_capacity(m) > use_of_capacity(plan.memory[fullest]) ? i : fullest;
  }
  if (offloaded) {
    out += "optimizer state in host memory (offload_weight_update_variables):";
    for (size_t i = 0; i < plan.memory.size(); ++i) {
      out += fmt::format("{} IPU {} {}", i == 0 ? "" : ",", i, human_bytes(plan.memory[i].optimizer_state_offloaded));
    }
    out += "\n";
  }
  if (accumulators_offloaded) {
    out += "gradient accumulators in host memory (offload_gradient_accumulation_buffers):";
    for (size_t i = 0; i < plan.memory.size(); ++i) {
      out += fmt::format("{} IPU {} {}", i == 0 ? "" : ",", i, human_bytes(plan.memory[i].accumulators_offloaded));
    }
    out += "\n";
  }
  for (size_t i = 0; i < plan.memory.size(); ++i) {
    const IpuMemory& m = plan.memory[i];
    if (m.host_tables > 0) {
      out += fmt::format(
          "host tables of IPU {} in host memory (nn.host_embedding, per replica): {} with their gradients and "
          "optimizer state; "
          "per micro-batch the host link carries {} of rows in and {} of row gradients out\n",
          i, human_bytes(m.host_tables), human_bytes(m.host_rows_in), human_bytes(m.host_grads_out));
    }
  }
  const auto& contributors = plan.memory[fullest].contributors;
  if (!contributors.empty()) {
    out += fmt::format("largest at the peak of IPU {}:", fullest);
    for (size_t k = 0; k < contributors.size() && k < 3; ++k) {
      out += fmt::format("{} {} {}", k == 0 ? "" : ",", contributors[k].first, human_bytes(contributors[k].second));
    }
    out += "\n";
  }
  return out;
}

std::string text_memory(const Plan& plan) {
  if (plan.memory.empty()) {
    return "memory: not estimated\n";
  }
  const bool same = same_capacity(plan);
  std::string out = text_memory_heading(plan);
  out += fmt::format("{:>3}  {:>10}  {:>10}  {:>12}  {:>11}  {:>10}  {:>10}  use of capacity\n", "IPU", "weights",
                     "optimizer", "accumulators", "activations", "io", "peak");
  for (size_t i = 0; i < plan.memory.size(); ++i) {
    const IpuMemory& m = plan.memory[i];
    out += fmt::format("{:>3}  {:>10}  {:>10}  {:>12}  {:>11}  {:>10}  {:>10}  {} {:>6}{}\n", i, human_bytes(m.weights),
                       human_bytes(m.optimizer_state), human_bytes(m.accumulators), human_bytes(m.activations_peak),
                       human_bytes(m.io_buffers), human_bytes(m.total_peak), usage_bar(m.total_peak, m.capacity),
                       percent(use_of_capacity(m)), same ? "" : " of " + human_bytes(m.capacity));
  }
  return out + text_memory_notes(plan);
}

std::string text_schedule(const Plan& plan, int64_t max_timesteps) {
  const Timeline& t = plan.timeline;
  if (t.steps.empty()) {
    return "schedule: none\n";
  }
  const bool split = schedule_def(t.kind).splits_backward && plan.decided.training;
  std::string out = fmt::format(
      "schedule: {}, {} micro-batch{} per replica in {} timestep{} (Fm/Bm: forward/backward of micro-batch "
      "m, {}.: idle)\n",
      schedule_name(t.kind), t.micro_batches, t.micro_batches == 1 ? "" : "es", t.timesteps(),
      t.timesteps() == 1 ? "" : "s", split ? "Wm: its weight gradients, " : "");
  if (t.timesteps() <= max_timesteps) {
    return out + timeline_str(plan.placement.pipeline, t);
  }
  Timeline head = t;
  head.steps.resize(static_cast<size_t>(max_timesteps));
  return out + timeline_str(plan.placement.pipeline, head) +
         fmt::format("... {} more timesteps (the JSON report lists every instruction)\n",
                     t.timesteps() - max_timesteps);
}

namespace {

// The system, and where one update's time goes on the busiest IPU, the largest part named as the bound.
std::string text_bound(const Plan& plan) {
  const Topology& t = plan.placement.topology;
  const UpdateBreakdown& b = plan.cost.breakdown;
  const SystemSection& s = t.system;
  const auto plural = [](int64_t n) { return n == 1 ? "" : "s"; };
  std::string out = fmt::format(
      "system: {}, {} IPUs ({} Pod{} of {} machine{} of {} IPUs); {} used in {} machine{}, fed by {} host{}\n",
      t.preset, s.ipus(), s.pods, plural(s.pods), s.machines_per_pod, plural(s.machines_per_pod), s.ipus_per_machine,
      t.ipus_used, t.machines_used, plural(t.machines_used), t.hosts_used, plural(t.hosts_used));
  std::vector<std::string> groups;
  for (const LinkLevel& l : t.levels) {
    groups.push_back(fmt::format("{} {}", l.name, l.group));
  }
  out += fmt::format("collective groups: {}\n", fmt::join(groups, ", "));
  if (plan.cost.model_collective_bytes_per_update > 0) {
    out += fmt::format("the model's own collectives: {} sent per replica per {} (in the collectives below)\n",
                       human_bytes(static_cast<int64_t>(plan.cost.model_collective_bytes_per_update)), unit(plan));
  }
  const auto ms = [](double s) { return fmt::format("{:.3f}", s * 1e3); };
  out += fmt::format(
      "per {} (ms): compute {}, in-IPU exchange {}, synchronisation {}, pipeline transfers {}, collectives {} + {} "
      "+ {} (machine, IPU-Links, GW-Links), remote memory {}, host I/O {}, idle {}, host sync {}; hosts' feed {} "
      "(overlapped)\n",
      unit(plan), ms(b.compute), ms(b.exchange), ms(b.sync), ms(b.pipeline), ms(b.collectives[0]), ms(b.collectives[1]),
      ms(b.collectives[2]), ms(b.remote_memory), ms(b.host_io), ms(b.idle), ms(b.host_sync), ms(b.host_feed));
  if (b.host_cpu > 0) {
    out += fmt::format("hosts' feed (ms): network {}, CPU {} (system.host_samples_per_second)\n", ms(b.host_network),
                       ms(b.host_cpu));
  }
  return out + fmt::format("bound: {}\n", b.bound);
}

}  // namespace

std::string text_predicted(const Plan& plan) {
  const CostReport& c = plan.cost;
  if (c.cycles_per_update <= 0) {
    return "predicted: not simulated\n";
  }
  const double seconds = plan.decided.device.clock_hz > 0 ? c.cycles_per_update / plan.decided.device.clock_hz : 0;
  std::string out = fmt::format("predicted: {:.0f} samples/s over {} replica{}; {:.0f} cycles ({:.3f} ms) per {}\n",
                                c.samples_per_second, plan.placement.replicas, plan.placement.replicas == 1 ? "" : "s",
                                c.cycles_per_update, seconds * 1e3, unit(plan));
  out += "utilisation:";
  for (size_t i = 0; i < c.utilisation.size(); ++i) {
    out += fmt::format(" IPU {} {}{}", i, percent(c.utilisation[i]), i + 1 < c.utilisation.size() ? "," : "");
  }
  out += c.utilisation.empty() ? " not simulated\n" : "\n";
  const int64_t micro_batches = plan.decided.accumulation_count;
  out += fmt::format("bubble: {} of IPU time simulated, {} analytic ({} schedule, {} micro-batch{})\n",
                     percent(c.bubble_fraction), percent(c.analytic_bubble_fraction),
                     schedule_name(plan.decided.schedule), micro_batches, micro_batches == 1 ? "" : "es");
  out += fmt::format("traffic per {}: {} between the IPUs of a replica", unit(plan),
                     human_bytes(static_cast<int64_t>(c.link_bytes_per_update)));
  if (state_sharded(plan)) {
    out += fmt::format(", {} per replica reduce-scattered and {} all-gathered across replicas ({})",
                       human_bytes(static_cast<int64_t>(c.reduce_bytes_per_update)),
                       human_bytes(static_cast<int64_t>(c.gather_bytes_per_update)),
                       weights_sharded(plan) ? "sharded weights, gathered before each task that reads them"
                                             : "sharded optimizer state");
  } else if (plan.placement.replicas > 1) {
    out += fmt::format(", {} per replica reduced across replicas",
                       human_bytes(static_cast<int64_t>(c.reduce_bytes_per_update)));
  }
  return out + "\n" + text_bound(plan);
}

std::string plan_text(const Plan& plan, std::string_view model) {
  return text_header(plan, model) + "\n" + text_stages(plan) + "\n" + text_memory(plan) + "\n" + text_schedule(plan) +
         "\n" + text_predicted(plan);
}

}  // namespace iputrain::planner
