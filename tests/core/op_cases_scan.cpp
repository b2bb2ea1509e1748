// Op cases for the ops along an axis and over matrices: cumsum, argsort, take_along_axis (and its
// gradient), tril and triu.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "tests/core/ref_util.hpp"

namespace iputrain::test {

namespace {

// The flat index of element t of line `line` along `axis` of `shape`.
int64_t along(const Shape& shape, size_t axis, int64_t line, int64_t t) {
  int64_t inner = 1;
  for (size_t d = axis + 1; d < shape.size(); ++d) {
    inner *= shape[d];
  }
  return (line / inner) * shape[axis] * inner + line % inner + t * inner;
}

RefFn ref_cumsum(int64_t axis, bool exclusive, bool reverse) {
  return [=](const std::vector<Values>& in, const std::vector<TensorType>& t, const TensorType&, const Attrs&) {
    const Shape& s = t[0].shape;
    const auto a = static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(s.size()) : axis);
    Values r(in[0].size());
    const int64_t lines = t[0].numel() / s[a];
    for (int64_t line = 0; line < lines; ++line) {
      double acc = 0;
      for (int64_t k = 0; k < s[a]; ++k) {
        const int64_t j = along(s, a, line, reverse ? s[a] - 1 - k : k);
        if (!exclusive) {
          acc += in[0][static_cast<size_t>(j)];
        }
        r[static_cast<size_t>(j)] = acc;
        if (exclusive) {
          acc += in[0][static_cast<size_t>(j)];
        }
      }
    }
    return r;
  };
}

RefFn ref_triangle(bool lower, int64_t k) {
  return [=](const std::vector<Values>& in, const std::vector<TensorType>& t, const TensorType&, const Attrs&) {
    const Shape& s = t[0].shape;
    const int64_t rows = s[s.size() - 2];
    const int64_t cols = s.back();
    Values r(in[0].size());
    for (size_t e = 0; e < r.size(); ++e) {
      const int64_t i = (static_cast<int64_t>(e) / cols) % rows;
      const int64_t j = static_cast<int64_t>(e) % cols;
      r[e] = (lower ? j - i <= k : j - i >= k) ? in[0][e] : 0.0;
    }
    return r;
  };
}

}  // namespace

void add_scan_cases(std::vector<OpCase>& cases) {
  for (const auto& [axis, exclusive, reverse] : std::vector<std::tuple<int64_t, bool, bool>>{
           {-1, false, false}, {0, false, false}, {1, true, false}, {-1, false, true}, {1, true, true}}) {
    cases.push_back({.name = fmt::format("cumsum axis {} exclusive {} reverse {}", axis, exclusive, reverse),
                     .op = OpKind::Cumsum,
                     .inputs = {f32({2, 3, 4})},
                     .attrs = {{"axis", axis}, {"exclusive", int64_t{exclusive}}, {"reverse", int64_t{reverse}}},
                     .reference = ref_cumsum(axis, exclusive, reverse)});
  }
  cases.push_back({.name = "cumsum i32 wraps",
                   .op = OpKind::Cumsum,
                   .inputs = {i32({4})},
                   .values = {{2147483647, 1, -5, 3}},
                   .expected = {2147483647, -2147483648.0, 2147483643, 2147483646}});
  cases.push_back({.name = "cumsum bool", .op = OpKind::Cumsum, .inputs = {boolean({2})}, .infer_error = "f32 or i32"});
  cases.push_back({.name = "argsort stable with nan and ties",
                   .op = OpKind::Argsort,
                   .inputs = {f32({2, 5})},
                   .values = {{3, std::nan(""), 1, 3, -1, 2, 2, 2, 0, 2}},
                   .expected = {4, 2, 0, 3, 1, 3, 0, 1, 2, 4}});
  cases.push_back({.name = "argsort descending axis 0",
                   .op = OpKind::Argsort,
                   .inputs = {i32({3, 2})},
                   .attrs = {{"axis", int64_t{0}}, {"descending", int64_t{1}}},
                   .values = {{1, 5, 7, 5, 1, -2147483648.0}},
                   .expected = {1, 0, 0, 1, 2, 2}});
  cases.push_back({.name = "argsort scalar", .op = OpKind::Argsort, .inputs = {f32({})}, .infer_error = "rank 1"});
  cases.push_back({.name = "take_along_axis picks and repeats",
                   .op = OpKind::TakeAlongAxis,
                   .inputs = {f32({2, 4}), i32({2, 3})},
                   .values = {{10, 11, 12, 13, 20, 21, 22, 23}, {3, 0, 3, 1, 1, 2}},
                   .expected = {13, 10, 13, 21, 21, 22}});
  cases.push_back(
      {.name = "take_along_axis gradient adds repeats",
       .op = OpKind::TakeAlongAxis,
       .inputs = {f32({3, 4}), i32({2, 4})},
       .attrs = {{"axis", int64_t{0}}},
       .values = {{}, {2, 0, 0, 1, 2, 2, 1, 1}},
       .reference = [](const std::vector<Values>& in, const std::vector<TensorType>&, const TensorType&, const Attrs&) {
         Values r;
         for (int64_t e = 0; e < 8; ++e) {
           r.push_back(in[0][static_cast<size_t>(static_cast<int64_t>(in[1][static_cast<size_t>(e)]) * 4 + e % 4)]);
         }
         return r;
       }});
  cases.push_back({.name = "take_along_axis out of range",
                   .op = OpKind::TakeAlongAxis,
                   .inputs = {f32({2}), i32({1})},
                   .values = {{1, 2}, {2}},
                   .expected = {0},
                   .run_error = "index 2 out of range [0, 2)"});
  cases.push_back({.name = "take_along_axis rank",
                   .op = OpKind::TakeAlongAxis,
                   .inputs = {f32({2, 3}), i32({3})},
                   .infer_error = "do not fit"});
  cases.push_back({.name = "take_along_axis_grad adds duplicates",
                   .op = OpKind::TakeAlongAxisGrad,
                   .inputs = {i32({3}), f32({3})},
                   .attrs = {{"axis", int64_t{0}}, {"shape", Shape{2}}},
                   .values = {{1, 1, 0}, {1, 2, 4}},
                   .expected = {4, 3}});
  cases.push_back({.name = "take_along_axis_grad types",
                   .op = OpKind::TakeAlongAxisGrad,
                   .inputs = {f32({3}), f32({3})},
                   .attrs = {{"axis", int64_t{0}}, {"shape", Shape{2}}},
                   .infer_error = "i32 indices"});
  for (const auto& [lower, k] : std::vector<std::pair<bool, int64_t>>{{true, 0}, {true, -1}, {false, 0}, {false, 2}}) {
    cases.push_back({.name = fmt::format("{} k {}", lower ? "tril" : "triu", k),
                     .op = lower ? OpKind::Tril : OpKind::Triu,
                     .inputs = {f32({2, 3, 4})},
                     .attrs = {{"k", k}},
                     .reference = ref_triangle(lower, k)});
  }
  cases.push_back({.name = "tril bool",
                   .op = OpKind::Tril,
                   .inputs = {boolean({2, 2})},
                   .values = {{1, 1, 1, 1}},
                   .expected = {1, 0, 1, 1}});
  cases.push_back({.name = "tril vector", .op = OpKind::Tril, .inputs = {f32({3})}, .infer_error = "rank 2"});
  cases.push_back({.name = "triu vector", .op = OpKind::Triu, .inputs = {f32({3})}, .infer_error = "rank 2"});
}

}  // namespace iputrain::test
