// sigmoid: 1 / (1 + e^-x) (f32), computed without overflow for large |x|. Gradient:
// dy * s * (1 - s).
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_sigmoid {

void forward(const KernelArgs& args) {
  unary_blocks(args, 8, [&](const ConstArrayMap& x, ArrayMap& y) { y = x.logistic(); });
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 12.0);
}

void derivative(const Attrs&, const float* x, const float* dy, float* dx, int64_t n) {
  GradBlock b(x, dy, dx, n);
  b.dx = b.dy * b.x.logistic() * (1.0f - b.x.logistic());
}

}  // namespace impl_sigmoid
}  // namespace

const OpDef kSigmoidOp{
    .kind = OpKind::Sigmoid,
    .name = "sigmoid",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = impl_sigmoid::forward,
    .backward = unary_backward,
    .cost = impl_sigmoid::cost,
    .doc = "sigmoid(x) = 1 / (1 + e^-x) (f32), stable for large |x|.",
    .inputs = kInputX,
    .derivative = impl_sigmoid::derivative,
    .edges = "0 at -inf, 1 at inf, no overflow for large |x|; nan stays nan.",
};

}  // namespace iputrain::ir
