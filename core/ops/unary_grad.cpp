// unary_grad: (x f32, dy f32 of one shape) -> dy * f'(x), the gradient of every f32 unary op;
// attribute fn names the op and the op's own attributes follow (gelu's approximate form). It runs
// that op's OpDef::derivative: one fused kernel per function instead of a chain of elementwise
// nodes, and each derivative sits in its op's file. Not differentiable itself.
#include <fmt/format.h>

#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_unary_grad {

constexpr AttrSpec kAttrs[] = {{.name = "fn", .type = AttrType::String, .required = true}};

// The differentiated op, or nullptr when fn names none with a derivative.
const OpDef* function_of(const Attrs& attrs) {
  const OpKind kind = op_by_name(str_attr(attrs, "fn", ""));
  if (kind == OpKind::Count || op_def(kind).derivative == nullptr) {
    return nullptr;
  }
  return &op_def(kind);
}

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const OpDef* fn = function_of(attrs);
  if (fn == nullptr) {
    throw OpError{fmt::format("unknown function \"{}\"", str_attr(attrs, "fn", "")),
                  "fn names a unary op such as \"tanh\""};
  }
  // The function's attributes ride along: they are checked as the function's own.
  check_attrs(*fn, attrs);
  const TensorType& x = *in[0];
  const TensorType& dy = *in[1];
  if (x.dtype != DType::F32 || dy.dtype != DType::F32 || x.shape != dy.shape) {
    throw OpError{fmt::format("operands must be f32 of one shape, got {} and {}", x.str(), dy.str()), ""};
  }
  return x;
}

void forward(const KernelArgs& args) {
  const DerivativeFn derivative = function_of(args.node.attrs)->derivative;
  const float* x = args.inputs[0].f32();
  const float* dy = args.inputs[1].f32();
  float* dx = args.output.f32();
  // Blocks depend on the size only, so every element takes the same packet/scalar path whatever
  // the thread count: the result is deterministic.
  par::for_elements(args.output.numel(), 16,
                    [&](int64_t b, int64_t e) { derivative(args.node.attrs, x + b, dy + b, dx + b, e - b); });
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 16.0);
}

}  // namespace impl_unary_grad
}  // namespace

const OpDef kUnaryGradOp{
    .kind = OpKind::UnaryGrad,
    .name = "unary_grad",
    .arity = 2,
    .infer = impl_unary_grad::infer,
    .forward = impl_unary_grad::forward,
    .backward = nullptr,
    .cost = impl_unary_grad::cost,
    .doc =
        "unary_grad(x, dy; fn, and fn's attributes) = dy * f'(x) for the unary op named fn: the shared "
        "gradient.",
    .attrs = impl_unary_grad::kAttrs,
    .edges = "the gradient rules of the op named fn.",
};

}  // namespace iputrain::ir
