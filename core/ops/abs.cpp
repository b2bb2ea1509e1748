// abs: |x| (f32). Gradient: dy * sign(x), 0 at x = 0.
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_abs {

void forward(const KernelArgs& args) {
  unary_blocks(args, 1, [&](const ConstArrayMap& x, ArrayMap& y) { y = x.abs(); });
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 1.0);
}

void derivative(const Attrs&, const float* x, const float* dy, float* dx, int64_t n) {
  GradBlock b(x, dy, dx, n);
  // sign(x): 0 at 0 and at nan, as PyTorch's gradient of abs.
  b.dx = b.dy * ((b.x > 0.0f).cast<float>() - (b.x < 0.0f).cast<float>());
}

}  // namespace impl_abs
}  // namespace

const OpDef kAbsOp{
    .kind = OpKind::Abs,
    .name = "abs",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = impl_abs::forward,
    .backward = unary_backward,
    .cost = impl_abs::cost,
    .doc = "abs(x) = |x| (f32); gradient sign(x), 0 at 0.",
    .inputs = kInputX,
    .derivative = impl_abs::derivative,
    .edges = "abs(nan) = nan, abs(-0) = 0. Gradient dy * sign(x): 0 at 0 and at nan (PyTorch).",
};

}  // namespace iputrain::ir
