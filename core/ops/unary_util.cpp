#include "core/ops/unary_util.hpp"

#include <fmt/format.h>

namespace iputrain::ir {

std::optional<UnaryFn> unary_fn(std::string_view fn, std::string_view approximate) {
  struct Entry {
    std::string_view name;
    UnaryFn fn;
  };
  static constexpr Entry kEntries[] = {
      {"exp", UnaryFn::Exp},     {"log", UnaryFn::Log},
      {"sqrt", UnaryFn::Sqrt},   {"rsqrt", UnaryFn::Rsqrt},
      {"abs", UnaryFn::Abs},     {"square", UnaryFn::Square},
      {"tanh", UnaryFn::Tanh},   {"sigmoid", UnaryFn::Sigmoid},
      {"swish", UnaryFn::Swish}, {"hard_sigmoid", UnaryFn::HardSigmoid},
  };
  if (fn == "gelu") {
    if (approximate == "none" || approximate.empty()) {
      return UnaryFn::GeluErf;
    }
    if (approximate == "tanh") {
      return UnaryFn::GeluTanh;
    }
    return std::nullopt;
  }
  for (const Entry& e : kEntries) {
    if (e.name == fn) {
      return e.fn;
    }
  }
  return std::nullopt;
}

TensorType infer_unary_f32(std::span<const TensorType* const> in, const Attrs&) {
  require_f32(*in[0]);
  return *in[0];
}

std::vector<ValueId> unary_backward(Graph& g, ValueId id, ValueId dy) {
  const Node& n = g.node(id);
  Attrs attrs{{"fn", std::string(op_name(n.op))}};
  if (n.op == OpKind::Gelu) {
    attrs.set("approximate", std::string(str_attr(n.attrs, "approximate", "none")));
  }
  const ValueId x = n.inputs[0];
  return {g.add(OpKind::UnaryGrad, {x, dy}, std::move(attrs))};
}

}  // namespace iputrain::ir
