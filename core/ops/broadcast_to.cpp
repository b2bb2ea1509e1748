// broadcast_to: repeats x along dimensions of size 1 and new leading dimensions (attribute shape).
// Gradient: the sum over the broadcast dimensions.
#include <fmt/format.h>

#include "core/ops/element_bits.hpp"
#include "core/ops/reduce_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_broadcast_to {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  const Shape& target = ints_attr(attrs, "shape");
  const auto b = broadcast_shapes(x.shape, target);
  if (!b || *b != target) {
    throw OpError{fmt::format("cannot broadcast {} to {}", x.str(), shape_str(target)),
                  "each dimension must equal the target's or be 1"};
  }
  TensorType t{x.dtype, target};
  check_rank(t);
  return t;
}

void forward(const KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  with_element_bits(x.type->dtype, [&](auto bits) { broadcast_copy<decltype(bits)>(x, args.output); });
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Shape s = g.type(g.node(id).inputs[0]).shape;
  return {reduce_to_shape(g, dy, s)};
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 0.0);
}

}  // namespace impl_broadcast_to
}  // namespace

const OpDef kBroadcastToOp{
    .kind = OpKind::BroadcastTo,
    .name = "broadcast_to",
    .arity = 1,
    .infer = impl_broadcast_to::infer,
    .forward = impl_broadcast_to::forward,
    .backward = impl_broadcast_to::backward,
    .cost = impl_broadcast_to::cost,
    .doc = "broadcast_to(x; shape) repeats x along size-1 and new leading dimensions (any dtype).",
    .edges = "copies values unchanged; its gradient sums the copies.",
};

}  // namespace iputrain::ir
