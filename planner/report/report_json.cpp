// The plan for tools. Bytes are exact integers, IPU ids logical unless named physical; the field
// list is documented in docs/cli.md (section `plan`) and checked by tests/planner/report_test.cpp.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "planner/memory_model.hpp"
#include "planner/recurrent_states.hpp"
#include "planner/report/report.hpp"

namespace iputrain::planner {

namespace {

using Json = nlohmann::ordered_json;

Json memory_json(const IpuMemory& m) {
  Json j{{"weights", m.weights},
         {"optimizer_state", m.optimizer_state},
         {"optimizer_state_offloaded", m.optimizer_state_offloaded},
         {"accumulators_offloaded", m.accumulators_offloaded},
         {"weights_offloaded", m.weights_offloaded},
         {"accumulators", m.accumulators},
         {"activations_peak", m.activations_peak},
         {"activations_live", m.activations_live},
         {"io_buffers", m.io_buffers},
         {"feed_staging", m.feed_staging},
         {"io_tiles_capacity", m.io_tiles_capacity},
         {"total_peak", m.total_peak},
         {"capacity", m.capacity},
         {"per_timestep", m.per_timestep}};
  if (m.host_tables > 0) {
    // Host tables (nn.host_embedding): host memory, and the host link per micro-batch.
    j["host_tables"] = m.host_tables;
    j["host_rows_in_per_micro_batch"] = m.host_rows_in;
    j["host_grads_out_per_micro_batch"] = m.host_grads_out;
  }
  return j;
}

// The order gradients are summed in and what each order would cost: accumulator buffers per
// weight and bytes per IPU (buffers x the IPU's trained elements x the dtype, so the other
// order's bytes scale by the ratio of buffers).
Json accumulation_json(const Plan& plan) {
  const Settings& s = plan.settings;
  const int32_t buffers = accumulator_buffers(plan);
  Json costs = Json::object();
  for (GradientAccumulationOrder order :
       {GradientAccumulationOrder::Canonical, GradientAccumulationOrder::Sequential}) {
    const int32_t n = accumulator_buffers(plan, order);
    Json bytes = Json::array();
    for (const IpuMemory& m : plan.memory) {
      bytes.push_back(buffers > 0 ? m.accumulators / buffers * n : int64_t{0});
    }
    costs[std::string(accumulation_order_name(order))] = Json{{"buffers_per_weight", n}, {"bytes_per_ipu", bytes}};
  }
  return Json{{"order", std::string(accumulation_order_name(s.plain.pipeline_gradient_accumulation_order))},
              {"dtype", std::string(dtype_name(accumulation_dtype(s)))},
              {"buffers_per_weight", buffers},
              {"cost_by_order", std::move(costs)}};
}

// The system around the IPUs (`[system]`, resolved) and the levels the collectives run over.
Json topology_json(const Plan& plan) {
  const Topology& t = plan.placement.topology;
  const SystemSection& s = t.system;
  Json levels = Json::array();
  for (const LinkLevel& l : t.levels) {
    levels.push_back(Json{{"name", l.name},
                          {"group", l.group},
                          {"bytes_per_second", l.bytes_per_second},
                          {"latency_seconds", l.latency_seconds}});
  }
  return Json{{"preset", t.preset},
              {"sources", fmt::format("configs/systems/{}.toml", t.preset)},
              {"machine", plan.decided.device.name == "bow" ? "Bow-2000" : "IPU-M2000"},
              {"ipus_per_machine", s.ipus_per_machine},
              {"machines_per_pod", s.machines_per_pod},
              {"pods", s.pods},
              {"ipus", s.ipus()},
              {"links_in_machine", s.links_in_machine},
              {"links_between_machines", s.links_between_machines},
              {"ipu_link_bandwidth", s.ipu_link_bandwidth},
              {"gw_link_bandwidth", s.gw_link_bandwidth},
              {"hosts", s.hosts},
              {"host_link_bandwidth", s.host_link_bandwidth},
              {"host_sync_latency", s.host_sync_latency},
              {"host_samples_per_second", s.host_samples_per_second},
              {"ipus_used", t.ipus_used},
              {"machines_used", t.machines_used},
              {"pods_used", t.pods_used},
              {"hosts_used", t.hosts_used},
              {"collective_levels", std::move(levels)}};
}

// Where one weight update's time goes, in seconds, and the bound that dominates.
Json breakdown_json(const CostReport& c) {
  const UpdateBreakdown& b = c.breakdown;
  return Json{{"compute", b.compute},
              {"in_ipu_exchange", b.exchange},
              {"sync", b.sync},
              {"pipeline_transfers", b.pipeline},
              {"collectives_machine", b.collectives[0]},
              {"collectives_ipu_links", b.collectives[1]},
              {"collectives_gw_links", b.collectives[2]},
              {"remote_memory", b.remote_memory},
              {"host_io", b.host_io},
              {"idle", b.idle},
              {"host_sync", b.host_sync},
              {"host_feed", b.host_feed},
              {"host_network", b.host_network},
              {"host_cpu", b.host_cpu},
              {"bound", b.bound}};
}

// mpirun -n P: which replicas each instance holds.
Json instances_json(const Plan& plan) {
  Json instances = Json::array();
  const int32_t per = plan.placement.replicas_per_instance();
  for (int32_t k = 0; k < plan.placement.instances; ++k) {
    Json replicas = Json::array();
    for (int32_t r = k * per; r < (k + 1) * per; ++r) {
      replicas.push_back(r);
    }
    instances.push_back({{"instance", k}, {"replicas", replicas}});
  }
  return instances;
}

Json ipus_json(const Plan& plan, const std::vector<StageSummary>& stages) {
  Json ipus = Json::array();
  for (int32_t i = 0; i < plan.placement.pipeline.ipus_per_replica; ++i) {
    const auto idx = static_cast<size_t>(i);
    Json ipu{{"id", i}};
    Json physical = Json::array();
    for (const auto& replica : plan.placement.physical) {
      if (idx < replica.size()) {
        physical.push_back(replica[idx]);
      }
    }
    ipu["physical_ids"] = std::move(physical);
    Json names = Json::array();
    for (const StageSummary& s : stages) {
      if (s.ipu == i) {
        names.push_back(s.name);
      }
    }
    ipu["stages"] = std::move(names);
    ipu["memory"] = idx < plan.memory.size() ? memory_json(plan.memory[idx]) : Json(nullptr);
    ipu["utilisation"] = idx < plan.cost.utilisation.size() ? Json(plan.cost.utilisation[idx]) : Json(nullptr);
    ipus.push_back(std::move(ipu));
  }
  return ipus;
}

Json predicted_json(const CostReport& c) {
  Json j{{"samples_per_second", c.samples_per_second},
         {"bubble_fraction", c.bubble_fraction},
         {"analytic_bubble_fraction", c.analytic_bubble_fraction},
         {"cycles_per_update", c.cycles_per_update},
         {"link_bytes_per_update", c.link_bytes_per_update},
         {"reduce_bytes_per_update", c.reduce_bytes_per_update},
         {"gather_bytes_per_update", c.gather_bytes_per_update},
         {"feed_bytes_per_update", c.feed_bytes_per_update},
         {"seconds_per_update", c.seconds_per_update},
         {"breakdown_seconds", breakdown_json(c)}};
  if (c.host_table_bytes_per_update > 0) {
    j["host_table_bytes_per_update"] = c.host_table_bytes_per_update;
  }
  if (c.model_collective_bytes_per_update > 0) {
    j["model_collective_bytes_per_update"] = c.model_collective_bytes_per_update;
  }
  return j;
}

Json programs_json(const Plan& plan) {
  Json programs = Json::array();
  for (const auto& instrs : plan.programs.ipus) {
    Json list = Json::array();
    for (const Instr& instr : instrs) {
      list.push_back(instr.str(plan.programs));
    }
    programs.push_back(std::move(list));
  }
  return programs;
}

}  // namespace

std::string plan_json(const Plan& plan, std::string_view model) {
  const std::vector<StageSummary> stages = stage_summaries(plan);
  Json j;
  j["model"] = std::string(model);
  j["training"] = plan.decided.training;
  j["device"] = plan.decided.device.name;
  j["replicas"] = plan.placement.replicas;
  if (plan.placement.instances > 1) {
    j["instances"] = instances_json(plan);
  }
  j["ipus_per_replica"] = plan.placement.pipeline.ipus_per_replica;
  j["topology"] = topology_json(plan);
  j["num_ipus"] = plan.num_ipus();
  j["schedule"] = std::string(schedule_name(plan.decided.schedule));
  j["gradient_accumulation_count"] = plan.decided.accumulation_count;
  j["micro_batch"] = plan.micro_batch();
  j["batch_serialization_iterations"] = plan.settings.plain.pipeline_batch_serialization_iterations;
  j["global_batch"] = plan.global_batch();
  j["host_threads"] = plan.settings.plain.engine_threads;
  j["spread_kernels"] = key_spelling(plan.settings.plain.engine_spread_kernels);
  // Stateful recurrent layers' states (planner/recurrent_states.hpp) and when they are reset.
  Json states = Json::array();
  for (ir::ValueId p : recurrent_states(plan.graph)) {
    states.push_back(plan.graph.node(p).name);
  }
  j["recurrent_states"] =
      Json{{"states", std::move(states)}, {"reset_every", plan.settings.plain.training_reset_states_every}};
  j["gradient_accumulation"] = accumulation_json(plan);

  Json stage_list = Json::array();
  for (const StageSummary& s : stages) {
    stage_list.push_back(Json{{"name", s.name},
                              {"ipu", s.ipu},
                              {"position", s.position},
                              {"physical_ids", s.physical_ids},
                              {"parameters", s.params},
                              {"parameter_bytes", s.param_bytes},
                              {"forward_cycles", s.forward_cycles},
                              {"backward_cycles", s.backward_cycles}});
  }
  j["stages"] = std::move(stage_list);

  j["ipus"] = ipus_json(plan, stages);

  Json transfers = Json::array();
  for (const StageEdge& e : stage_edges(plan)) {
    transfers.push_back(Json{{"from", stages.at(static_cast<size_t>(e.from)).name},
                             {"to", stages.at(static_cast<size_t>(e.to)).name},
                             {"kind", e.gradient ? "gradients" : "activations"},
                             {"bytes_per_micro_batch", e.bytes}});
  }
  j["transfers"] = std::move(transfers);

  j["predicted"] = predicted_json(plan.cost);

  j["programs"] = programs_json(plan);

  Json passes = Json::array();
  for (const PassTiming& t : plan.timings) {
    passes.push_back(Json{{"name", t.pass}, {"ms", t.ms}});
  }
  j["passes"] = std::move(passes);
  return j.dump(2) + "\n";
}

}  // namespace iputrain::planner
