// max: the maximum over attribute axes (empty = all; negative count from the end), dropping them
// unless keepdims = 1 (f32; i32 forward only). nan wins over numbers.
//
// Gradient: dy goes to the positions that attain the maximum; when several do (ties), they share
// it evenly, as PyTorch's amax does. Built from existing ops:
//   hit = cast(equal(x, y_kept), f32);  dx = hit * (dy_kept / sum(hit, axes, keepdims = 1))
// where *_kept are reshaped to the keepdims shape so they broadcast against x.
#include <fmt/format.h>

#include "core/ops/reduce_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_max {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  if (x.dtype != DType::F32 && x.dtype != DType::I32) {
    throw OpError{fmt::format("cannot take the maximum of {}", x.str()), "cast it to f32 first"};
  }
  const TensorType out = infer_reduce(x, attrs);
  if (x.numel() == 0) {
    throw OpError{fmt::format("the maximum of the empty tensor {} is undefined", x.str()), ""};
  }
  return out;
}

void forward(const KernelArgs& args) {
  if (args.inputs[0].type->dtype == DType::I32) {
    reduce_max<int32_t>(args);
  } else {
    reduce_max<float>(args);
  }
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);
  const ValueId x = n.inputs[0];
  const TensorType xt = g.type(x);
  const auto mask = reduced_dims(ints_attr(n.attrs, "axes"), xt.rank());
  Shape kept = xt.shape;
  std::vector<int64_t> axes;
  for (size_t d = 0; d < kept.size(); ++d) {
    if (mask[d]) {
      kept[d] = 1;
      axes.push_back(static_cast<int64_t>(d));
    }
  }
  auto keep = [&](ValueId v) {
    return g.type(v).shape == kept ? v : g.add(OpKind::Reshape, {v}, Attrs{{"shape", kept}});
  };
  const ValueId hit =
      g.add(OpKind::Cast, {g.add(OpKind::Equal, {x, keep(id)})}, Attrs{{"dtype", std::string("f32")}});
  const ValueId count = g.add(OpKind::Sum, {hit}, Attrs{{"axes", axes}, {"keepdims", int64_t{1}}});
  const ValueId share = g.add(OpKind::Div, {keep(dy), count});
  return {g.add(OpKind::Mul, {hit, share})};
}

Cost cost(const Graph& g, const Node& node) {
  Cost c = elementwise_cost(g, node, 0.0);
  c.flops = static_cast<double>(g.type(node.inputs[0]).numel());
  return c;
}

}  // namespace impl_max
}  // namespace

const OpDef kMaxOp{
    .kind = OpKind::Max,
    .name = "max",
    .arity = 1,
    .infer = impl_max::infer,
    .forward = impl_max::forward,
    .backward = impl_max::backward,
    .cost = impl_max::cost,
    .doc =
        "max(x f32; axes = all, keepdims = 0): the maximum over axes; the gradient is shared evenly by "
        "tied maxima.",
    .edges = "nan propagates; i32 exact. Gradient shared evenly by tied maxima (as torch.amax).",
    .cost_class = CostClass::Reduction,
};

}  // namespace iputrain::ir
