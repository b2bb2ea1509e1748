#include "core/ops/along_axis_util.hpp"

#include <fmt/format.h>

namespace iputrain::ir {

AxisLines axis_lines(const Shape& shape, size_t axis) {
  AxisLines l;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d < axis) {
      l.outer *= shape[d];
    } else if (d > axis) {
      l.inner *= shape[d];
    }
  }
  l.n = shape[axis];
  return l;
}

size_t axis_attr(const Attrs& attrs, int64_t rank, const TensorType& what) {
  const int64_t axis = attrs.get_int("axis", -1);
  const auto d = normalize_axis(axis, rank);
  if (!d) {
    throw OpError{fmt::format("axis {} is out of range for {}", axis, what.str()), ""};
  }
  return static_cast<size_t>(*d);
}

}  // namespace iputrain::ir
