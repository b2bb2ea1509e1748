// log_softmax: x - max - log(sum(exp(x - max))) along attribute axis (default -1), f32. Stable for any input
// range. Gradient: log_softmax_grad(y, dy).
#include "core/ops/softmax_util.hpp"

namespace iputrain::ir {

const OpDef kLogSoftmaxOp{
    .kind = OpKind::LogSoftmax,
    .name = "log_softmax",
    .arity = 1,
    .infer = infer_softmax,
    .forward = softmax_forward<true>,
    .backward = softmax_backward<true>,
    .cost = elementwise_cost_of<14>,
    .doc = "log_softmax(x; axis = -1) = x - logsumexp(x) along axis (f32), stable.",
    .inputs = kInputX,
    .attrs = kSoftmaxAttrs,
    .edges =
        "max-subtracted: large logits do not overflow; -inf gives -inf; a row holding nan or +inf "
        "gives nan (PyTorch).",
};

}  // namespace iputrain::ir
