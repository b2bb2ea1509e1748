// softmax_grad: (y, dy) -> y * (dy - sum(dy * y)) along attribute axis (default -1), f32. The gradient of
// softmax given its output y. Not differentiable.
#include "core/ops/softmax_util.hpp"

namespace iputrain::ir {

const OpDef kSoftmaxGradOp{
    .kind = OpKind::SoftmaxGrad,
    .name = "softmax_grad",
    .arity = 2,
    .infer = infer_softmax,
    .forward = softmax_grad_forward<false>,
    .backward = nullptr,
    .cost = elementwise_cost_of<4>,
    .doc = "softmax_grad(y, dy; axis) = y * (dy - sum(dy * y)): the gradient of softmax.",
    .edges = "as softmax's.",
};

}  // namespace iputrain::ir
