// custom_grad: the gradient of a registered op (core/ops/custom.cpp) with respect to its operand
// `input`: operands (the forward operands..., the forward result, dy), shaped like that operand,
// computed by the registered op's backward function. Not differentiable itself.
#include <fmt/format.h>

#include <array>

#include "core/ops/custom_registry.hpp"
#include "core/ops/op_util.hpp"
#include "iputrain/error.hpp"

namespace iputrain::ir {

namespace {
namespace impl_custom_grad {

const CustomOp& registered(const Attrs& attrs) {
  const CustomOp* op = find_custom_op(attrs.get_str("op"));
  if (op == nullptr || !op->backward) {
    throw OpError{fmt::format("no differentiable op named '{}' is registered", attrs.get_str("op"))};
  }
  return *op;
}

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const CustomOp& op = registered(attrs);
  const int64_t k = attrs.get_int("input");
  if (in.size() != op.inputs.size() + 2 || k >= static_cast<int64_t>(op.inputs.size())) {
    throw OpError{
        fmt::format("{}'s gradient takes its {} operands, its result and dy, and an input below {}; got {} "
                    "operands and input {}",
                    op.name, op.inputs.size(), op.inputs.size(), in.size(), k)};
  }
  return *in[static_cast<size_t>(k)];
}

void forward(const KernelArgs& args) {
  const CustomOp& op = registered(args.node.attrs);
  const size_t n = args.inputs.size() - 2;
  const auto ins = custom_inputs(args, n);
  const CustomAttributes attributes = custom_attributes(args.node.attrs, op);
  const CustomGradCall call{std::span<const CustomInput>(ins.data(), n),
                            custom_input(args.inputs[n]),
                            custom_input(args.inputs[n + 1]),
                            static_cast<int32_t>(args.node.attrs.get_int("input")),
                            {args.output.f32(), args.output.shape(), args.output.numel()},
                            attributes};
  try {
    op.backward(call);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(ErrorKind::Runtime, fmt::format("{}'s gradient: {}", op.name, e.what()), args.node.span,
                "the registered op's gradient kernel failed");
  }
}

Cost cost(const Graph& g, const Node& node) { return elementwise_cost(g, node, 2.0); }

constexpr AttrSpec kAttrs[] = {{.name = "op", .type = AttrType::String, .required = true},
                               {.name = "input", .type = AttrType::Int, .required = true, .min = 0}};

}  // namespace impl_custom_grad
}  // namespace

const OpDef kCustomGradOp{
    .kind = OpKind::CustomGrad,
    .name = "custom_grad",
    .arity = -1,
    .infer = impl_custom_grad::infer,
    .forward = impl_custom_grad::forward,
    .backward = nullptr,
    .cost = impl_custom_grad::cost,
    .doc = "custom_grad(x..., y, dy; op, input): the gradient of registered op `op` with respect to operand `input`.",
    .attrs = impl_custom_grad::kAttrs,
    .edges = "what the registered gradient kernel computes.",
};

}  // namespace iputrain::ir
