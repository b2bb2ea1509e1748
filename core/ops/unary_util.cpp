#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

TensorType infer_unary_f32(std::span<const TensorType* const> in, const Attrs&) {
  require_f32(*in[0]);
  return *in[0];
}

std::vector<ValueId> unary_backward(Graph& g, ValueId id, ValueId dy) {
  const Node& n = g.node(id);
  Attrs attrs{{"fn", std::string(op_name(n.op))}};
  for (const auto& [key, value] : n.attrs.items()) {
    attrs.set(key, value);
  }
  const ValueId x = n.inputs[0];
  return {g.add(OpKind::UnaryGrad, {x, dy}, std::move(attrs))};
}

}  // namespace iputrain::ir
