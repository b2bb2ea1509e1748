// Shared by the ordering comparisons (less, greater, …) and not_equal: a broadcasting kernel over
// f32 or i32 (and bool for not_equal) operands producing bool (one byte, 0/1). No gradient.
#pragma once

#include <fmt/format.h>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

//! Shape rule: operands of one dtype (f32, i32, or bool when `allow_bool`), bool result.
inline TensorType infer_compare(std::span<const TensorType* const> in, bool allow_bool) {
  const DType d = in[0]->dtype;
  if (d != DType::F32 && d != DType::I32 && !(allow_bool && d == DType::Bool)) {
    throw OpError{fmt::format("cannot compare {} tensors", dtype_name(d)), "cast them to f32 first"};
  }
  return infer_broadcast(in, DType::Bool);
}

//! out = cmp(a, b) with broadcasting, dispatched on the operands' dtype.
template <typename Cmp>
void compare_forward(const KernelArgs& args, Cmp cmp) {
  const Tensor& a = args.inputs[0];
  const Tensor& b = args.inputs[1];
  switch (a.type->dtype) {
    case DType::I32:
      broadcast_binary<int32_t, int32_t, uint8_t>(
          a, b, args.output, [&](int32_t x, int32_t y) { return static_cast<uint8_t>(cmp(x, y)); });
      break;
    case DType::Bool:
      broadcast_binary<uint8_t, uint8_t, uint8_t>(
          a, b, args.output, [&](uint8_t x, uint8_t y) { return static_cast<uint8_t>(cmp(x, y)); });
      break;
    default:
      broadcast_binary<float, float, uint8_t>(
          a, b, args.output, [&](float x, float y) { return static_cast<uint8_t>(cmp(x, y)); });
      break;
  }
}

//! Cost of a comparison: one operation per output element.
inline Cost compare_cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node);
}

}  // namespace iputrain::ir
