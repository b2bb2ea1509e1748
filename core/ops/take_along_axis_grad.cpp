// take_along_axis_grad: (indices i32, dy f32) -> zeros of attribute shape with dy added at the
// positions take_along_axis read (duplicates add): the gradient of take_along_axis.
#include <fmt/format.h>

#include "core/ops/along_axis_util.hpp"
#include "core/ops/gather_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_take_along_axis_grad {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& idx = *in[0];
  const TensorType& dy = *in[1];
  const Shape shape = attrs.get_ints("shape");
  if (idx.dtype != DType::I32 || dy.dtype != DType::F32 || idx.shape != dy.shape || shape.size() != idx.shape.size()) {
    throw OpError{fmt::format("take_along_axis_grad needs i32 indices and f32 dy of one shape, and a shape of "
                              "their rank; got {}, {} and {}",
                              idx.str(), dy.str(), shape_str(shape)),
                  ""};
  }
  axis_attr(attrs, static_cast<int64_t>(shape.size()), dy);
  return TensorType{DType::F32, shape};
}

void forward(const KernelArgs& args) {
  const Tensor& idx = args.inputs[0];
  const Tensor& dy = args.inputs[1];
  const size_t axis = axis_attr(args.node.attrs, args.output.type->rank(), *args.output.type);
  const AxisLines to = axis_lines(args.output.shape(), axis);
  const AxisLines from = axis_lines(idx.shape(), axis);
  float* out = args.output.f32();
  const int32_t* pi = idx.i32();
  const float* pd = dy.f32();
  for (int64_t i = 0; i < args.output.numel(); ++i) {
    out[i] = 0.0f;
  }
  // In order, so duplicates add in one fixed order.
  for (int64_t line = 0; line < from.outer * from.inner; ++line) {
    for (int64_t t = 0; t < from.n; ++t) {
      const int32_t k = pi[from.at(line, t)];
      if (k < 0 || k >= to.n) {
        throw_bad_index(args.node, k, to.n);
      }
      out[to.at(line, k)] += pd[from.at(line, t)];
    }
  }
}

Cost cost(const Graph& g, const Node& node) { return elementwise_cost(g, node, 1.0); }

}  // namespace impl_take_along_axis_grad
}  // namespace

const OpDef kTakeAlongAxisGradOp{
    .kind = OpKind::TakeAlongAxisGrad,
    .name = "take_along_axis_grad",
    .arity = 2,
    .infer = impl_take_along_axis_grad::infer,
    .forward = impl_take_along_axis_grad::forward,
    .backward = nullptr,
    .cost = impl_take_along_axis_grad::cost,
    .doc =
        "take_along_axis_grad(indices, dy; axis, shape): zeros of shape with dy added where take_along_axis "
        "read; the gradient of take_along_axis.",
    .edges = "duplicate indices add, in index order.",
    .cost_class = CostClass::Rearrange,
};

}  // namespace iputrain::ir
