#include "core/ir/grad_sum.hpp"

#include <tuple>

#include "core/ops/slice_util.hpp"

namespace iputrain::ir {

namespace {

// The window a slice_grad writes when it writes a contiguous stretch of one axis and the whole of
// every other: (axis, begin, size), or axis -1.
std::tuple<int64_t, int64_t, int64_t> window_of(const Graph& g, ValueId v) {
  const Node& n = g.node(v);
  if (n.op != OpKind::SliceGrad) {
    return {-1, 0, 0};
  }
  const Shape& shape = n.type.shape;
  const SliceSpec spec = slice_spec(shape, n.attrs);
  int64_t axis = -1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (spec.begin[d] != 0 || spec.stride[d] != 1 || spec.size[d] != shape[d]) {
      if (axis >= 0 || spec.stride[d] != 1) {
        return {-1, 0, 0};
      }
      axis = static_cast<int64_t>(d);
    }
  }
  return axis < 0 ? std::tuple<int64_t, int64_t, int64_t>{-1, 0, 0}
                  : std::tuple<int64_t, int64_t, int64_t>{axis, spec.begin[static_cast<size_t>(axis)],
                                                          spec.size[static_cast<size_t>(axis)]};
}

// The windows made one tensor and added to the total.
void settle(Graph& g, Sum& s) {
  if (s.windows.empty()) {
    return;
  }
  const Shape shape = g.type(s.windows.begin()->second.first).shape;
  int64_t covered = 0;
  for (const auto& [begin, w] : s.windows) {
    covered = begin == covered ? covered + w.size : -1;
  }
  ValueId joined = kNoValue;
  if (s.windows.size() > 1 && covered == shape[static_cast<size_t>(s.axis)]) {
    std::vector<ValueId> pieces;
    for (const auto& [begin, w] : s.windows) {
      pieces.push_back(w.sum);
    }
    joined = g.add(OpKind::Concat, pieces, Attrs{{"axis", s.axis}});
  } else {
    for (const auto& [begin, w] : s.windows) {
      const ValueId padded =
          w.sum == g.node(w.first).inputs[0] ? w.first : g.add(OpKind::SliceGrad, {w.sum}, g.node(w.first).attrs);
      joined = joined == kNoValue ? padded : g.add(OpKind::Add, {joined, padded});
    }
  }
  s.windows.clear();
  s.axis = -1;
  s.total = s.total == kNoValue ? joined : g.add(OpKind::Add, {s.total, joined});
}

}  // namespace

void add_to(Graph& g, Sum& s, ValueId dx) {
  const auto [axis, begin, size] = window_of(g, dx);
  if (axis >= 0 && s.total == kNoValue && (s.windows.empty() || axis == s.axis)) {
    bool fits = true;  // identical to a window, or apart from all
    for (const auto& [b, w] : s.windows) {
      const bool same = b == begin && w.size == size;
      const bool apart = b + w.size <= begin || begin + size <= b;
      fits = fits && (same || apart);
    }
    if (fits) {
      s.axis = axis;
      const ValueId dy = g.node(dx).inputs[0];
      auto [it, fresh] = s.windows.try_emplace(begin, Sum::Window{size, dy, dx});
      if (!fresh) {
        it->second.sum = g.add(OpKind::Add, {it->second.sum, dy});
      }
      return;
    }
  }
  settle(g, s);
  s.total = s.total == kNoValue ? dx : g.add(OpKind::Add, {s.total, dx});
}

ValueId total_of(Graph& g, Sum& s) {
  settle(g, s);
  return s.total;
}

}  // namespace iputrain::ir
