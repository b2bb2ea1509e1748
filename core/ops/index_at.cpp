// index_at: x at one index of `axis` chosen at run time by an i32 scalar, the axis dropped (the
// language's `x[:, t]` where t is a tensor, as a loop's counter is). The index is clamped into
// [0, dim - 1], as XLA clamps dynamic offsets. Any dtype. Gradient: dy written at that index into
// zeros (index_at_grad); none flows into the index.
#include <fmt/format.h>

#include <cstring>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_index_at {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  const TensorType& i = *in[1];
  if (i.dtype != DType::I32 || i.numel() != 1) {
    throw OpError{fmt::format("index_at: the index must be one i32, got {}", i.str()), "a loop's counter is one"};
  }
  const int64_t axis = attrs.get_int("axis");
  if (axis < 0 || axis >= x.rank()) {
    throw OpError{fmt::format("index_at: axis {} is not a dimension of {}", axis, x.str()), "", "axis"};
  }
  Shape shape = x.shape;
  shape.erase(shape.begin() + axis);
  return {x.dtype, shape};
}

void forward(const KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  const auto axis = static_cast<size_t>(args.node.attrs.get_int("axis"));
  const int64_t n = x.shape()[axis];
  const int64_t at = std::clamp<int64_t>(args.inputs[1].i32()[0], 0, n - 1);
  int64_t outer = 1;
  for (size_t d = 0; d < axis; ++d) {
    outer *= x.shape()[d];
  }
  const size_t row = static_cast<size_t>(x.numel() / std::max<int64_t>(1, outer * n)) * dtype_size(x.type->dtype);
  const auto* src = static_cast<const std::byte*>(x.data);
  auto* out = static_cast<std::byte*>(args.output.data);
  for (int64_t o = 0; o < outer; ++o) {
    std::memcpy(out + o * row, src + (o * n + at) * row, row);
  }
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);
  Attrs attrs{{"axis", n.attrs.get_int("axis")}, {"shape", g.type(n.inputs[0]).shape}};
  return {g.add(OpKind::IndexAtGrad, {dy, n.inputs[1]}, std::move(attrs)), kNoValue};
}

Cost cost(const Graph& g, const Node& node) {
  return {0, static_cast<double>(node.type.bytes()), static_cast<double>(node.type.bytes())};
}

constexpr AttrSpec kAttrs[] = {{.name = "axis", .type = AttrType::Int, .required = true, .min = 0}};

}  // namespace impl_index_at
}  // namespace

constexpr std::string_view kIndexAtInputs[] = {"x", "index"};

const OpDef kIndexAtOp{
    .kind = OpKind::IndexAt,
    .name = "index_at",
    .arity = 2,
    .infer = impl_index_at::infer,
    .forward = impl_index_at::forward,
    .backward = impl_index_at::backward,
    .cost = impl_index_at::cost,
    .doc =
        "index_at(x, index i32 scalar; axis): x at one index of axis chosen at run time (clamped into "
        "[0, dim - 1]), the axis dropped: `x[:, t]` for a tensor t; any dtype.",
    .inputs = kIndexAtInputs,
    .attrs = impl_index_at::kAttrs,
    .edges = "moves values unchanged; an index out of range is clamped (XLA's rule), never an error.",
    .cost_class = CostClass::Rearrange,
};

}  // namespace iputrain::ir
