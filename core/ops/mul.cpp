// mul: a * b with NumPy broadcasting (f32, i32).
#include <fmt/format.h>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_mul {

TensorType infer(std::span<const TensorType* const> in, const Attrs&) {
  return infer_arithmetic(in, "multiply");
}

void forward(const KernelArgs& args) {
  const Tensor& a = args.inputs[0];
  const Tensor& b = args.inputs[1];
  if (a.type->dtype == DType::I32) {
    // i32 wraps on overflow (two's complement, as NumPy and PyTorch): computed on the same bits
    // as uint32, whose arithmetic is defined to wrap.
    broadcast_binary<uint32_t, uint32_t, uint32_t>(a, b, args.output, [](uint32_t x, uint32_t y) { return x * y; });
  } else {
    broadcast_binary<float, float, float>(a, b, args.output, [](float x, float y) { return x * y; });
  }
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const ValueId a = g.node(id).inputs[0];
  const ValueId b = g.node(id).inputs[1];
  const Shape sa = g.type(a).shape;
  const Shape sb = g.type(b).shape;
  const ValueId da = reduce_to_shape(g, g.add(OpKind::Mul, {dy, b}), sa);
  const ValueId db = reduce_to_shape(g, g.add(OpKind::Mul, {dy, a}), sb);
  return {da, db};
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node);
}

}  // namespace impl_mul
}  // namespace

const OpDef kMulOp{
    .kind = OpKind::Mul,
    .name = "mul",
    .arity = 2,
    .infer = impl_mul::infer,
    .forward = impl_mul::forward,
    .backward = impl_mul::backward,
    .cost = impl_mul::cost,
    .doc = "a * b, NumPy broadcasting (f32, i32).",
    .edges =
        "f32: IEEE 754 (nan propagates, 0 * inf = nan, overflow gives ±inf). i32: exact, wrapping on "
        "overflow, as NumPy and PyTorch.",
};

}  // namespace iputrain::ir
