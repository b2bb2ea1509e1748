// add: a + b with NumPy broadcasting.
#include "core/ops/op_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_add {

TensorType infer(std::span<const TensorType* const> in, const Attrs&) {
  return infer_arithmetic(in, "add");
}

void forward(const KernelArgs& args) {
  const Tensor& a = args.inputs[0];
  const Tensor& b = args.inputs[1];
  if (a.type->dtype == DType::I32) {
    // i32 wraps on overflow (two's complement, as NumPy and PyTorch): computed on the same bits
    // as uint32, whose arithmetic is defined to wrap.
    broadcast_binary<uint32_t, uint32_t, uint32_t>(a, b, args.output, [](uint32_t x, uint32_t y) { return x + y; });
  } else {
    broadcast_binary<float, float, float>(a, b, args.output, [](float x, float y) { return x + y; });
  }
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const ValueId a = g.node(id).inputs[0];
  const ValueId b = g.node(id).inputs[1];
  const Shape sa = g.type(a).shape;
  const Shape sb = g.type(b).shape;
  return {reduce_to_shape(g, dy, sa), reduce_to_shape(g, dy, sb)};
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node);
}

}  // namespace impl_add
}  // namespace

const OpDef kAddOp{
    .kind = OpKind::Add,
    .name = "add",
    .arity = 2,
    .infer = impl_add::infer,
    .forward = impl_add::forward,
    .backward = impl_add::backward,
    .cost = impl_add::cost,
    .doc = "a + b, NumPy broadcasting (f32, i32).",
    .edges =
        "f32: IEEE 754 (nan propagates, inf + -inf = nan, overflow gives ±inf). i32: exact, wrapping "
        "on overflow (two's complement), as NumPy and PyTorch.",
};

}  // namespace iputrain::ir
