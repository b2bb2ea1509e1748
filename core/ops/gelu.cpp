// gelu: x * Phi(x) (f32), Phi the standard normal CDF. Attribute approximate = "none" (default)
// uses the exact erf form 0.5 x (1 + erf(x / sqrt 2)); "tanh" the approximation
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))). Gradient: unary_grad with the same form.
#include <fmt/format.h>

#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const std::string_view approximate = str_attr(attrs, "approximate", "none");
  if (approximate != "none" && approximate != "tanh") {
    throw OpError{fmt::format("approximate must be \"none\" or \"tanh\", got \"{}\"", approximate),
                  "\"none\" is the exact erf form, \"tanh\" the tanh approximation"};
  }
  return infer_unary_f32(in, attrs);
}

void forward(const KernelArgs& args) {
  const bool tanh_form = str_attr(args.node.attrs, "approximate", "none") == "tanh";
  unary_blocks(args, 16, [&](const ConstArrayMap& x, ArrayMap& y) {
    if (tanh_form) {
      y = 0.5f * x * (1.0f + (kSqrt2OverPi * (x + kGeluCubic * x.cube())).tanh());
    } else {
      y = 0.5f * x * (1.0f + (x * kSqrtHalf).erf());
    }
  });
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 16.0);
}

}  // namespace

const OpDef kGeluOp{
    .kind = OpKind::Gelu,
    .name = "gelu",
    .arity = 1,
    .infer = infer,
    .forward = forward,
    .backward = unary_backward,
    .cost = cost,
    .doc = "gelu(x; approximate = \"none\" | \"tanh\") = x * Phi(x) (f32); \"none\" is the exact erf form.",
};

}  // namespace iputrain::ir
