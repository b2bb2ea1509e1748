#include "core/ops/gather_util.hpp"

#include <fmt/format.h>

namespace iputrain::ir {

GatherDims gather_dims(const Shape& params, size_t axis) {
  GatherDims d;
  for (size_t i = 0; i < params.size(); ++i) {
    if (i < axis) {
      d.outer *= params[i];
    } else if (i == axis) {
      d.rows = params[i];
    } else {
      d.inner *= params[i];
    }
  }
  return d;
}

TensorType infer_gather(const TensorType& params, const TensorType& indices, const Attrs& attrs) {
  if (indices.dtype != DType::I32) {
    throw OpError{fmt::format("indices must be i32, got {}", indices.str()), "cast them to i32 first"};
  }
  const int64_t axis = int_attr(attrs, "axis", 0);
  const auto a = normalize_axis(axis, params.rank());
  if (!a) {
    throw OpError{fmt::format("axis {} is out of range for {}", axis, params.str()),
                  fmt::format("axis must lie in [{}, {})", -params.rank(), params.rank())};
  }
  Shape out(params.shape.begin(), params.shape.begin() + *a);
  out.insert(out.end(), indices.shape.begin(), indices.shape.end());
  out.insert(out.end(), params.shape.begin() + *a + 1, params.shape.end());
  TensorType t{params.dtype, out};
  check_rank(t);
  return t;
}

void throw_bad_index(const Node& node, int32_t index, int64_t rows) {
  throw Error(ErrorKind::Data, fmt::format("index {} out of range [0, {})", index, rows), node.span,
              "indices must lie in [0, size of the gathered dimension); check the vocabulary size");
}

}  // namespace iputrain::ir
