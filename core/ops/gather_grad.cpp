// gather_grad: (indices i32, dy f32) -> f32[shape], zeros into which every slice of dy is added at
// the row its index names (repeated indices accumulate): the gradient of gather with respect to
// params. Linear in dy, so its own gradient (for dy) is a gather.
#include <fmt/format.h>

#include "core/ops/gather_util.hpp"
#include "core/ops/reduce_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_gather_grad {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType params{DType::F32, ints_attr(attrs, "shape")};
  const TensorType expect = infer_gather(params, *in[0], attrs);
  if (*in[1] != expect) {
    throw OpError{fmt::format("dy must be {} for indices {} into {}, got {}", expect.str(), in[0]->str(),
                              params.str(), in[1]->str()),
                  ""};
  }
  return params;
}

void forward(const KernelArgs& args) {
  const Tensor& indices = args.inputs[0];
  const float* dy = args.inputs[1].f32();
  float* out = args.output.f32();
  const auto axis =
      static_cast<size_t>(*normalize_axis(args.node.attrs.get_int("axis", 0), args.output.type->rank()));
  const GatherDims d = gather_dims(args.output.shape(), axis);
  const int64_t n = indices.numel();
  const int32_t* idx = indices.i32();
  const int64_t total = args.output.numel();
  for (int64_t i = 0; i < total; ++i) {
    out[i] = 0.0f;
  }
  for (int64_t o = 0; o < d.outer; ++o) {
    for (int64_t j = 0; j < n; ++j) {
      const int32_t r = idx[j];
      if (r < 0 || r >= d.rows) {
        throw_bad_index(args.node, r, d.rows);
      }
      float* dst = out + (o * d.rows + r) * d.inner;
      const float* src = dy + (o * n + j) * d.inner;
      for (int64_t k = 0; k < d.inner; ++k) {
        dst[k] += src[k];
      }
    }
  }
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);
  const ValueId g_dy = g.add(OpKind::Gather, {dy, n.inputs[0]}, Attrs{{"axis", n.attrs.get_int("axis", 0)}});
  return {kNoValue, g_dy};
}

Cost cost(const Graph& g, const Node& node) {
  Cost c = elementwise_cost(g, node, 0.0);
  c.flops = static_cast<double>(g.type(node.inputs[1]).numel());
  return c;
}

}  // namespace impl_gather_grad
}  // namespace

const OpDef kGatherGradOp{
    .kind = OpKind::GatherGrad,
    .name = "gather_grad",
    .arity = 2,
    .infer = impl_gather_grad::infer,
    .forward = impl_gather_grad::forward,
    .backward = impl_gather_grad::backward,
    .cost = impl_gather_grad::cost,
    .doc =
        "gather_grad(indices, dy; axis, shape): scatter-add of dy into zeros of shape; the gradient of "
        "gather.",
    .edges = "duplicate indices add.",
    .cost_class = CostClass::Rearrange,
};

}  // namespace iputrain::ir
