// index_at_grad: (dy f32, index) -> f32 zeros of attribute shape with dy at the (clamped) index of
// `axis`: the gradient of index_at. Linear in dy, its own gradient is index_at.
#include <fmt/format.h>

#include <cstring>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_index_at_grad {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  require_f32(*in[0], "dy");
  const Shape& shape = attrs.get_ints("shape");
  const int64_t axis = attrs.get_int("axis");
  if (axis < 0 || axis >= static_cast<int64_t>(shape.size())) {
    throw OpError{fmt::format("index_at_grad: axis {} is not a dimension of {}", axis, shape_str(shape)), "", "axis"};
  }
  Shape dropped = shape;
  dropped.erase(dropped.begin() + axis);
  if (dropped != in[0]->shape) {
    throw OpError{fmt::format("index_at_grad: dy is {}, index_at of {} gives {}", in[0]->str(), shape_str(shape),
                              shape_str(dropped)),
                  ""};
  }
  if (in[1]->dtype != DType::I32 || in[1]->numel() != 1) {
    throw OpError{fmt::format("index_at_grad: the index must be one i32, got {}", in[1]->str()), ""};
  }
  return {DType::F32, shape};
}

void forward(const KernelArgs& args) {
  const Shape& shape = args.output.shape();
  const auto axis = static_cast<size_t>(args.node.attrs.get_int("axis"));
  const int64_t n = shape[axis];
  const int64_t at = std::clamp<int64_t>(args.inputs[1].i32()[0], 0, n - 1);
  int64_t outer = 1;
  for (size_t d = 0; d < axis; ++d) {
    outer *= shape[d];
  }
  const int64_t row = args.output.numel() / std::max<int64_t>(1, outer * n);
  float* out = args.output.f32();
  std::fill(out, out + args.output.numel(), 0.0f);
  const float* dy = args.inputs[0].f32();
  for (int64_t o = 0; o < outer; ++o) {
    std::memcpy(out + (o * n + at) * row, dy + o * row, static_cast<size_t>(row) * sizeof(float));
  }
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);
  return {g.add(OpKind::IndexAt, {dy, n.inputs[1]}, Attrs{{"axis", n.attrs.get_int("axis")}}), kNoValue};
}

Cost cost(const Graph& g, const Node& node) { return {0, 0, static_cast<double>(node.type.bytes())}; }

constexpr AttrSpec kAttrs[] = {{.name = "axis", .type = AttrType::Int, .required = true, .min = 0}};

}  // namespace impl_index_at_grad
}  // namespace

constexpr std::string_view kIndexAtGradInputs[] = {"dy", "index"};

const OpDef kIndexAtGradOp{
    .kind = OpKind::IndexAtGrad,
    .name = "index_at_grad",
    .arity = 2,
    .infer = impl_index_at_grad::infer,
    .forward = impl_index_at_grad::forward,
    .backward = impl_index_at_grad::backward,
    .cost = impl_index_at_grad::cost,
    .doc =
        "index_at_grad(dy, index; axis, shape): zeros of shape with dy at the (clamped) index of axis; the "
        "gradient of index_at.",
    .inputs = kIndexAtGradInputs,
    .attrs = impl_index_at_grad::kAttrs,
    .edges = "moves dy unchanged (nan and -0 kept); every other element is +0.",
    .cost_class = CostClass::Rearrange,
};

}  // namespace iputrain::ir
