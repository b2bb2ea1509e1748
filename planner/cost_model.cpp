#include "planner/cost_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "planner/precision.hpp"
#include "planner/vertex_estimates.hpp"

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

DeviceModel DeviceModel::from_keys(const PlainKeys& plain) {
  DeviceSection d;
  d.version = std::string(key_spelling(plain.device_version));
  d.tiles_per_ipu = plain.device_tiles_per_ipu;
  d.memory_per_tile = plain.device_memory_per_tile;
  d.clock_hz = plain.device_clock_hz;
  d.flops_per_tile_per_cycle = plain.device_flops_per_tile_per_cycle;
  d.flops_per_tile_per_cycle_fp16 = plain.device_flops_per_tile_per_cycle_fp16;
  d.ipu_link_bandwidth = plain.device_ipu_link_bandwidth;
  d.host_bandwidth = plain.device_host_bandwidth;
  d.compute_efficiency = plain.device_compute_efficiency;
  return from_config(d);
}

double contraction_exchange_elements(double a, double b, double c, double tiles) {
  if (tiles <= 1) {
    return a + b + c;
  }
  // The factors n' = P / a, m' = P / b, k' = P / c with P = (a b c tiles)^(1/3) balance the three
  // terms; a factor under 1 is held at 1 (its operand moves once) and the others re-balanced.
  const std::array<double, 3> size = {a, b, c};
  std::array<bool, 3> clamped = {false, false, false};
  for (int round = 0; round < 3; ++round) {
    double product = tiles;
    int free = 0;
    for (size_t i = 0; i < 3; ++i) {
      product *= clamped[i] ? 1.0 : size[i];
      free += clamped[i] ? 0 : 1;
    }
    const double p = free > 0 ? std::pow(product, 1.0 / free) : 0;
    bool changed = false;
    for (size_t i = 0; i < 3; ++i) {
      if (!clamped[i] && p < size[i]) {
        clamped[i] = true;
        changed = true;
      }
    }
    if (!changed) {
      double moved = 0;
      for (size_t i = 0; i < 3; ++i) {
        moved += clamped[i] ? size[i] : p;
      }
      return moved;
    }
  }
  return a + b + c;
}

namespace {

double numel(const ir::Graph& g, ir::ValueId v) { return static_cast<double>(g.type(v).numel()); }

// Elements a contraction moves, by groups: (a, b, c) of one group, the group count, the op's FLOPs.
// A convolution's left operand is its patch matrix, whose size follows from the FLOPs:
// (m n k)^2 = a b c for a product, so a = (flops / 2)^2 / (b c) per group.
double contraction_elements(double b, double c, double groups, double flops, double tiles) {
  const double bg = b / groups;
  const double cg = c / groups;
  const double mnk = flops / 2 / groups;
  const double ag = bg > 0 && cg > 0 ? mnk * mnk / (bg * cg) : 0;
  return groups * contraction_exchange_elements(ag, bg, cg, tiles / groups);
}

}  // namespace

double op_exchange_bytes(const ir::Graph& g, ir::ValueId id, const DeviceModel& d) {
  const ir::Node& n = g.node(id);
  const ir::OpDef& def = ir::op_def(n.op);
  if (def.cost == nullptr || def.forward == nullptr) {
    return 0;
  }
  const double element = is_float(n.type.dtype) && (is_half(n.type.dtype) || is_half(d.compute))
                             ? 2.0
                             : static_cast<double>(dtype_size(n.type.dtype));
  const auto tiles = static_cast<double>(d.compute_tiles());
  const ir::Cost c = def.cost(g, n);
  switch (def.cost_class) {
    case ir::CostClass::MatMul: {
      // A batched right operand: one product per batch entry, on its own share of the tiles.
      const TensorType& b = g.type(n.inputs[1]);
      double groups = 1;
      for (size_t i = 0; b.rank() > 2 && i + 2 < b.shape.size(); ++i) {
        groups *= static_cast<double>(b.shape[i]);
      }
      return element * groups *
             contraction_exchange_elements(numel(g, n.inputs[0]) / groups, numel(g, n.inputs[1]) / groups,
                                           numel(g, id) / groups, tiles / groups);
    }
    case ir::CostClass::Convolution: {
      const auto groups = static_cast<double>(std::max<int64_t>(1, n.attrs.get_int("groups", 1)));
      return element * contraction_elements(numel(g, n.inputs[1]), numel(g, id), groups, c.flops, tiles);
    }
    default:
      break;
  }
  if (def.cost_class == ir::CostClass::Rearrange) {
    return element * numel(g, id);
  }
  // Reductions to fewer elements: each tile's partial sums go to the tiles that finish them.
  const double in = n.inputs.empty() ? 0 : numel(g, n.inputs[0]);
  const double out = numel(g, id);
  if (in > out && def.cost_class == ir::CostClass::Reduction) {
    return element * std::min(in, out * tiles);
  }
  return 0;
}

namespace {

// PopLibs' estimate of the op's vertices (planner/vertex_estimates.hpp), before the calibrated scale.
double kernel_cycles(const ir::Graph& g, const ir::Node& n, const ir::Cost& c, bool half, const DeviceModel& d) {
  const double tiles = static_cast<double>(d.compute_tiles());
  const double peak = half ? d.f16_flops_per_tile_cycle : d.f32_flops_per_tile_cycle;
  const ir::CostClass cls = ir::op_def(n.op).cost_class;
  if (c.contraction.groups > 0) {
    const bool partials = cls == ir::CostClass::MatMul ? d.half_partials_matmul : d.half_partials_convolution;
    // The estimates are a Mk2 tile's: a device with another peak rate (Mk1, a declared figure) scales them.
    const double mk2 = half ? kEstimateF16Flops : kEstimateF32Flops;
    return contraction_estimate(c.contraction, half, half && partials, tiles).cycles * mk2 / peak;
  }
  const double out = static_cast<double>(n.type.numel());
  switch (cls) {
    case ir::CostClass::Reduction:
      return reduction_cycles(n.inputs.empty() ? out : numel(g, n.inputs[0]), half, tiles);
    case ir::CostClass::Elementwise:
      return elementwise_cycles(out, out > 0 ? c.flops / out : 0, half, tiles);
    case ir::CostClass::Rearrange:  // moves data: its memory traffic and exchange are its cost
      return 0;
    case ir::CostClass::MatMul:
    case ir::CostClass::Convolution:
      break;
  }
  // A contraction that does not say its shape: its FLOPs at the peak rate.
  return c.flops / (tiles * peak);
}

// A loop (or its gradient): its body's ops, priced as they are, once per iteration of the bound,
// plus one synchronisation per iteration for the counter and the condition.
OpCost body_cost(const ir::Node& n, const DeviceModel& d) {
  const ir::Graph& body = *n.body;
  const auto trips = static_cast<double>(n.attrs.get_int("end") - n.attrs.get_int("begin"));
  OpCost out;
  for (ir::ValueId id = 0; id < body.size(); ++id) {
    const OpCost one = op_cost(body, id, d);
    out.compute += one.compute * trips;
    out.exchange += one.exchange * trips;
    out.sync += one.sync * trips;
  }
  out.sync += trips * d.sync_cycles;
  return out;
}
}  // namespace

OpCost op_cost(const ir::Graph& g, ir::ValueId id, const DeviceModel& d) {
  const ir::Node& n = g.node(id);
  const ir::OpDef& def = ir::op_def(n.op);
  if (n.body != nullptr) {
    return body_cost(n, d);
  }
  if (def.cost == nullptr || def.forward == nullptr) {
    return {};
  }
  const ir::Cost c = def.cost(g, n);
  const double tiles = static_cast<double>(d.compute_tiles());
  const bool half = is_half(n.type.dtype) || (is_float(n.type.dtype) && is_half(d.compute));
  OpCost out;
  const double memory = (c.bytes_in + c.bytes_out) / (tiles * d.bytes_per_tile_cycle);
  out.compute = std::max(kernel_cycles(g, n, c, half, d) / d.compute_efficiency, memory);
  out.exchange = op_exchange_bytes(g, id, d) / (tiles * d.exchange_bytes_per_tile_cycle);
  // One superstep; a contraction takes two (the partial products, then their reduction over k').
  const bool contraction = def.cost_class == ir::CostClass::MatMul || def.cost_class == ir::CostClass::Convolution;
  out.sync = (contraction ? 2 : 1) * (d.compute_set_cycles + d.sync_cycles);
  return out;
}

double op_cycles(const ir::Graph& g, ir::ValueId id, const DeviceModel& d) { return op_cost(g, id, d).total(); }

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
