#include "planner/precision.hpp"

#include <algorithm>

namespace iputrain::planner {

bool is_half(DType compute) {
  return compute == DType::F16 || compute == DType::BF16;
}

DType dtype_of(FloatType t) {
  switch (t) {
    case FloatType::F16:
      return DType::F16;
    case FloatType::BF16:
      return DType::BF16;
    case FloatType::F32:
      break;
  }
  return DType::F32;
}

int64_t device_bytes(const ir::Graph& g, ir::ValueId v, DType compute) {
  const ir::Node& n = g.node(v);
  const auto bytes = static_cast<int64_t>(n.type.bytes());
  if (!is_half(compute) || !is_float(n.type.dtype)) {
    return bytes;
  }
  const int64_t half = n.type.numel() * static_cast<int64_t>(dtype_size(compute));
  if (ir::is_weight(n)) {
    return device_weight_bytes(g, v, compute, MasterWeightsPlace::OnChip);
  }
  return ir::is_leaf(n) ? bytes : half;
}

int64_t device_weight_bytes(const ir::Graph& g, ir::ValueId p, DType compute, MasterWeightsPlace master) {
  const TensorType& t = g.type(p);
  const auto f32 = static_cast<int64_t>(t.bytes());
  if (!is_half(compute) || !is_float(t.dtype)) {
    return f32;
  }
  const int64_t half = t.numel() * static_cast<int64_t>(dtype_size(compute));
  return master == MasterWeightsPlace::OnChip ? f32 + half : half;
}

int64_t device_message_bytes(const ir::Graph& g, const DevicePrograms& programs, const Channel& c,
                             DType compute) {
  int64_t most = 0;
  for (const Message& m : programs.messages) {
    if (m.from != c.from || m.to != c.to) {
      continue;
    }
    int64_t bytes = 0;
    for (ir::ValueId v : m.values) {
      bytes += device_bytes(g, v, compute);
    }
    most = std::max(most, bytes);
  }
  return most;
}

}  // namespace iputrain::planner
