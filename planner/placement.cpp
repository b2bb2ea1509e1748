#include "planner/placement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "core/optim_table.hpp"
#include "iputrain/error.hpp"

namespace iputrain::planner {

std::vector<std::vector<std::string>> position_names(const ir::Graph& g) {
  std::vector<std::vector<std::string>> out;
  for (size_t s = 0; s < g.stages.size(); ++s) {
    const int32_t group = g.stages[s].group;
    if (s > 0 && group >= 0 && g.stages[s - 1].group == group) {
      out.back().push_back(g.stages[s].name);
    } else {
      out.push_back({g.stages[s].name});
    }
  }
  return out;
}

std::vector<int32_t> selection_order(SelectionOrder order, int32_t ipus, int32_t ipus_per_replica) {
  const SelectionOrder kind =
      order == SelectionOrder::Auto ? (ipus_per_replica > 1 ? SelectionOrder::Snake : SelectionOrder::Zigzag) : order;
  std::vector<int32_t> out;
  if (kind == SelectionOrder::Snake) {
    // Down the cards, alternating the column so that each step is one link.
    for (int32_t card = 0; 2 * card < ipus; ++card) {
      const int32_t a = 2 * card;
      const int32_t b = std::min(2 * card + 1, ipus - 1);
      if (card % 2 == 0 || a == b) {
        out.push_back(a);
        if (b != a) {
          out.push_back(b);
        }
      } else {
        out.push_back(b);
        out.push_back(a);
      }
    }
  } else if (kind == SelectionOrder::Hoof) {
    // Down the even column, back up the odd one: a ring whose ends share a card.
    for (int32_t i = 0; i < ipus; i += 2) {
      out.push_back(i);
    }
    for (int32_t i = ipus - 1 - (ipus % 2 == 0 ? 0 : 1); i > 0; i -= 2) {
      out.push_back(i);
    }
  } else {
    for (int32_t i = 0; i < ipus; ++i) {
      out.push_back(i);
    }
  }
  return out;
}

int32_t link_hops(int32_t a, int32_t b) {
  // IPU 2k + c sits on card k, column c: cards stack vertically, columns are linked on each card.
  return std::abs(a / 2 - b / 2) + std::abs(a % 2 - b % 2);
}

namespace {

// First physical IPU of a device of the emulated gc-info listing (0-15: single IPUs, 16-23: pairs,
// 24-27: fours, 28-29: eights, 30: all sixteen).
// Per stage: its IPU within the replica, from `pipeline.device_mapping` (one entry per position).
std::vector<int32_t> stage_ipus(const ir::Graph& g, const Settings& settings, const PipelineShape& shape) {
  const auto& mapping = settings.plain.pipeline_device_mapping;
  std::vector<int32_t> out(g.stages.size(), 0);
  if (mapping.empty()) {
    // The seeds' default: position i on IPU i when the replica has several IPUs.
    int32_t position = -1;
    for (size_t s = 0; s < g.stages.size(); ++s) {
      const int32_t group = g.stages[s].group;
      if (!(s > 0 && group >= 0 && g.stages[s - 1].group == group)) {
        ++position;
      }
      out[s] = shape.ipus_per_replica > 1 ? position : 0;
    }
    return out;
  }
  size_t stage = 0;
  for (const auto& entry : mapping) {
    const int32_t group = g.stages[stage].group;
    size_t members = 1;
    while (group >= 0 && stage + members < g.stages.size() && g.stages[stage + members].group == group) {
      ++members;
    }
    for (size_t k = 0; k < members; ++k) {
      out[stage + k] = static_cast<int32_t>(entry.size() == 1 ? entry[0] : entry[k]);
    }
    stage += members;
  }
  return out;
}

}  // namespace

Placement make_placement(const ir::Graph& g, const Settings& settings, const PipelineShape& shape) {
  Placement pl;
  const std::vector<int32_t> ipus = stage_ipus(g, settings, shape);
  pl.pipeline = make_pipeline(g, ipus, false);
  pl.pipeline.ipus_per_replica = static_cast<int32_t>(shape.ipus_per_replica);
  pl.replicas = static_cast<int32_t>(shape.replicas);

  pl.instances = settings.ipu.instances;
  if (pl.replicas % pl.instances != 0) {
    std::string divisors;
    for (int32_t d = 1; d <= pl.replicas; ++d) {
      divisors += pl.replicas % d == 0 ? fmt::format("{}{}", divisors.empty() ? "" : ", ", d) : "";
    }
    settings.keys.fail_at(
        "ipu.experimental.multi_replica_distribution.process_count",
        fmt::format("{} replicas cannot be shared by {} instances (`process_count`, mpirun's count when "
                    "unset): each instance holds whole replicas, as many as every other",
                    pl.replicas, pl.instances),
        fmt::format("launch with mpirun -n N for N among {}", divisors));
  }

  const int32_t total = pl.replicas * pl.pipeline.ipus_per_replica;
  // The device's IPUs: 0 .. total - 1, or those of the devices `ipu.select_ipus` lists.
  std::vector<int32_t> device = settings.ipu.physical;
  if (device.empty()) {
    for (int32_t k = 0; k < total; ++k) {
      device.push_back(k);
    }
  }
  const std::vector<int32_t> order =
      selection_order(settings.plain.ipu_selection_order, total, pl.pipeline.ipus_per_replica);
  pl.physical.assign(static_cast<size_t>(pl.replicas), {});
  for (int32_t r = 0; r < pl.replicas; ++r) {
    for (int32_t i = 0; i < pl.pipeline.ipus_per_replica; ++i) {
      pl.physical[static_cast<size_t>(r)].push_back(
          device.at(static_cast<size_t>(order[static_cast<size_t>(r * pl.pipeline.ipus_per_replica + i)])));
    }
  }

  // A parameter lives on one IPU: every stage that reads it must run there.
  std::vector<int32_t> reader_stage(static_cast<size_t>(g.size()), -1);
  for (ir::ValueId id = 0; id < g.size(); ++id) {
    const ir::Node& n = g.node(id);
    for (ir::ValueId in : n.inputs) {
      if (!ir::is_weight(g.node(in))) {
        continue;
      }
      int32_t& first = reader_stage[static_cast<size_t>(in)];
      if (first < 0) {
        first = n.stage;
      } else if (ipus[static_cast<size_t>(first)] != ipus[static_cast<size_t>(n.stage)]) {
        const std::string message = fmt::format(
            "parameter '{}' is used by stage '{}' (IPU {}) and stage '{}' (IPU {}); a variable lives on one IPU",
            g.node(in).name, g.stages[static_cast<size_t>(first)].name, ipus[static_cast<size_t>(first)],
            g.stages[static_cast<size_t>(n.stage)].name, ipus[static_cast<size_t>(n.stage)]);
        const std::string hint = "map both stages to one IPU in `pipeline.device_mapping`, or give each stage its own parameter";
        if (settings.keys.is_set("pipeline.device_mapping")) {
          settings.keys.fail_at("pipeline.device_mapping", message, hint);
        }
        throw Error(ErrorKind::Plan, message, n.span, hint);
      }
    }
  }
  for (ir::ValueId p : g.params) {
    const int32_t s = reader_stage[static_cast<size_t>(p)];
    pl.param_ipu.push_back(ipus[static_cast<size_t>(s >= 0 ? s : g.node(p).stage)]);
  }
  const SystemSection system = system_of(settings.plain);
  if (system.ipus() < total) {
    // The loader refuses such a config (config::check_hardware); a Config built in code is refused here,
    // not given a larger system than it names.
    settings.keys.fail_at("system.preset",
                          fmt::format("the system holds {} IPUs, fewer than the plan's {}", system.ipus(), total),
                          "leave `system.preset` at \"auto\" (the smallest system that holds the IPUs), or name a "
                          "larger one");
  }
  pl.topology = make_topology(system, pl.physical);
  return pl;
}

PlanDecisions decide(const Settings& run, const PipelineShape& shape) {
  PlanDecisions s;
  const PipelineSettings& p = run.pipeline;
  s.pipelined = shape.pipelined;
  s.schedule = shape.schedule;
  // Batch serialization: each micro-batch is computed in slices, each one accumulated like a
  // micro-batch of its own (the model is built at the slice size).
  s.accumulation_count = shape.gradient_accumulation_count * run.plain.pipeline_batch_serialization_iterations;
  // Off without ipu.allow_recompute; "auto": recompute-then-backpropagate where the schedule runs it
  // (the sequential schedule does not).
  const RecomputationMode mode = run.plain.pipeline_recomputation_mode;
  const bool then = mode == RecomputationMode::RecomputeThenBackpropagate ||
                    (mode == RecomputationMode::Auto && schedule_def(s.schedule).recompute_then_backpropagate);
  s.recompute = !run.plain.ipu_allow_recompute ? Recomputation::Off
                : then                         ? Recomputation::RecomputeThenBackpropagate
                                               : Recomputation::RecomputeAndBackpropagateInterleaved;
  // Weight sharding "auto": on where the seed turns it on, the sequential schedule with batch
  // serialization. Sharded weights are updated shard by shard, so their state is sharded too.
  s.shard_weights = run.plain.pipeline_replicated_weight_sharding.value_or(
      pipeline_schedules::schedule_def(s.schedule).unpipelined &&
      run.plain.pipeline_batch_serialization_iterations > 1 && optimizer_def(run.optimizer).shardable);
  s.shard_optimizer_state = run.plain.pipeline_replicated_optimizer_state_sharding || s.shard_weights;
  if (run.plain.pipeline_offload_weights == true && !s.shard_weights) {
    // The config rule catches `false`; "auto" is resolved only here.
    run.keys.fail_at("pipeline.offload_weights",
                     "`pipeline.offload_weights` stores the shards of replicated weight sharding, which \"auto\" "
                     "leaves off here (it is on only for the sequential schedule with batch_serialization_iterations "
                     "> 1)",
                     "set `pipeline.replicated_weight_sharding = true`, or leave `pipeline.offload_weights` unset");
  }
  // As in the seed, "auto" follows weight sharding: sharded blocks live in remote memory.
  s.offload_weights = s.shard_weights && run.plain.pipeline_offload_weights.value_or(true);
  // "auto" keeps the optimizer state and the accumulators on the IPU.
  s.offload_optimizer_state = run.plain.pipeline_offload_weight_update_variables.value_or(false);
  s.offload_accumulators = run.plain.pipeline_offload_gradient_accumulation_buffers.value_or(false);
  s.device = DeviceModel::from_keys(run.plain);
  s.device.io_tiles = run.plain.ipu_io_tiles_num_io_tiles;
  s.device.io_data_proportion = run.plain.ipu_io_tiles_available_memory_proportion;
  s.device.feeds_on_io_tiles = run.plain.ipu_io_tiles_place_ops_on_io_tiles;
  s.device.compute = dtype_of(run.plain.training_precision);
  s.device.half_partials_matmul = p.memory.matmul.half_partials;
  s.device.half_partials_convolution = p.memory.convolution.half_partials;
  // The host's round trip is in seconds: a faster IPU clock makes it more cycles, not fewer.
  s.device.host_call_cycles = run.plain.system_host_sync_latency * s.device.clock_hz;
  return s;
}

}  // namespace iputrain::planner
