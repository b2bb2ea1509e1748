// gelu: x * Phi(x) (f32), Phi the standard normal CDF. Attribute approximate = "none" (default)
// uses the exact erf form 0.5 x (1 + erf(x / sqrt 2)); "tanh" the approximation
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))). Gradient: unary_grad with the same form.
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_gelu {

constexpr std::string_view kExact = "none";
constexpr std::string_view kForms[] = {kExact, "tanh"};
constexpr AttrSpec kAttrs[] = {{.name = "approximate", .type = AttrType::String, .text = kExact, .choices = kForms}};

bool tanh_form(const Attrs& attrs) { return str_attr(attrs, "approximate", kExact) == "tanh"; }

void forward(const KernelArgs& args) {
  const bool tanh = tanh_form(args.node.attrs);
  unary_blocks(args, 16, [&](const ConstArrayMap& x, ArrayMap& y) {
    if (tanh) {
      y = 0.5f * x * (1.0f + (kSqrt2OverPi * (x + kGeluCubic * x.cube())).tanh());
    } else {
      y = 0.5f * x * (1.0f + (x * kSqrtHalf).erf());
    }
  });
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 16.0);
}

void derivative(const Attrs& attrs, const float* x, const float* dy, float* dx, int64_t n) {
  GradBlock b(x, dy, dx, n);
  if (!tanh_form(attrs)) {
    b.dx = b.dy * (0.5f * (1.0f + (b.x * kSqrtHalf).erf()) + b.x * kInvSqrt2Pi * (-0.5f * b.x.square()).exp());
    return;
  }
  // d/dx 0.5 x (1 + t), t = tanh(u), u = c (x + a x^3): 0.5 (1 + t) + 0.5 x (1 - t^2) c (1 + 3 a x^2).
  const auto t = (kSqrt2OverPi * (b.x + kGeluCubic * b.x.cube())).tanh();
  b.dx = b.dy * (0.5f * (1.0f + t) +
                 0.5f * b.x * (1.0f - t.square()) * kSqrt2OverPi * (1.0f + 3.0f * kGeluCubic * b.x.square()));
}

}  // namespace impl_gelu
}  // namespace

const OpDef kGeluOp{
    .kind = OpKind::Gelu,
    .name = "gelu",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = impl_gelu::forward,
    .backward = unary_backward,
    .cost = impl_gelu::cost,
    .doc = "gelu(x; approximate = \"none\" | \"tanh\") = x * Phi(x) (f32); \"none\" is the exact erf form.",
    .inputs = kInputX,
    .attrs = impl_gelu::kAttrs,
    .derivative = impl_gelu::derivative,
    .edges = "gelu(inf) = inf, gelu(-inf) = 0 (both forms); nan stays nan.",
};

}  // namespace iputrain::ir
