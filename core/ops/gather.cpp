// gather: (params f32|i32, indices i32) -> params.shape[:axis] + indices.shape +
// params.shape[axis+1:], picking entries of params along attribute axis (default 0): the embedding
// lookup. An index outside [0, dim) is a run-time Error(Data). Gradient (params only): gather_grad,
// a scatter-add of dy.
#include <cstring>

#include <fmt/format.h>

#include "core/ops/gather_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_gather {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& params = *in[0];
  if (params.dtype != DType::F32 && params.dtype != DType::I32) {
    throw OpError{fmt::format("params must be f32 or i32, got {}", params.str()), ""};
  }
  return infer_gather(params, *in[1], attrs);
}

void forward(const KernelArgs& args) {
  const Tensor& params = args.inputs[0];
  const Tensor& indices = args.inputs[1];
  const auto axis =
      static_cast<size_t>(*normalize_axis(args.node.attrs.get_int("axis", 0), params.type->rank()));
  const GatherDims d = gather_dims(params.shape(), axis);
  const int64_t n = indices.numel();
  const int32_t* idx = indices.i32();
  const auto row_bytes = static_cast<size_t>(d.inner) * 4;
  const auto* src = static_cast<const std::byte*>(params.data);
  auto* out = static_cast<std::byte*>(args.output.data);
  for (int64_t o = 0; o < d.outer; ++o) {
    for (int64_t j = 0; j < n; ++j) {
      const int32_t r = idx[j];
      if (r < 0 || r >= d.rows) {
        throw_bad_index(args.node, r, d.rows);
      }
      std::memcpy(out + static_cast<size_t>(o * n + j) * row_bytes,
                  src + static_cast<size_t>(o * d.rows + r) * row_bytes, row_bytes);
    }
  }
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);
  const ValueId params = n.inputs[0];
  const ValueId indices = n.inputs[1];
  const int64_t axis = n.attrs.get_int("axis", 0);
  const ValueId dp =
      g.add(OpKind::GatherGrad, {indices, dy}, Attrs{{"axis", axis}, {"shape", g.type(params).shape}});
  return {dp, kNoValue};
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 0.0);
}

constexpr std::string_view kInputs[] = {"params", "indices"};
constexpr AttrSpec kAttrs[] = {{.name = "axis", .type = AttrType::Int, .number = 0}};

}  // namespace impl_gather
}  // namespace

const OpDef kGatherOp{
    .kind = OpKind::Gather,
    .name = "gather",
    .arity = 2,
    .infer = impl_gather::infer,
    .forward = impl_gather::forward,
    .backward = impl_gather::backward,
    .cost = impl_gather::cost,
    .doc =
        "gather(params, indices i32; axis = 0) -> params.shape[:axis] + indices.shape + "
        "params.shape[axis+1:]: the embedding lookup.",
    .inputs = impl_gather::kInputs,
    .attrs = impl_gather::kAttrs,
    .edges = "moves values unchanged; an index outside the axis stops the run with a located data error.",
    .cost_class = CostClass::Rearrange,
};

}  // namespace iputrain::ir
