// erf: the Gauss error function, erf(x) = 2/sqrt(pi) * integral of e^(-t^2) from 0 to x (f32),
// with Eigen's vectorised erf. Gradient: unary_grad(fn = "erf") = dy * 2/sqrt(pi) * e^(-x^2).
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_erf {

constexpr float kTwoOverSqrtPi = 1.12837916709551257f;

void forward(const KernelArgs& args) {
  unary_blocks(args, 12, [&](const ConstArrayMap& x, ArrayMap& y) { y = x.erf(); });
}

Cost cost(const Graph& g, const Node& node) { return elementwise_cost(g, node, 12.0); }

void derivative(const Attrs&, const float* x, const float* dy, float* dx, int64_t n) {
  GradBlock b(x, dy, dx, n);
  b.dx = kTwoOverSqrtPi * b.dy * (-b.x.square()).exp();
}

}  // namespace impl_erf
}  // namespace

const OpDef kErfOp{
    .kind = OpKind::Erf,
    .name = "erf",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = impl_erf::forward,
    .backward = unary_backward,
    .cost = impl_erf::cost,
    .doc = "erf(x) = 2/sqrt(pi) * integral of e^(-t^2) from 0 to x, the Gauss error function (f32).",
    .inputs = kInputX,
    .derivative = impl_erf::derivative,
    .edges = "±1 at ±inf; nan stays nan.",
};

}  // namespace iputrain::ir
