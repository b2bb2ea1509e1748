// Shared by the comparisons (less, greater, …, equal, not_equal): a broadcasting kernel over f32 or
// i32 (and bool for equal and not_equal) operands producing bool (one byte, 0/1). No gradient. Each
// op's row names the shape rule with its flag and the kernel with its comparison (std::less<>, …).
#pragma once

#include <functional>

#include <fmt/format.h>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

//! Shape rule: operands of one dtype (f32, i32, or bool when `kAllowBool`), bool result.
template <bool kAllowBool>
TensorType infer_compare(std::span<const TensorType* const> in, const Attrs&) {
  const DType d = in[0]->dtype;
  if (d != DType::F32 && d != DType::I32 && !(kAllowBool && d == DType::Bool)) {
    throw OpError{fmt::format("cannot compare {} tensors", dtype_name(d)), "cast them to f32 first"};
  }
  return infer_broadcast(in, DType::Bool);
}

//! out = cmp(a, b) with broadcasting, dispatched on the operands' dtype.
template <typename Cmp>
void compare_forward(const KernelArgs& args) {
  const Cmp cmp{};
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

}  // namespace iputrain::ir
