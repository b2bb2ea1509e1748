// triu: the elements on and above diagonal k of every matrix (the last two dimensions), zeros
// elsewhere; any dtype. Gradient: triu of dy.
#include "core/ops/triangle_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_triu {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  return infer_triangle(in, attrs, "triu");
}

void forward(const KernelArgs& args) { triangle_forward(args, false); }

Cost cost(const Graph& g, const Node& node) { return elementwise_cost(g, node, 1.0); }

}  // namespace impl_triu
}  // namespace

const OpDef kTriuOp{
    .kind = OpKind::Triu,
    .name = "triu",
    .arity = 1,
    .infer = impl_triu::infer,
    .forward = impl_triu::forward,
    .backward = triangle_backward,
    .cost = impl_triu::cost,
    .doc = "triu(x; k = 0): element (i, j) of each matrix where j - i >= k, else 0 (any dtype).",
    .inputs = kInputX,
    .attrs = kTriangleAttrs,
    .edges = "moves values unchanged: nan and inf inside the triangle pass, outside it become 0.",
};

}  // namespace iputrain::ir
