// Shared by argsort, take_along_axis and take_along_axis_grad: the walk over the lines of a tensor
// along one axis (outer x inner lines of n elements, `inner` apart).
#pragma once

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

struct AxisLines {
  int64_t outer = 1;
  int64_t inner = 1;
  int64_t n = 0;  //!< the axis' length in the tensor the lines walk
  //! Flat index of element t of line `line` (line = o * inner + i).
  int64_t at(int64_t line, int64_t t) const { return (line / inner) * n * inner + line % inner + t * inner; }
};

//! The lines of `shape` along `axis` (already normalised).
AxisLines axis_lines(const Shape& shape, size_t axis);

//! Attribute axis of `attrs` normalised for rank `rank`; throws OpError naming `what` when out of range.
size_t axis_attr(const Attrs& attrs, int64_t rank, const TensorType& what);

}  // namespace iputrain::ir
