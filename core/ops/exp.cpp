// exp: e^x (f32). Gradient: unary_grad(fn = "exp") = dy * e^x.
#include <cmath>
#include <limits>

#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_exp {

// Eigen's vector exp overflows to inf from x = 88.38 on, though e^x stays finite up to
// ln(FLT_MAX) = 88.7228: those few inputs take std::exp, so every path gives the same values.
template <typename Out>
void exp_into(const ConstArrayMap& x, Out&& y) {
  y = x.exp();
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    if (y[i] == std::numeric_limits<float>::infinity() && x[i] < 88.8f) {
      y[i] = std::exp(x[i]);
    }
  }
}

void forward(const KernelArgs& args) {
  unary_blocks(args, 8, [&](const ConstArrayMap& x, ArrayMap& y) { exp_into(x, y); });
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 10.0);
}

void derivative(const Attrs&, const float* x, const float* dy, float* dx, int64_t n) {
  GradBlock b(x, dy, dx, n);
  exp_into(b.x, b.dx);
  b.dx *= b.dy;
}

}  // namespace impl_exp
}  // namespace

const OpDef kExpOp{
    .kind = OpKind::Exp,
    .name = "exp",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = impl_exp::forward,
    .backward = unary_backward,
    .cost = impl_exp::cost,
    .doc = "exp(x) = e^x (f32).",
    .inputs = kInputX,
    .derivative = impl_exp::derivative,
    .edges =
        "exp(-inf) = 0, exp(inf) = inf; finite up to ln(FLT_MAX) = 88.72, inf beyond; nan stays nan. "
        "The same values on every path (vector or scalar).",
};

}  // namespace iputrain::ir
