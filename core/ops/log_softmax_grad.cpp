// log_softmax_grad: (y, dy) -> dy - exp(y) * sum(dy) along attribute axis (default -1), f32. The gradient of
// log_softmax given its output y. Not differentiable.
#include "core/ops/softmax_util.hpp"

namespace iputrain::ir {

const OpDef kLogSoftmaxGradOp{
    .kind = OpKind::LogSoftmaxGrad,
    .name = "log_softmax_grad",
    .arity = 2,
    .infer = infer_softmax,
    .forward = softmax_grad_forward<true>,
    .backward = nullptr,
    .cost = elementwise_cost_of<12>,
    .doc = "log_softmax_grad(y, dy; axis) = dy - exp(y) * sum(dy): the gradient of log_softmax.",
    .edges = "as log_softmax's.",
};

}  // namespace iputrain::ir
