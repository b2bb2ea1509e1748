// dropout_mask: a random f32 mask of 0 (probability `rate`) and 1 / (1 - rate) elsewhere, to be
// multiplied into x (the gradient flows through that mul; the mask itself has none). Its shape is
// that of the optional input (only the shape is read) or the `shape` attribute.
//
// The mask is a pure function of (ExecContext::seed, the node's path, ExecContext::step, the
// global sample index), never of threads or devices: row r (index along dimension 0) draws from
// the Philox stream of rng_key(seed, path) numbered step * 2^32 + sample_offset + r. The path is
// the `name` attribute (the frontend's scope path), or the node's name when the attribute is
// absent. When ExecContext::training is false the mask is all ones (inference keeps everything).
#include <fmt/format.h>

#include "core/ops/reduce_util.hpp"
#include "core/rng.hpp"

namespace iputrain::ir {

namespace {
namespace impl_dropout_mask {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  if (!attrs.has("rate")) {
    throw OpError{"the attribute rate is required", "rate is the probability of dropping: rate = 0.1"};
  }
  const double rate = float_attr(attrs, "rate", 0.0);
  if (!(rate >= 0.0 && rate < 1.0)) {
    throw OpError{fmt::format("rate must lie in [0, 1), got {}", rate),
                  "rate is the probability of dropping"};
  }
  str_attr(attrs, "name", "");
  if (in.size() > 1) {
    throw OpError{fmt::format("takes at most one tensor (whose shape the mask copies), got {}", in.size()),
                  ""};
  }
  if (in.size() == 1) {
    if (attrs.has("shape")) {
      throw OpError{"give either an input or the shape attribute, not both", ""};
    }
    return TensorType{DType::F32, in[0]->shape};
  }
  if (!attrs.has("shape")) {
    throw OpError{"needs an input or the shape attribute", "pass the tensor the mask is for"};
  }
  const Shape& shape = ints_attr(attrs, "shape");
  for (int64_t d : shape) {
    if (d < 0) {
      throw OpError{fmt::format("invalid shape {}", shape_str(shape)), "dimensions must be >= 0"};
    }
  }
  return TensorType{DType::F32, shape};
}

void forward(const KernelArgs& args) {
  float* mask = args.output.f32();
  const int64_t n = args.output.numel();
  const ExecContext ctx = args.ctx != nullptr ? *args.ctx : ExecContext{};
  const float rate = static_cast<float>(args.node.attrs.get_float("rate"));
  if (!ctx.training || rate == 0.0f) {
    for (int64_t i = 0; i < n; ++i) {
      mask[i] = 1.0f;
    }
    return;
  }
  const AttrValue* name = args.node.attrs.find("name");
  const std::string_view path =
      name != nullptr ? std::string_view(std::get<std::string>(*name)) : std::string_view(args.node.name);
  const Shape& shape = args.output.shape();
  const int64_t rows = shape.empty() ? 1 : shape[0];
  const int64_t per_row = rows > 0 ? n / rows : 0;
  const float keep = 1.0f / (1.0f - rate);
  for (int64_t r = 0; r < rows; ++r) {
    const auto sample = static_cast<uint64_t>(ctx.sample_offset + r);
    Rng rng(ctx.seed, path, (static_cast<uint64_t>(ctx.step) << 32) + sample);
    float* row = mask + r * per_row;
    for (int64_t j = 0; j < per_row; ++j) {
      row[j] = rng.uniform() < rate ? 0.0f : keep;
    }
  }
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 10.0);
}

}  // namespace impl_dropout_mask
}  // namespace

const OpDef kDropoutMaskOp{
    .kind = OpKind::DropoutMask,
    .name = "dropout_mask",
    .arity = -1,
    .infer = impl_dropout_mask::infer,
    .forward = impl_dropout_mask::forward,
    .backward = nullptr,
    .cost = impl_dropout_mask::cost,
    .doc =
        "dropout_mask([x]; rate, shape, name) -> f32 mask of 0 (probability rate) or 1/(1-rate), keyed by "
        "(seed, name, step, sample); all ones when not training.",
    .edges = "reads no value of x; all ones when not training.",
};

}  // namespace iputrain::ir
