// log_softmax: x - max - log(sum(exp(x - max))) along attribute axis (default -1), f32. Stable for any input
// range. Gradient: log_softmax_grad(y, dy).
#include "core/ops/softmax_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_log_softmax {

void forward(const KernelArgs& args) {
  softmax_kernel(args.inputs[0].f32(), args.output.f32(), axis_dims(args.output.shape(), args.node.attrs),
                 true);
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Attrs attrs{{"axis", g.node(id).attrs.get_int("axis", -1)}};
  return {g.add(OpKind::LogSoftmaxGrad, {id, dy}, attrs)};
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 14.0);
}

constexpr AttrSpec kAttrs[] = {{.name = "axis", .type = AttrType::Int, .number = -1}};

}  // namespace impl_log_softmax
}  // namespace

const OpDef kLogSoftmaxOp{
    .kind = OpKind::LogSoftmax,
    .name = "log_softmax",
    .arity = 1,
    .infer = infer_softmax,
    .forward = impl_log_softmax::forward,
    .backward = impl_log_softmax::backward,
    .cost = impl_log_softmax::cost,
    .doc = "log_softmax(x; axis = -1) = x - logsumexp(x) along axis (f32), stable.",
    .inputs = kInputX,
    .attrs = impl_log_softmax::kAttrs,
    .edges =
        "max-subtracted: large logits do not overflow; -inf gives -inf; a row holding nan or +inf "
        "gives nan (PyTorch).",
};

}  // namespace iputrain::ir
