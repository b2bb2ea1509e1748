// For kernels that move elements without reading them as numbers (slice, transpose, broadcast_to,
// take_along_axis, tril/triu): the element as an unsigned integer of its dtype's size.
#pragma once

#include <cstdint>

#include "core/types.hpp"

namespace iputrain::ir {

//! Calls f(bits) with `bits` a uint8_t, uint16_t or uint32_t: the size of one `dtype` element.
template <typename F>
void with_element_bits(DType dtype, F&& f) {
  switch (dtype_size(dtype)) {
    case 1:
      f(uint8_t{});
      return;
    case 2:
      f(uint16_t{});
      return;
    default:
      f(uint32_t{});
      return;
  }
}

}  // namespace iputrain::ir
