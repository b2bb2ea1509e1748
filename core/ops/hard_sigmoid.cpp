// hard_sigmoid: clip(0.2 x + 0.5, 0, 1) (f32), the Keras convention. Gradient: 0.2 dy inside
// (-2.5, 2.5), 0 outside.
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_hard_sigmoid {

void forward(const KernelArgs& args) {
  unary_blocks(args, 2, [&](const ConstArrayMap& x, ArrayMap& y) { y = (0.2f * x + 0.5f).max(0.0f).min(1.0f); });
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 3.0);
}

void derivative(const Attrs&, const float* x, const float* dy, float* dx, int64_t n) {
  GradBlock b(x, dy, dx, n);
  // Inclusive at the ends, as the gradient of a clip in PyTorch and TensorFlow.
  b.dx = (b.x >= -2.5f && b.x <= 2.5f).select(0.2f * b.dy, 0.0f);
}

}  // namespace impl_hard_sigmoid
}  // namespace

const OpDef kHardSigmoidOp{
    .kind = OpKind::HardSigmoid,
    .name = "hard_sigmoid",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = impl_hard_sigmoid::forward,
    .backward = unary_backward,
    .cost = impl_hard_sigmoid::cost,
    .doc = "hard_sigmoid(x) = clip(0.2 x + 0.5, 0, 1) (f32, Keras).",
    .inputs = kInputX,
    .derivative = impl_hard_sigmoid::derivative,
    .edges =
        "Keras' clip(0.2 x + 0.5, 0, 1), not PyTorch's x / 6 + 0.5; nan stays nan. Gradient 0.2 on "
        "[-2.5, 2.5], ends included (the gradient of a clip), 0 outside.",
};

}  // namespace iputrain::ir
