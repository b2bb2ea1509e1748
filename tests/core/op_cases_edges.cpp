// Regression cases for the wrong numbers the differential suite (tests/diff) and issue 36 found:
// NaN through relu, maximum and argmax, +inf through sqrt's vector path, pow(-inf, 0.5), exp and
// log at the ends of their ranges, i32 wrapping, argmax/argmin on i32, negative slice strides and
// the gradients of transposed matmuls (finite differences check the new backward).
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "tests/core/ref_util.hpp"

namespace iputrain::test {

namespace {

using ir::Attrs;
using ir::OpKind;

// `n` copies of `v` with `special` at positions 3 and n - 2: vector blocks and the scalar tail.
Values with_special(int n, double v, double special) {
  Values out(static_cast<size_t>(n), v);
  out[3] = special;
  out[static_cast<size_t>(n - 2)] = special;
  return out;
}

}  // namespace

void add_edge_cases(std::vector<OpCase>& cases) {
  cases.push_back({.name = "relu keeps nan",
                   .op = OpKind::Relu,
                   .inputs = {f32({5})},
                   .values = {{kNan, -1, 0, -0.0, 2}},
                   .expected = {kNan, 0, 0, 0, 2},
                   .grad = false});
  cases.push_back({.name = "sqrt of +inf on the vector path",
                   .op = OpKind::Sqrt,
                   .inputs = {f32({20})},
                   .values = {with_special(20, 4.0, kInf)},
                   .expected = with_special(20, 2.0, kInf),
                   .grad = false});
  cases.push_back({.name = "exp just below its overflow",
                   .op = OpKind::Exp,
                   .inputs = {f32({20})},
                   .values = {with_special(20, 0.0, 88.5)},
                   .expected = with_special(20, 1.0, std::exp(88.5)),
                   .grad = false,
                   .rtol = 1e-6});
  cases.push_back({.name = "log of a denormal",
                   .op = OpKind::Log,
                   .inputs = {f32({20})},
                   .values = {with_special(20, 1.0, 1e-40)},
                   .expected = with_special(20, 0.0, std::log(static_cast<double>(1e-40f))),
                   .grad = false,
                   .rtol = 1e-6});
  cases.push_back({.name = "pow of -inf to 0.5 as std::pow",
                   .op = OpKind::Pow,
                   .inputs = {f32({4}), f32({})},
                   .values = {{-kInf, 4, -0.0, kInf}, {0.5}},
                   .expected = {kInf, 2, 0, kInf},
                   .grad = false});
  cases.push_back({.name = "maximum with nan on either side",
                   .op = OpKind::Maximum,
                   .inputs = {f32({4}), f32({4})},
                   .values = {{0, kNan, 1, kNan}, {kNan, 0, 0, kNan}},
                   .expected = {kNan, kNan, 1, kNan},
                   .grad = false});
  cases.push_back({.name = "minimum with nan on either side",
                   .op = OpKind::Minimum,
                   .inputs = {f32({3}), f32({3})},
                   .values = {{0, kNan, 1}, {kNan, 0, 0}},
                   .expected = {kNan, kNan, 0},
                   .grad = false});
  cases.push_back({.name = "argmax picks the first nan",
                   .op = OpKind::Argmax,
                   .inputs = {f32({2, 4})},
                   .values = {{5, kNan, 7, kNan, 1, 3, 3, 2}},
                   .expected = {1, 1}});
  cases.push_back({.name = "argmax on i32",
                   .op = OpKind::Argmax,
                   .inputs = {i32({2, 3})},
                   .values = {{1, 7, 7, -3, -9, 2147483647}},
                   .expected = {1, 2}});
  cases.push_back({.name = "argmin ties and nan",
                   .op = OpKind::Argmin,
                   .inputs = {f32({2, 4})},
                   .values = {{5, 1, 1, 0.5, 2, kNan, -kInf, kNan}},
                   .expected = {3, 1}});
  cases.push_back({.name = "argmin axis 0 on i32",
                   .op = OpKind::Argmin,
                   .inputs = {i32({3, 2})},
                   .attrs = {{"axis", int64_t{0}}},
                   .values = {{4, -2147483648.0, 4, 0, -1, 0}},
                   .expected = {2, 0}});
  cases.push_back({.name = "argmin bool", .op = OpKind::Argmin, .inputs = {boolean({2})}, .infer_error = "f32 or i32"});
  cases.push_back({.name = "add i32 wraps",
                   .op = OpKind::Add,
                   .inputs = {i32({3}), i32({3})},
                   .values = {{2147483647, -2147483648.0, 123456789}, {1, -1, 0}},
                   .expected = {-2147483648.0, 2147483647, 123456789}});
  cases.push_back({.name = "mul i32 wraps",
                   .op = OpKind::Mul,
                   .inputs = {i32({2}), i32({2})},
                   .values = {{65536, 16777217}, {65536, 1}},
                   .expected = {0, 16777217}});
  cases.push_back({.name = "neg i32 of the minimum",
                   .op = OpKind::Neg,
                   .inputs = {i32({2})},
                   .values = {{-2147483648.0, 2147483647}},
                   .expected = {-2147483648.0, -2147483647}});
  cases.push_back({.name = "sum i32 wraps",
                   .op = OpKind::Sum,
                   .inputs = {i32({4})},
                   .values = {{123456789, 16777217, 2147483647, -5}},
                   .expected = {-2007249648}});
  cases.push_back({.name = "cast f32 to i32 saturates both ways",
                   .op = OpKind::Cast,
                   .inputs = {f32({6})},
                   .attrs = {{"dtype", std::string("i32")}},
                   .values = {{3e9, -3e9, kNan, kInf, -kInf, -2.7}},
                   .expected = {2147483647, -2147483648.0, 0, 2147483647, -2147483648.0, -2}});
  cases.push_back({.name = "slice with negative strides",
                   .op = OpKind::Slice,
                   .inputs = {f32({2, 5})},
                   .attrs = {{"begin", Shape{1, 4}}, {"end", Shape{-3, -6}}, {"strides", Shape{-1, -2}}},
                   .values = {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
                   .expected = {9, 7, 5, 4, 2, 0}});
  cases.push_back(
      {.name = "slice with a negative stride, gradient",
       .op = OpKind::Slice,
       .inputs = {f32({3, 4})},
       .attrs = {{"begin", Shape{2, 1}}, {"end", Shape{-4, 4}}, {"strides", Shape{-1, 2}}},
       .reference = [](const std::vector<Values>& in, const std::vector<TensorType>&, const TensorType&, const Attrs&) {
         Values r;
         for (int row = 2; row >= 0; --row) {
           for (int col = 1; col < 4; col += 2) {
             r.push_back(in[0][static_cast<size_t>(row * 4 + col)]);
           }
         }
         return r;
       }});
  for (const auto& [ta, tb] : {std::pair{1, 0}, std::pair{0, 1}, std::pair{1, 1}}) {
    // Forward against a plain product; the gradients of the transposed forms by finite differences.
    cases.push_back({.name = fmt::format("matmul transposed {} {}, gradient", ta, tb),
                     .op = OpKind::MatMul,
                     .inputs = {ta ? f32({2, 4, 3}) : f32({2, 3, 4}), tb ? f32({2, 5, 4}) : f32({2, 4, 5})},
                     .attrs = {{"transpose_a", int64_t{ta}}, {"transpose_b", int64_t{tb}}},
                     .reference = [ta = ta, tb = tb](const std::vector<Values>& in, const std::vector<TensorType>&,
                                                     const TensorType&, const Attrs&) {
                       Values r;
                       for (int b = 0; b < 2; ++b) {
                         for (int i = 0; i < 3; ++i) {
                           for (int j = 0; j < 5; ++j) {
                             double s = 0;
                             for (int k = 0; k < 4; ++k) {
                               const double x = in[0][static_cast<size_t>(b * 12 + (ta ? k * 3 + i : i * 4 + k))];
                               const double y = in[1][static_cast<size_t>(b * 20 + (tb ? j * 4 + k : k * 5 + j))];
                               s += x * y;
                             }
                             r.push_back(s);
                           }
                         }
                       }
                       return r;
                     }});
  }
  cases.push_back(
      {.name = "matmul transpose_b with a shared 2-D right operand, gradient",
       .op = OpKind::MatMul,
       .inputs = {f32({2, 3, 4}), f32({5, 4})},
       .attrs = {{"transpose_b", int64_t{1}}},
       .reference = [](const std::vector<Values>& in, const std::vector<TensorType>&, const TensorType&, const Attrs&) {
         Values r;
         for (int row = 0; row < 6; ++row) {
           for (int j = 0; j < 5; ++j) {
             double s = 0;
             for (int k = 0; k < 4; ++k) {
               s += in[0][static_cast<size_t>(row * 4 + k)] * in[1][static_cast<size_t>(j * 4 + k)];
             }
             r.push_back(s);
           }
         }
         return r;
       }});
}

}  // namespace iputrain::test
