// slice_grad: (dy f32) -> f32[shape], zeros with dy written at the window that slice(begin, end,
// strides) reads from a tensor of attribute shape: the gradient of slice. Linear, so its own
// gradient is that slice.
#include <fmt/format.h>

#include "core/ops/slice_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_slice_grad {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& dy = *in[0];
  require_f32(dy, "dy");
  const Shape& shape = ints_attr(attrs, "shape");
  const Shape window = slice_shape(slice_spec(shape, attrs));
  if (window != dy.shape) {
    throw OpError{
        fmt::format("dy is {} but the slice of {} is {}", dy.str(), shape_str(shape), shape_str(window)), ""};
  }
  return TensorType{DType::F32, shape};
}

void forward(const KernelArgs& args) {
  const Shape& shape = args.output.shape();
  float* out = args.output.f32();
  const float* dy = args.inputs[0].f32();
  const int64_t n = args.output.numel();
  for (int64_t i = 0; i < n; ++i) {
    out[i] = 0.0f;
  }
  for_each_sliced(slice_spec(shape, args.node.attrs), shape, [&](int64_t i, int64_t j) { out[j] = dy[i]; });
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  Attrs attrs;
  for (const auto& [k, v] : g.node(id).attrs.items()) {
    if (k != "shape") {
      attrs.set(k, v);
    }
  }
  return {g.add(OpKind::Slice, {dy}, std::move(attrs))};
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 0.0);
}

}  // namespace impl_slice_grad
}  // namespace

const OpDef kSliceGradOp{
    .kind = OpKind::SliceGrad,
    .name = "slice_grad",
    .arity = 1,
    .infer = impl_slice_grad::infer,
    .forward = impl_slice_grad::forward,
    .backward = impl_slice_grad::backward,
    .cost = impl_slice_grad::cost,
    .doc =
        "slice_grad(dy; begin, end, strides, shape): zeros of shape with dy written at the slice; the "
        "gradient of slice.",
    .edges = "zeros outside the slice.",
    .cost_class = CostClass::Rearrange,
};

}  // namespace iputrain::ir
