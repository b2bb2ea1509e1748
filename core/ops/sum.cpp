// sum: the sum over attribute axes (empty = all; negative count from the end), dropping them
// unless keepdims = 1 (f32, i32). Gradient: dy broadcast back over the reduced axes.
#include <fmt/format.h>

#include "core/ops/reduce_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_sum {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  if (x.dtype != DType::F32 && x.dtype != DType::I32) {
    throw OpError{fmt::format("cannot sum {}", x.str()), "cast it to i32 or f32 first"};
  }
  return infer_reduce(x, attrs);
}

void forward(const KernelArgs& args) {
  if (args.inputs[0].type->dtype == DType::I32) {
    reduce_sum<uint32_t>(args, 1);  // i32 wraps on overflow: the same bits summed as uint32
  } else {
    reduce_sum<float>(args, 1.0f);
  }
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node& n = g.node(id);
  const ValueId x = n.inputs[0];
  const Attrs attrs = n.attrs;
  return {unreduce(g, dy, x, attrs)};
}

Cost cost(const Graph& g, const Node& node) {
  Cost c = elementwise_cost(g, node, 0.0);
  c.flops = static_cast<double>(g.type(node.inputs[0]).numel());
  return c;
}

}  // namespace impl_sum
}  // namespace

const OpDef kSumOp{
    .kind = OpKind::Sum,
    .name = "sum",
    .arity = 1,
    .infer = impl_sum::infer,
    .forward = impl_sum::forward,
    .backward = impl_sum::backward,
    .cost = impl_sum::cost,
    .doc = "sum(x f32|i32; axes = all, keepdims = 0): the sum over axes (negative count from the end).",
    .edges =
        "f32: nan propagates, overflow gives ±inf, inf + -inf = nan; added in an order fixed by the "
        "shape. i32 wraps on overflow, as NumPy's sum(dtype = int32) (NumPy's default and PyTorch "
        "widen to int64).",
    .cost_class = CostClass::Reduction,
};

}  // namespace iputrain::ir
