#include "planner/op_temporaries.hpp"

#include <algorithm>
#include <cmath>

#include "planner/precision.hpp"

namespace iputrain::planner {

bool has_temporaries(ir::OpKind op) {
  return op_has(op, ir::op_flags::matmul_temporaries) || op_has(op, ir::op_flags::conv_temporaries);
}

OpTemporaries op_temporaries(const ir::Graph& g, ir::ValueId id, const StageLimits& limits, const DeviceModel& d) {
  const ir::Node& n = g.node(id);
  if (const auto declared = ir::op_def(n.op).temporaries) {
    OpTemporaries t;
    t.bytes = static_cast<int64_t>(declared(g, n));
    return t;
  }
  if (!has_temporaries(n.op) || !is_float(n.type.dtype)) {
    return {};
  }
  const TemporaryLimit& limit = op_has(n.op, ir::op_flags::matmul_temporaries) ? limits.matmul : limits.convolution;
  const bool half = is_half(d.compute);
  const int64_t compute_bytes = half ? 2 : 4;
  const int64_t partial_bytes = half && limit.half_partials ? 2 : 4;
  int64_t operands = 0;
  for (ir::ValueId in : n.inputs) {
    operands += g.type(in).numel() * compute_bytes;
  }
  const int64_t need = operands + n.type.numel() * partial_bytes;
  const auto cap = static_cast<int64_t>(limit.available_memory_proportion * static_cast<double>(d.memory_bytes()));
  OpTemporaries t;
  t.passes = cap > 0 ? std::max<int64_t>(1, (need + cap - 1) / cap) : 1;
  t.bytes = (need + t.passes - 1) / t.passes;
  t.extra_cycles = static_cast<double>(t.passes - 1) * static_cast<double>(operands) /
                   (static_cast<double>(d.compute_tiles()) * d.bytes_per_tile_cycle);
  return t;
}

}  // namespace iputrain::planner
