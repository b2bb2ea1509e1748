// softmax: exp(x - max) / sum(exp(x - max)) along attribute axis (default -1), f32. The maximum is subtracted
// first, so large inputs cannot overflow. Gradient: softmax_grad(y, dy).
#include "core/ops/softmax_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_softmax {

void forward(const KernelArgs& args) {
  softmax_kernel(args.inputs[0].f32(), args.output.f32(), axis_dims(args.output.shape(), args.node.attrs),
                 false);
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Attrs attrs{{"axis", g.node(id).attrs.get_int("axis", -1)}};
  return {g.add(OpKind::SoftmaxGrad, {id, dy}, attrs)};
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 14.0);
}

constexpr AttrSpec kAttrs[] = {{.name = "axis", .type = AttrType::Int, .number = -1}};

}  // namespace impl_softmax
}  // namespace

const OpDef kSoftmaxOp{
    .kind = OpKind::Softmax,
    .name = "softmax",
    .arity = 1,
    .infer = infer_softmax,
    .forward = impl_softmax::forward,
    .backward = impl_softmax::backward,
    .cost = impl_softmax::cost,
    .doc = "softmax(x; axis = -1) = exp(x) / sum(exp(x)) along axis (f32), max-subtracted.",
    .inputs = kInputX,
    .attrs = impl_softmax::kAttrs,
    .edges =
        "max-subtracted: large logits do not overflow; -inf gives 0; a row holding nan or +inf gives "
        "nan (PyTorch).",
};

}  // namespace iputrain::ir
