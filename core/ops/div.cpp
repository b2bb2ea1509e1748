// div: a / b with NumPy broadcasting (f32 only; IEEE semantics, so x / 0 is ±inf or nan).
#include <fmt/format.h>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_div {

TensorType infer(std::span<const TensorType* const> in, const Attrs&) {
  TensorType t = infer_broadcast(in);
  if (t.dtype != DType::F32) {
    throw OpError{fmt::format("cannot divide {} tensors", dtype_name(t.dtype)), "cast them to f32 first"};
  }
  return t;
}

void forward(const KernelArgs& args) {
  broadcast_binary<float, float, float>(args.inputs[0], args.inputs[1], args.output,
                                        [](float x, float y) { return x / y; });
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const ValueId a = g.node(id).inputs[0];
  const ValueId b = g.node(id).inputs[1];
  const Shape sa = g.type(a).shape;
  const Shape sb = g.type(b).shape;
  // d(a/b)/da = 1/b; d(a/b)/db = -a/b^2 = -dy * ((a/b) / b), which reuses the forward output and
  // divides before it multiplies, as PyTorch does (dy / b first would overflow for a tiny b).
  const ValueId da = reduce_to_shape(g, g.add(OpKind::Div, {dy, b}), sa);
  const ValueId db =
      g.add(OpKind::Neg, {reduce_to_shape(g, g.add(OpKind::Mul, {dy, g.add(OpKind::Div, {id, b})}), sb)});
  return {da, db};
}

// A division costs several multiply-adds on most hardware.
Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 4.0);
}

}  // namespace impl_div
}  // namespace

const OpDef kDivOp{
    .kind = OpKind::Div,
    .name = "div",
    .arity = 2,
    .infer = impl_div::infer,
    .forward = impl_div::forward,
    .backward = impl_div::backward,
    .cost = impl_div::cost,
    .doc = "a / b, NumPy broadcasting (f32).",
    .edges =
        "IEEE 754: x / 0 = ±inf, 0 / 0 = nan. The gradient for b is -dy * ((a / b) / b), PyTorch's "
        "order (no overflow for a tiny b).",
};

}  // namespace iputrain::ir
