#include "planner/cost_model.hpp"

#include <algorithm>

namespace iputrain::planner {

DeviceModel DeviceModel::ipu2() { return DeviceModel{}; }

DeviceModel DeviceModel::ipu1() {
  DeviceModel d;
  d.name = "ipu1";
  d.tiles = 1216;  // GC2
  d.bytes_per_tile = 256 * 1024;
  d.clock_hz = 1.6e9;
  d.f32_flops_per_tile_cycle = 16;  // 31.1 TFLOPS f32 peak / (1216 tiles x 1.6 GHz)
  d.f16_flops_per_tile_cycle = 64;  // 124.5 TFLOPS f16 peak
  d.link_bytes_per_second = 32e9;
  return d;
}

DeviceModel DeviceModel::from_config(const DeviceSection& section) {
  DeviceModel d;
  d.name = section.version;
  d.tiles = section.tiles_per_ipu;
  d.bytes_per_tile = section.memory_per_tile;
  d.clock_hz = section.clock_hz;
  d.f32_flops_per_tile_cycle = section.flops_per_tile_per_cycle;
  d.f16_flops_per_tile_cycle = section.flops_per_tile_per_cycle_fp16;
  d.link_bytes_per_second = section.ipu_link_bandwidth;
  d.host_bytes_per_second = section.host_bandwidth;
  return d;
}

double op_cycles(const ir::Graph& g, ir::ValueId id, const DeviceModel& d) {
  const ir::Node& n = g.node(id);
  const ir::OpDef& def = ir::op_def(n.op);
  if (def.cost == nullptr || def.forward == nullptr) {
    return 0;
  }
  const ir::Cost c = def.cost(g, n);
  const double tiles = static_cast<double>(d.tiles);
  const bool half = n.type.dtype == DType::F16 || n.type.dtype == DType::BF16;
  const double compute = c.flops / (tiles * (half ? d.f16_flops_per_tile_cycle : d.f32_flops_per_tile_cycle));
  const double memory = (c.bytes_in + c.bytes_out) / (tiles * d.bytes_per_tile_cycle);
  return std::max(compute, memory) + d.op_overhead_cycles;
}

double stage_cycles(const ir::Graph& g, const std::vector<ir::ValueId>& program, int32_t stage, ir::Phase phase,
                    const DeviceModel& d) {
  double cycles = 0;
  for (ir::ValueId id : program) {
    const ir::Node& n = g.node(id);
    if (n.stage == stage && n.phase == phase) {
      cycles += op_cycles(g, id, d);
    }
  }
  return cycles;
}

int64_t boundary_bytes(const ir::Graph& g, const Pipeline& p, int32_t position,
                       const std::vector<ir::ValueId>& program) {
  std::vector<int32_t> position_of(g.stages.size(), 0);
  for (size_t pos = 0; pos < p.positions.size(); ++pos) {
    for (int32_t s : p.positions[pos]) {
      position_of[static_cast<size_t>(s)] = static_cast<int32_t>(pos);
    }
  }
  // A value made at or before `position` and used after it crosses the boundary once.
  std::vector<bool> crosses(static_cast<size_t>(g.size()), false);
  for (ir::ValueId id : program) {
    const ir::Node& user = g.node(id);
    const int32_t user_pos = position_of[static_cast<size_t>(user.stage)];
    for (ir::ValueId in : user.inputs) {
      const ir::Node& producer = g.node(in);
      const int32_t pos = position_of[static_cast<size_t>(producer.stage)];
      const bool forward_cross = pos <= position && user_pos > position;
      const bool backward_cross = pos > position && user_pos <= position;
      if ((forward_cross || backward_cross) && producer.op != ir::OpKind::Param) {
        crosses[static_cast<size_t>(in)] = true;
      }
    }
  }
  int64_t bytes = 0;
  for (ir::ValueId id = 0; id < g.size(); ++id) {
    if (crosses[static_cast<size_t>(id)]) {
      bytes += static_cast<int64_t>(g.type(id).bytes());
    }
  }
  return bytes;
}

TimelineCost simulate(const ir::Graph& g, const Pipeline& p, const Timeline& t,
                      const std::vector<ir::ValueId>& program, const DeviceModel& d) {
  // Cycles of each (position, phase) task, summed over the position's stages on one IPU.
  const size_t positions = p.positions.size();
  std::vector<std::vector<double>> task_cycles(positions, std::vector<double>(2, 0.0));
  for (size_t pos = 0; pos < positions; ++pos) {
    for (int32_t s : p.positions[pos]) {
      task_cycles[pos][0] += stage_cycles(g, program, s, ir::Phase::Forward, d);
      task_cycles[pos][1] += stage_cycles(g, program, s, ir::Phase::Backward, d);
    }
  }
  std::vector<double> link_cycles(positions, 0.0);
  for (size_t pos = 0; pos + 1 < positions; ++pos) {
    link_cycles[pos] = static_cast<double>(boundary_bytes(g, p, static_cast<int32_t>(pos), program)) /
                       d.link_bytes_per_second * d.clock_hz;
  }
  TimelineCost cost;
  cost.busy_cycles.assign(static_cast<size_t>(p.ipus_per_replica), 0.0);
  for (const auto& step : t.steps) {
    double longest = 0;
    double transfer = 0;
    for (size_t ipu = 0; ipu < step.size(); ++ipu) {
      double busy = 0;
      for (const Task& task : step[ipu]) {
        busy += task_cycles[static_cast<size_t>(task.position)][task.phase == ir::Phase::Forward ? 0 : 1];
        // Forward tasks send activations to the next position, backward tasks send gradients to
        // the previous one; transfers overlap other IPUs' compute but end the timestep.
        const int32_t boundary = task.phase == ir::Phase::Forward ? task.position : task.position - 1;
        if (boundary >= 0) {
          transfer = std::max(transfer, link_cycles[static_cast<size_t>(boundary)]);
        }
      }
      cost.busy_cycles[ipu] += busy;
      longest = std::max(longest, busy);
    }
    cost.cycles += longest + transfer;
  }
  double busy_total = 0;
  for (double b : cost.busy_cycles) {
    busy_total += b;
  }
  const double capacity = cost.cycles * static_cast<double>(p.ipus_per_replica);
  cost.bubble = capacity > 0 ? 1.0 - busy_total / capacity : 0.0;
  return cost;
}

}  // namespace iputrain::planner
