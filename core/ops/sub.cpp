// sub: a - b with NumPy broadcasting (f32, i32).
#include <fmt/format.h>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_sub {

TensorType infer(std::span<const TensorType* const> in, const Attrs&) {
  return infer_arithmetic(in, "subtract");
}

void forward(const KernelArgs& args) {
  const Tensor& a = args.inputs[0];
  const Tensor& b = args.inputs[1];
  if (a.type->dtype == DType::I32) {
    // i32 wraps on overflow (two's complement, as NumPy and PyTorch): computed on the same bits
    // as uint32, whose arithmetic is defined to wrap.
    broadcast_binary<uint32_t, uint32_t, uint32_t>(a, b, args.output, [](uint32_t x, uint32_t y) { return x - y; });
  } else {
    broadcast_binary<float, float, float>(a, b, args.output, [](float x, float y) { return x - y; });
  }
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const ValueId a = g.node(id).inputs[0];
  const ValueId b = g.node(id).inputs[1];
  const Shape sa = g.type(a).shape;
  const Shape sb = g.type(b).shape;
  const ValueId da = reduce_to_shape(g, dy, sa);
  // Reducing before negating touches fewer elements when b was broadcast.
  const ValueId db = g.add(OpKind::Neg, {reduce_to_shape(g, dy, sb)});
  return {da, db};
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node);
}

}  // namespace impl_sub
}  // namespace

const OpDef kSubOp{
    .kind = OpKind::Sub,
    .name = "sub",
    .arity = 2,
    .infer = impl_sub::infer,
    .forward = impl_sub::forward,
    .backward = impl_sub::backward,
    .cost = impl_sub::cost,
    .doc = "a - b, NumPy broadcasting (f32, i32).",
    .edges =
        "f32: IEEE 754 (nan propagates, inf - inf = nan, overflow gives ±inf). i32: exact, wrapping "
        "on overflow, as NumPy and PyTorch.",
};

}  // namespace iputrain::ir
