// log_softmax_grad: (y, dy) -> dy - exp(y) * sum(dy) along attribute axis (default -1), f32. The gradient of
// log_softmax given its output y. Not differentiable.
#include "core/ops/softmax_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_log_softmax_grad {

void forward(const KernelArgs& args) {
  softmax_grad_kernel(args.inputs[0].f32(), args.inputs[1].f32(), args.output.f32(),
                      axis_dims(args.output.shape(), args.node.attrs), true);
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 12.0);
}

}  // namespace impl_log_softmax_grad
}  // namespace

const OpDef kLogSoftmaxGradOp{
    .kind = OpKind::LogSoftmaxGrad,
    .name = "log_softmax_grad",
    .arity = 2,
    .infer = infer_softmax,
    .forward = impl_log_softmax_grad::forward,
    .backward = nullptr,
    .cost = impl_log_softmax_grad::cost,
    .doc = "log_softmax_grad(y, dy; axis) = dy - exp(y) * sum(dy): the gradient of log_softmax.",
    .edges = "as log_softmax's.",
};

}  // namespace iputrain::ir
