// reshape: same elements, new shape (attribute shape; one entry may be -1 and is inferred).
// Free in the cost model (nullptr cost) and a view in the buffer assignment, as on an IPU: the
// kernel finds its output at its input's address and copies nothing (it copies when they differ,
// e.g. the reshape of a parameter).
#include <cstring>

#include <fmt/format.h>

#include "core/ops/reduce_util.hpp"
#include "core/parallel.hpp"

namespace iputrain::ir {

namespace {
namespace impl_reshape {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  Shape shape = ints_attr(attrs, "shape");
  int64_t known = 1;
  int64_t infer_at = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && infer_at < 0) {
      infer_at = static_cast<int64_t>(i);
    } else if (shape[i] < 0) {
      throw OpError{fmt::format("invalid target shape {}", shape_str(shape)),
                    "dimensions must be >= 0, with at most one -1"};
    } else {
      known *= shape[i];
    }
  }
  if (infer_at >= 0) {
    if (known == 0 || x.numel() % known != 0) {
      throw OpError{fmt::format("cannot reshape {} to {}", x.str(), shape_str(shape)),
                    fmt::format("{} elements do not divide into rows of {}", x.numel(), known)};
    }
    shape[static_cast<size_t>(infer_at)] = x.numel() / known;
  } else if (known != x.numel()) {
    throw OpError{fmt::format("cannot reshape {} to {}: {} elements vs {}", x.str(), shape_str(shape),
                              x.numel(), known),
                  "the element count must stay the same"};
  }
  return TensorType{x.dtype, shape};
}

void forward(const KernelArgs& args) {
  if (args.output.data != args.inputs[0].data) {
    par::copy(args.output.data, args.inputs[0].data, args.output.type->bytes());
  }
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Shape s = g.type(g.node(id).inputs[0]).shape;
  return {g.add(OpKind::Reshape, {dy}, Attrs{{"shape", s}})};
}

}  // namespace impl_reshape
}  // namespace

const OpDef kReshapeOp{
    .kind = OpKind::Reshape,
    .name = "reshape",
    .arity = 1,
    .infer = impl_reshape::infer,
    .forward = impl_reshape::forward,
    .backward = impl_reshape::backward,
    .cost = nullptr,
    .doc = "reshape(x; shape) keeps the elements in order; one entry of shape may be -1.",
    .edges = "moves no value: every bit pattern passes unchanged.",
};

}  // namespace iputrain::ir
