#include "core/ops/slice_util.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace iputrain::ir {

SliceSpec slice_spec(const Shape& in, const Attrs& attrs) {
  const std::vector<int64_t>& begin = ints_attr(attrs, "begin");
  const std::vector<int64_t>& end = ints_attr(attrs, "end");
  const std::vector<int64_t>& strides = ints_attr(attrs, "strides");
  if (in.size() > kMaxRank) {
    throw OpError{fmt::format("rank {} is above the supported maximum of {}", in.size(), kMaxRank), ""};
  }
  if (begin.size() > in.size() || end.size() > in.size() || strides.size() > in.size()) {
    throw OpError{fmt::format("begin, end and strides may have at most {} entries (the rank of {}), got {}, "
                              "{} and {}",
                              in.size(), shape_str(in), begin.size(), end.size(), strides.size()),
                  "give one entry per dimension, leading dimensions first"};
  }
  SliceSpec s;
  s.rank = in.size();
  for (size_t d = 0; d < in.size(); ++d) {
    const int64_t dim = in[d];
    const int64_t st = d < strides.size() ? strides[d] : 1;
    if (st == 0) {
      throw OpError{fmt::format("stride 0 in dimension {}", d), "a stride is >= 1, or negative to walk backwards"};
    }
    if (st > 0) {
      auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + dim : v, int64_t{0}, dim); };
      const int64_t b = d < begin.size() ? clamp(begin[d]) : 0;
      const int64_t e = d < end.size() ? clamp(end[d]) : dim;
      s.begin[d] = b;
      s.size[d] = e > b ? (e - b + st - 1) / st : 0;
    } else {
      // NumPy going down: bounds clamp to [-1, dim - 1], -1 being past the start; the whole
      // dimension by default, from its last element.
      auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + dim : v, int64_t{-1}, dim - 1); };
      const int64_t b = d < begin.size() ? clamp(begin[d]) : dim - 1;
      const int64_t e = d < end.size() ? clamp(end[d]) : -1;
      s.begin[d] = std::max<int64_t>(b, 0);
      s.size[d] = b > e ? (b - e - st - 1) / -st : 0;
    }
    s.stride[d] = st;
  }
  return s;
}

Shape slice_shape(const SliceSpec& s) {
  return Shape(s.size.begin(), s.size.begin() + static_cast<std::ptrdiff_t>(s.rank));
}

}  // namespace iputrain::ir
