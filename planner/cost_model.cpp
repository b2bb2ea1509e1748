#include "planner/cost_model.hpp"

#include <algorithm>

#include "planner/precision.hpp"

namespace iputrain::planner {

DeviceModel DeviceModel::preset(const std::string& version) {
  return from_config(DeviceSection::preset(version));
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
  d.compute_efficiency = section.compute_efficiency;
  return d;
}

double op_cycles(const ir::Graph& g, ir::ValueId id, const DeviceModel& d) {
  const ir::Node& n = g.node(id);
  const ir::OpDef& def = ir::op_def(n.op);
  if (def.cost == nullptr || def.forward == nullptr) {
    return 0;
  }
  const ir::Cost c = def.cost(g, n);
  const double tiles = static_cast<double>(d.compute_tiles());
  const bool half = is_half(n.type.dtype) || (is_float(n.type.dtype) && is_half(d.compute));
  const double compute =
      c.flops / (tiles * (half ? d.f16_flops_per_tile_cycle : d.f32_flops_per_tile_cycle) * d.compute_efficiency);
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
      if ((forward_cross || backward_cross) && !ir::is_weight(producer)) {
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

}  // namespace iputrain::planner
