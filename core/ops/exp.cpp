// exp: e^x (f32). Gradient: unary_grad(fn = "exp") = dy * e^x.
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {

void forward(const KernelArgs& args) {
  unary_blocks(args, 8, [&](const ConstArrayMap& x, ArrayMap& y) { y = x.exp(); });
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 10.0);
}

void derivative(const Attrs&, const float* x, const float* dy, float* dx, int64_t n) {
  GradBlock b(x, dy, dx, n);
  b.dx = b.dy * b.x.exp();
}

}  // namespace

const OpDef kExpOp{
    .kind = OpKind::Exp,
    .name = "exp",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = forward,
    .backward = unary_backward,
    .cost = cost,
    .doc = "exp(x) = e^x (f32).",
    .inputs = kInputX,
    .derivative = derivative,
};

}  // namespace iputrain::ir
