// unary_grad: (x f32, dy f32 of one shape) -> dy * f'(x), the gradient of every f32 unary op;
// attribute fn names the op (exp, log, …, gelu with its approximate form). One fused kernel per
// function instead of a chain of elementwise nodes. Not differentiable itself.
#include <fmt/format.h>

#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const std::string_view fn = str_attr(attrs, "fn", "");
  if (!unary_fn(fn, str_attr(attrs, "approximate", "none"))) {
    throw OpError{fmt::format("unknown function \"{}\"", fn), "fn names a unary op such as \"tanh\""};
  }
  const TensorType& x = *in[0];
  const TensorType& dy = *in[1];
  if (x.dtype != DType::F32 || dy.dtype != DType::F32 || x.shape != dy.shape) {
    throw OpError{fmt::format("operands must be f32 of one shape, got {} and {}", x.str(), dy.str()), ""};
  }
  return x;
}

void forward(const KernelArgs& args) {
  const UnaryFn fn =
      *unary_fn(args.node.attrs.get_str("fn"), str_attr(args.node.attrs, "approximate", "none"));
  const float* pdy = args.inputs[1].f32();
  const float* px = args.inputs[0].f32();
  float* pdx = args.output.f32();
  par::for_elements(args.output.numel(), 16, [&](int64_t b, int64_t e) {
    const ConstArrayMap x(px + b, e - b);
    const ConstArrayMap dy(pdy + b, e - b);
    ArrayMap dx(pdx + b, e - b);
    switch (fn) {
      case UnaryFn::Exp:
        dx = dy * x.exp();
        break;
      case UnaryFn::Log:
        dx = dy / x;
        break;
      case UnaryFn::Sqrt:
        dx = 0.5f * dy * x.rsqrt();
        break;
      case UnaryFn::Rsqrt:
        dx = -0.5f * dy * x.rsqrt() / x;
        break;
      case UnaryFn::Abs:
        dx = dy * x.sign();
        break;
      case UnaryFn::Square:
        dx = 2.0f * dy * x;
        break;
      case UnaryFn::Tanh:
        dx = dy * (1.0f - x.tanh().square());
        break;
      case UnaryFn::Sigmoid:
        dx = dy * x.logistic() * (1.0f - x.logistic());
        break;
      case UnaryFn::Swish:
        dx = dy * x.logistic() * (1.0f + x * (1.0f - x.logistic()));
        break;
      case UnaryFn::HardSigmoid:
        dx = (x > -2.5f && x < 2.5f).select(0.2f * dy, 0.0f);
        break;
      case UnaryFn::GeluErf:
        dx = dy * (0.5f * (1.0f + (x * kSqrtHalf).erf()) + x * kInvSqrt2Pi * (-0.5f * x.square()).exp());
        break;
      case UnaryFn::GeluTanh: {
        // d/dx 0.5 x (1 + t), t = tanh(u), u = c (x + a x^3): 0.5 (1 + t) + 0.5 x (1 - t^2) c (1 + 3 a x^2).
        const auto t = (kSqrt2OverPi * (x + kGeluCubic * x.cube())).tanh();
        dx = dy * (0.5f * (1.0f + t) +
                   0.5f * x * (1.0f - t.square()) * kSqrt2OverPi * (1.0f + 3.0f * kGeluCubic * x.square()));
        break;
      }
    }
  });
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 16.0);
}

}  // namespace

const OpDef kUnaryGradOp{
    .kind = OpKind::UnaryGrad,
    .name = "unary_grad",
    .arity = 2,
    .infer = infer,
    .forward = forward,
    .backward = nullptr,
    .cost = cost,
    .doc = "unary_grad(x, dy; fn, approximate) = dy * f'(x) for the unary op named fn: the shared gradient.",
};

}  // namespace iputrain::ir
