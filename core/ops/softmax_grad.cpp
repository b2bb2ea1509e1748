// softmax_grad: (y, dy) -> y * (dy - sum(dy * y)) along attribute axis (default -1), f32. The gradient of
// softmax given its output y. Not differentiable.
#include "core/ops/softmax_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_softmax_grad {

void forward(const KernelArgs& args) {
  softmax_grad_kernel(args.inputs[0].f32(), args.inputs[1].f32(), args.output.f32(),
                      axis_dims(args.output.shape(), args.node.attrs), false);
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 4.0);
}

}  // namespace impl_softmax_grad
}  // namespace

const OpDef kSoftmaxGradOp{
    .kind = OpKind::SoftmaxGrad,
    .name = "softmax_grad",
    .arity = 2,
    .infer = infer_softmax,
    .forward = impl_softmax_grad::forward,
    .backward = nullptr,
    .cost = impl_softmax_grad::cost,
    .doc = "softmax_grad(y, dy; axis) = y * (dy - sum(dy * y)): the gradient of softmax.",
    .edges = "as softmax's.",
};

}  // namespace iputrain::ir
