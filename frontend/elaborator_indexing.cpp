// Subscripts: x[i] and x[a:b] on compile-time lists, NumPy-style indexing and slicing on tensors.
#include "frontend/elaborator_impl.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace iputrain::frontend::elab {

size_t find_ellipsis(const std::vector<ast::ExprPtr>& items, size_t first, const char* where) {
  size_t ellipsis = items.size();
  for (size_t k = first; k < items.size(); ++k) {
    if (items[k]->kind == ExprKind::Ellipsis) {
      if (ellipsis != items.size()) {
        fail(items[k]->span, fmt::format("only one '...' is allowed in {}", where));
      }
      ellipsis = k;
    }
  }
  return ellipsis;
}

Value Elaborator::eval_index(const Expr& e, Scope& scope) {
  const Value obj = eval(*e.items[0], scope);
  if (obj.kind == K::Tensor) {
    return index_tensor(e, obj.tensor, scope);
  }
  if (obj.kind != K::List) {
    fail(e.items[0]->span, fmt::format("only lists can be indexed, got {}", describe(obj, g_)));
  }
  if (e.items.size() != 2) {
    fail(e.span, "a list takes one index", "write x[i] or x[a:b]");
  }
  const Expr& sub = *e.items[1];
  const auto n = static_cast<int64_t>(obj.list.size());
  if (sub.kind != ExprKind::Slice) {
    const int64_t i = expect_int(eval(sub, scope), g_, sub.span, "a list index");
    const int64_t k = i < 0 ? i + n : i;
    if (k < 0 || k >= n) {
      fail(sub.span, fmt::format("index {} is out of range for a list of {} items", i, n),
           n == 0 ? "the list is empty" : fmt::format("valid indices are {}..{}", -n, n - 1));
    }
    return obj.list[static_cast<size_t>(k)];
  }
  auto bound = [&](size_t slot, int64_t def) {
    if (!sub.items[slot]) {
      return def;
    }
    return expect_int(eval(*sub.items[slot], scope), g_, sub.items[slot]->span, "a slice bound");
  };
  const int64_t step = bound(2, 1);
  if (step != 1) {
    fail(sub.span, "slices with a step are not supported", "write a:b");
  }
  auto clamp = [&](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + n : i, 0, n); };
  const int64_t lo = clamp(bound(0, 0));
  const int64_t hi = clamp(bound(1, n));
  std::vector<Value> items;
  for (int64_t k = lo; k < hi; ++k) {
    items.push_back(obj.list[static_cast<size_t>(k)]);
  }
  return Value::of_list(std::move(items));
}

// x[i, a:b, ..., ::s]: one `slice` node over every dimension, then a `reshape` that drops the
// dimensions indexed by a single integer (as in NumPy).
Value Elaborator::index_tensor(const Expr& e, ir::ValueId x, Scope& scope) {
  const TensorType type = g_.type(x);
  const int64_t rank = type.rank();
  const size_t ellipsis = find_ellipsis(e.items, 1, "a subscript");
  const auto given = static_cast<int64_t>(e.items.size() - 1 - (ellipsis != e.items.size() ? 1 : 0));
  if (given > rank) {
    fail(e.span, fmt::format("too many indices: {} given for a tensor of rank {} ({})", given, rank, type.str()),
         "index each dimension at most once; '...' stands for the dimensions you skip");
  }
  std::vector<int64_t> begin(static_cast<size_t>(rank), 0);
  std::vector<int64_t> end(type.shape.begin(), type.shape.end());
  std::vector<int64_t> strides(static_cast<size_t>(rank), 1);
  std::vector<bool> dropped(static_cast<size_t>(rank), false);
  std::vector<int64_t> sizes(type.shape.begin(), type.shape.end());
  std::vector<std::pair<int64_t, ir::ValueId>> at_runtime;  // (axis, i32 scalar): index_at after the slice
  int64_t axis = 0;
  for (size_t k = 1; k < e.items.size(); ++k) {
    const Expr& sub = *e.items[k];
    if (k == ellipsis) {
      axis += rank - given;
      continue;
    }
    const auto a = static_cast<size_t>(axis);
    const int64_t n = type.shape[a];
    if (sub.kind != ExprKind::Slice) {
      const Value v = eval(sub, scope);
      if (v.kind == K::Tensor) {
        if (g_.type(v.tensor).dtype != DType::I32 || g_.type(v.tensor).numel() != 1) {
          fail(sub.span,
               fmt::format("a tensor index must be one i32 (a loop's counter), got {}", g_.type(v.tensor).str()),
               "to pick rows by a tensor of indices use gather(x, indices)");
        }
        at_runtime.emplace_back(axis++, v.tensor);
        continue;
      }
      const int64_t i = expect_int(v, g_, sub.span, "an index");
      if (i < -n || i >= n) {
        fail(sub.span, fmt::format("index {} is out of range for dimension {} of {}", i, axis, type.str()),
             fmt::format("valid indices are {}..{}", -n, n - 1));
      }
      begin[a] = i < 0 ? i + n : i;
      end[a] = begin[a] + 1;
      sizes[a] = 1;
      dropped[a] = true;
      ++axis;
      continue;
    }
    auto bound = [&](size_t slot, int64_t def) {
      if (!sub.items[slot]) {
        return def;
      }
      return expect_int(eval(*sub.items[slot], scope), g_, sub.items[slot]->span, "a slice bound");
    };
    const int64_t step = bound(2, 1);
    if (step == 0) {
      fail(sub.items[2]->span, "a slice step cannot be 0", "x[::-1] reverses, x[::2] takes every other element");
    }
    // NumPy's bounds: clamped to [0, n] going up, to [-1, n - 1] going down (-1: past the start).
    const int64_t lo = step > 0 ? 0 : -1;
    const int64_t hi = step > 0 ? n : n - 1;
    auto clamp = [&](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + n : i, lo, hi); };
    const int64_t b = sub.items[0] ? clamp(bound(0, 0)) : (step > 0 ? 0 : n - 1);
    const int64_t stop = sub.items[1] ? clamp(bound(1, n)) : (step > 0 ? n : -1);
    begin[a] = b;
    // The op reads a negative end from the end of the dimension: past the start is -n - 1.
    end[a] = stop < 0 ? -n - 1 : stop;
    strides[a] = step;
    sizes[a] =
        step > 0 ? (stop > b ? (stop - b + step - 1) / step : 0) : (b > stop ? (b - stop - step - 1) / -step : 0);
    if (sizes[a] == 0) {
      fail(sub.span, fmt::format("the slice {} of dimension {} of {} is empty", snippet(sub.span), axis, type.str()),
           "tensors cannot have empty dimensions; check the bounds");
    }
    ++axis;
  }
  Shape kept;
  bool identity = true;
  for (int64_t a = 0; a < rank; ++a) {
    const auto k = static_cast<size_t>(a);
    identity = identity && begin[k] == 0 && end[k] == type.shape[k] && strides[k] == 1;
    if (!dropped[k]) {
      kept.push_back(sizes[k]);
    }
  }
  ir::ValueId y = x;
  if (!identity) {
    ir::Attrs attrs{{"begin", begin}, {"end", end}};
    if (std::any_of(strides.begin(), strides.end(), [](int64_t s) { return s != 1; })) {
      attrs.set("strides", strides);
    }
    y = g_.add(ir::OpKind::Slice, {x}, std::move(attrs), e.span);
  }
  if (kept.size() != static_cast<size_t>(rank)) {
    y = g_.add(ir::OpKind::Reshape, {y}, ir::Attrs{{"shape", kept}}, e.span);
  }
  // Indices known at run time, last axis first so the earlier axes keep their positions.
  for (auto it = at_runtime.rbegin(); it != at_runtime.rend(); ++it) {
    const auto before = static_cast<int64_t>(std::count(dropped.begin(), dropped.begin() + it->first, true));
    y = g_.add(ir::OpKind::IndexAt, {y, it->second}, ir::Attrs{{"axis", it->first - before}}, e.span);
  }
  return Value::of_tensor(y);
}

}  // namespace iputrain::frontend::elab
