// one_hot: (indices i32[...]) -> f32[..., depth] with `on` (default 1) at each index and `off`
// (default 0) elsewhere. An index outside [0, depth) (including negative ones) gives a row of
// `off`, as in TensorFlow, so padding ids such as -1 encode to zeros. No gradient.
#include <fmt/format.h>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_one_hot {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& idx = *in[0];
  if (idx.dtype != DType::I32) {
    throw OpError{fmt::format("indices must be i32, got {}", idx.str()), "cast them to i32 first"};
  }
  // Graph::add has checked the attributes against kAttrs (depth >= 1).
  const int64_t depth = attrs.get_int("depth");
  TensorType t{DType::F32, idx.shape};
  t.shape.push_back(depth);
  check_rank(t);
  return t;
}

void forward(const KernelArgs& args) {
  const int64_t depth = args.output.shape().back();
  const auto on = static_cast<float>(args.node.attrs.get_float("on", 1.0));
  const auto off = static_cast<float>(args.node.attrs.get_float("off", 0.0));
  const int32_t* idx = args.inputs[0].i32();
  float* out = args.output.f32();
  const int64_t rows = args.inputs[0].numel();
  for (int64_t r = 0; r < rows; ++r) {
    float* row = out + r * depth;
    for (int64_t j = 0; j < depth; ++j) {
      row[j] = off;
    }
    if (idx[r] >= 0 && idx[r] < depth) {
      row[idx[r]] = on;
    }
  }
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 0.0);
}

constexpr std::string_view kInputs[] = {"indices"};
constexpr AttrSpec kAttrs[] = {
    {.name = "depth", .type = AttrType::Int, .required = true, .min = 1},
    {.name = "on", .type = AttrType::Float, .number = 1.0},
    {.name = "off", .type = AttrType::Float, .number = 0.0},
};

}  // namespace impl_one_hot
}  // namespace

const OpDef kOneHotOp{
    .kind = OpKind::OneHot,
    .name = "one_hot",
    .arity = 1,
    .infer = impl_one_hot::infer,
    .forward = impl_one_hot::forward,
    .backward = nullptr,
    .cost = impl_one_hot::cost,
    .doc =
        "one_hot(indices i32; depth, on = 1, off = 0) -> f32[..., depth]; out-of-range indices give a row "
        "of off.",
    .inputs = impl_one_hot::kInputs,
    .attrs = impl_one_hot::kAttrs,
    .edges =
        "an index outside [0, depth) gives a row of `off` (PyTorch refuses it, TensorFlow gives "
        "zeros).",
};

}  // namespace iputrain::ir
