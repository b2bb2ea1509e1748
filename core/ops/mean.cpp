// mean: the average over attribute axes (empty = all; negative count from the end), dropping them
// unless keepdims = 1 (f32). Gradient: dy / count broadcast back over the reduced axes.
#include <limits>

#include <fmt/format.h>

#include "core/ops/reduce_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_mean {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  if (x.dtype != DType::F32) {
    throw OpError{fmt::format("cannot average {}", x.str()), "cast it to f32 first"};
  }
  return infer_reduce(x, attrs);
}

void forward(const KernelArgs& args) {
  // The mean of nothing is 0 / 0 = nan, as in NumPy and PyTorch.
  const int64_t count = reduce_count(*args.inputs[0].type, args.node.attrs);
  reduce_sum<float>(args, count > 0 ? 1.0f / static_cast<float>(count) : std::numeric_limits<float>::quiet_NaN());
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const ValueId x = g.node(id).inputs[0];
  const Attrs attrs = g.node(id).attrs;
  const int64_t count = reduce_count(g.type(x), attrs);
  // Scale before broadcasting: dy has as many elements as the output, usually far fewer.
  const ValueId scale =
      g.add_constant(count > 0 ? 1.0 / static_cast<double>(count) : 0.0, TensorType{DType::F32, {}});
  const ValueId scaled = g.add(OpKind::Mul, {dy, scale});
  return {unreduce(g, scaled, x, attrs)};
}

Cost cost(const Graph& g, const Node& node) {
  Cost c = elementwise_cost(g, node, 0.0);
  c.flops = static_cast<double>(g.type(node.inputs[0]).numel() + node.type.numel());
  return c;
}

}  // namespace impl_mean
}  // namespace

const OpDef kMeanOp{
    .kind = OpKind::Mean,
    .name = "mean",
    .arity = 1,
    .infer = impl_mean::infer,
    .forward = impl_mean::forward,
    .backward = impl_mean::backward,
    .cost = impl_mean::cost,
    .doc = "mean(x f32; axes = all, keepdims = 0): the average over axes (negative count from the end).",
    .edges =
        "the sum's rules, then divided by the count (a sum that overflows gives ±inf); the mean of an empty axis is "
        "nan (0 / 0), as in NumPy and PyTorch.",
    .cost_class = CostClass::Reduction,
};

}  // namespace iputrain::ir
