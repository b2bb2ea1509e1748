// Every primitive's test cases. References are naive double-precision loops written from the op's
// definition, independently of the kernels in core/ops/.
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "tests/core/op_harness.hpp"
#include "tests/core/ref_util.hpp"

namespace iputrain::test {

namespace {

using ir::Attrs;
using ir::OpKind;

// Sum (or mean) over the `axes` attribute, written as "accumulate each input element into the
// output element it maps to".
RefFn ref_reduce(bool mean) {
  return [mean](const std::vector<Values>& in, const std::vector<TensorType>& t, const TensorType& out,
                const Attrs& attrs) {
    const Shape& s = t[0].shape;
    const auto rank = static_cast<int64_t>(s.size());
    std::vector<bool> reduced(s.size(), attrs.get_ints("axes").empty());
    for (int64_t a : attrs.get_ints("axes")) {
      reduced[static_cast<size_t>(a < 0 ? a + rank : a)] = true;
    }
    Shape kept;
    for (size_t d = 0; d < s.size(); ++d) {
      kept.push_back(reduced[d] ? 1 : s[d]);
    }
    Values r(static_cast<size_t>(out.numel()), 0.0);
    for (int64_t i = 0; i < t[0].numel(); ++i) {
      r[static_cast<size_t>(broadcast_index(unflatten(i, s), kept))] += in[0][static_cast<size_t>(i)];
    }
    if (mean) {
      const double count = static_cast<double>(t[0].numel()) / static_cast<double>(out.numel());
      for (double& v : r) {
        v /= count;
      }
    }
    return r;
  };
}

// Matrix product with the op's conventions: a[..., m, k] @ b[k, n] (a's leading dimensions kept),
// batched a[B..., m, k] @ b[B..., k, n], and transposes of the last two dimensions.
Values ref_matmul(const std::vector<Values>& in, const std::vector<TensorType>& t, const TensorType& out,
                  const Attrs& attrs) {
  const bool ta = attrs.get_int("transpose_a") != 0;
  const bool tb = attrs.get_int("transpose_b") != 0;
  const Shape& sa = t[0].shape;
  const Shape& sb = t[1].shape;
  const int64_t ar = sa[sa.size() - 2];
  const int64_t ac = sa.back();
  const int64_t br = sb[sb.size() - 2];
  const int64_t bc = sb.back();
  auto A = [&](int64_t batch, int64_t i, int64_t k) {
    return in[0][static_cast<size_t>(batch * ar * ac + (ta ? k * ac + i : i * ac + k))];
  };
  auto B = [&](int64_t batch, int64_t k, int64_t j) {
    return in[1][static_cast<size_t>(batch * br * bc + (tb ? j * bc + k : k * bc + j))];
  };
  const int64_t m = out.shape[out.shape.size() - 2];
  const int64_t n = out.shape.back();
  const bool b_shared = sb.size() == 2;
  Values r(static_cast<size_t>(out.numel()), 0.0);
  const int64_t kk = ta ? ar : ac;
  const int64_t batches = out.numel() / (m * n);
  for (int64_t bi = 0; bi < batches; ++bi) {
    // With a shared b, a's leading dimensions are independent rows of one product.
    const int64_t ab = bi;
    const int64_t bb = b_shared ? 0 : bi;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double s = 0.0;
        for (int64_t k = 0; k < kk; ++k) {
          s += A(ab, i, k) * B(bb, k, j);
        }
        r[static_cast<size_t>((bi * m + i) * n + j)] = s;
      }
    }
  }
  return r;
}

// Per row: log(sum(exp(z))) - z[label], in double with the maximum subtracted.
Values ref_sce(const std::vector<Values>& in, const std::vector<TensorType>& t, const TensorType& out,
               const Attrs&) {
  const int64_t c = t[0].shape.back();
  Values r(static_cast<size_t>(out.numel()));
  for (size_t row = 0; row < r.size(); ++row) {
    const double* z = &in[0][row * static_cast<size_t>(c)];
    double m = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < c; ++j) {
      m = std::max(m, z[j]);
    }
    double s = 0.0;
    for (int64_t j = 0; j < c; ++j) {
      s += std::exp(z[j] - m);
    }
    r[row] = m + std::log(s) - z[static_cast<size_t>(in[1][row])];
  }
  return r;
}

// (softmax(z) - onehot(label)) * dy per row.
Values ref_sce_grad(const std::vector<Values>& in, const std::vector<TensorType>& t, const TensorType& out,
                    const Attrs&) {
  const auto c = static_cast<size_t>(t[0].shape.back());
  Values r(static_cast<size_t>(out.numel()));
  for (size_t row = 0; row < in[1].size(); ++row) {
    const double* z = &in[0][row * c];
    double m = -std::numeric_limits<double>::infinity();
    for (size_t j = 0; j < c; ++j) {
      m = std::max(m, z[j]);
    }
    double s = 0.0;
    for (size_t j = 0; j < c; ++j) {
      s += std::exp(z[j] - m);
    }
    for (size_t j = 0; j < c; ++j) {
      const double onehot = static_cast<double>(j) == in[1][row] ? 1.0 : 0.0;
      r[row * c + j] = (std::exp(z[j] - m) / s - onehot) * in[2][row];
    }
  }
  return r;
}

Values ref_argmax(const std::vector<Values>& in, const std::vector<TensorType>& t, const TensorType& out,
                  const Attrs& attrs) {
  const Shape& s = t[0].shape;
  int64_t axis = attrs.get_int("axis", -1);
  if (axis < 0) {
    axis += static_cast<int64_t>(s.size());
  }
  Values best_v(static_cast<size_t>(out.numel()), -std::numeric_limits<double>::infinity());
  Values best(static_cast<size_t>(out.numel()), -1.0);
  for (int64_t i = 0; i < t[0].numel(); ++i) {
    Shape idx = unflatten(i, s);
    const double pos = static_cast<double>(idx[static_cast<size_t>(axis)]);
    idx.erase(idx.begin() + axis);
    const auto o = static_cast<size_t>(out.shape.empty() ? 0 : broadcast_index(idx, out.shape));
    // Elements arrive in increasing position along the axis, so a strict > keeps the first maximum.
    if (in[0][static_cast<size_t>(i)] > best_v[o]) {
      best_v[o] = in[0][static_cast<size_t>(i)];
      best[o] = pos;
    }
  }
  return best;
}

Values identity(const std::vector<Values>& in, const std::vector<TensorType>&, const TensorType&,
                const Attrs&) {
  return in[0];
}

}  // namespace

std::vector<OpCase> op_cases() {
  std::vector<OpCase> cases;
  // Broadcasting patterns every binary op runs through: equal shapes, scalar on either side, bias
  // [n], bias first, a column [m, 1] against a row [1, n], rank 3 against a middle column.
  const std::vector<std::tuple<std::string, Shape, Shape>> patterns = {
      {"same", {2, 3}, {2, 3}},
      {"scalar", {2, 3}, {}},
      {"scalar first", {}, {3, 2}},
      {"bias", {4, 3}, {3}},
      {"bias first", {3}, {4, 3}},
      {"column x row", {3, 1}, {1, 4}},
      {"rank 3 x column", {2, 3, 4}, {3, 1}},
      {"rank 3 x [1, n]", {2, 3, 4}, {1, 4}},
  };
  struct Binary {
    OpKind op;
    std::string name;
    std::function<double(double, double)> f;
    double min_abs;  // keeps divisors away from 0
  };
  const std::vector<Binary> binaries = {
      {OpKind::Add, "add", [](double a, double b) { return a + b; }, 0.0},
      {OpKind::Sub, "sub", [](double a, double b) { return a - b; }, 0.0},
      {OpKind::Mul, "mul", [](double a, double b) { return a * b; }, 0.0},
      {OpKind::Div, "div", [](double a, double b) { return a / b; }, 0.5},
  };
  for (const Binary& b : binaries) {
    for (const auto& [pname, sa, sb] : patterns) {
      OpCase c{.name = b.name + " " + pname,
               .op = b.op,
               .inputs = {f32(sa), f32(sb)},
               .reference = ref_binary(b.f)};
      c.min_abs = b.min_abs;
      cases.push_back(c);
    }
    cases.push_back({.name = b.name + " shape mismatch",
                     .op = b.op,
                     .inputs = {f32({2, 3}), f32({4})},
                     .infer_error = "shapes cannot be broadcast together: f32[2, 3] and f32[4]"});
    cases.push_back({.name = b.name + " dtype mismatch",
                     .op = b.op,
                     .inputs = {f32({2}), i32({2})},
                     .infer_error = "element types differ: f32[2] and i32[2]"});
    cases.push_back({.name = b.name + " bool",
                     .op = b.op,
                     .inputs = {boolean({2}), boolean({2})},
                     .infer_error = "bool"});
  }
  // add, sub and mul kernels handle f32 and i32 only; other float types must be refused up front.
  for (OpKind op : {OpKind::Add, OpKind::Sub, OpKind::Mul}) {
    const TensorType half{DType::F16, {2}};
    cases.push_back({.name = std::string(op_name(op)) + " f16",
                     .op = op,
                     .inputs = {half, half},
                     .infer_error = "f16 tensors"});
  }
  for (const auto& [op, name, f] :
       std::vector<std::tuple<OpKind, std::string, std::function<double(double, double)>>>{
           {OpKind::Add, "add", [](double a, double b) { return a + b; }},
           {OpKind::Sub, "sub", [](double a, double b) { return a - b; }},
           {OpKind::Mul, "mul", [](double a, double b) { return a * b; }}}) {
    cases.push_back({.name = name + " i32 bias",
                     .op = op,
                     .inputs = {i32({3, 4}), i32({4})},
                     .reference = ref_binary(f),
                     .lo = -50,
                     .hi = 50});
    cases.push_back({.name = name + " i32 general",
                     .op = op,
                     .inputs = {i32({3, 1}), i32({2, 1, 5})},
                     .reference = ref_binary(f),
                     .lo = -50,
                     .hi = 50});
  }
  cases.push_back(
      {.name = "div i32", .op = OpKind::Div, .inputs = {i32({2}), i32({2})}, .infer_error = "divide"});
  cases.push_back({.name = "add rank 9",
                   .op = OpKind::Add,
                   .inputs = {f32({1, 1, 1, 1, 1, 1, 1, 1, 2}), f32({2})},
                   .infer_error = "rank 9 is above the supported maximum of 8"});
  cases.push_back({.name = "add explicit",
                   .op = OpKind::Add,
                   .inputs = {f32({2, 2}), f32({2})},
                   .values = {{1, 2, 3, 4}, {10, 20}},
                   .expected = {11, 22, 13, 24}});

  // pow: positive bases so both gradients exist; exponents of either sign.
  auto pow_ref = ref_binary([](double a, double b) { return std::pow(a, b); });
  cases.push_back({.name = "pow same",
                   .op = OpKind::Pow,
                   .inputs = {f32({2, 3}), f32({2, 3})},
                   .reference = pow_ref,
                   .lo = 0.5,
                   .hi = 2.0,
                   .rtol = 1e-5});
  cases.push_back({.name = "pow scalar exponent",
                   .op = OpKind::Pow,
                   .inputs = {f32({3, 4}), f32({})},
                   .reference = pow_ref,
                   .lo = 0.5,
                   .hi = 2.0});
  cases.push_back({.name = "pow column exponent",
                   .op = OpKind::Pow,
                   .inputs = {f32({2, 3, 2}), f32({3, 1})},
                   .reference = pow_ref,
                   .lo = 0.5,
                   .hi = 2.0});
  cases.push_back({.name = "pow square",
                   .op = OpKind::Pow,
                   .inputs = {f32({4}), f32({})},
                   .values = {{-3, -0.5, 0, 2.5}, {2}},
                   .expected = {9, 0.25, 0, 6.25},
                   .grad = false});
  cases.push_back({.name = "pow sqrt",
                   .op = OpKind::Pow,
                   .inputs = {f32({3}), f32({})},
                   .values = {{4, 0.25, 2}, {0.5}},
                   .expected = {2, 0.5, std::sqrt(2.0)}});
  cases.push_back({.name = "pow gradient at base 0",
                   .op = OpKind::Pow,
                   .inputs = {f32({2}), f32({2})},
                   .values = {{0, 3}, {2, 2}},
                   .expected = {0, 9},
                   .grad = false});
  cases.push_back({.name = "pow times_log_base (gradient helper)",
                   .op = OpKind::Pow,
                   .inputs = {f32({5}), f32({5})},
                   .attrs = {{"times_log_base", int64_t{1}}},
                   .values = {{0, 1, 2, 0.5, -1}, {2, 3, 2, 1, 2}},
                   // As PyTorch: 0 at a = 0 (b >= 0), nan for a negative base (ln is undefined there).
                   .expected = {0, 0, 4 * std::log(2.0), 0.5 * std::log(0.5), std::nan("")},
                   .grad = false});
  cases.push_back(
      {.name = "pow i32", .op = OpKind::Pow, .inputs = {i32({2}), i32({2})}, .infer_error = "f32"});

  // Unary elementwise.
  cases.push_back({.name = "recomputation_checkpoint",
                   .op = OpKind::RecomputationCheckpoint,
                   .inputs = {f32({3, 2})},
                   .reference = ref_unary([](double x) { return x; })});
  cases.push_back({.name = "recomputation_checkpoint i32",
                   .op = OpKind::RecomputationCheckpoint,
                   .inputs = {i32({2})},
                   .infer_error = "takes a float activation"});
  cases.push_back(
      {.name = "neg", .op = OpKind::Neg, .inputs = {f32({2, 3, 2})}, .reference = ref_unary([](double x) {
                                                                       return -x;
                                                                     })});
  cases.push_back({.name = "neg i32",
                   .op = OpKind::Neg,
                   .inputs = {i32({5})},
                   .values = {{1, -2, 0, 7, -100}},
                   .expected = {-1, 2, 0, -7, 100}});
  cases.push_back(
      {.name = "neg bool", .op = OpKind::Neg, .inputs = {boolean({2})}, .infer_error = "cannot negate"});
  cases.push_back({.name = "relu",
                   .op = OpKind::Relu,
                   .inputs = {f32({4, 5})},
                   .reference = ref_unary([](double x) { return x > 0 ? x : 0.0; }),
                   .min_abs = 0.1});
  cases.push_back({.name = "relu rank 3",
                   .op = OpKind::Relu,
                   .inputs = {f32({2, 3, 4})},
                   .reference = ref_unary([](double x) { return x > 0 ? x : 0.0; }),
                   .min_abs = 0.1});
  cases.push_back({.name = "relu i32", .op = OpKind::Relu, .inputs = {i32({2})}, .infer_error = "f32"});
  cases.push_back({.name = "relu_grad",
                   .op = OpKind::ReluGrad,
                   .inputs = {f32({5}), f32({5})},
                   .values = {{-1, 0, 0.5, 2, -0.1}, {1, 2, 3, 4, 5}},
                   .expected = {0, 0, 3, 4, 0}});
  cases.push_back({.name = "relu_grad random",
                   .op = OpKind::ReluGrad,
                   .inputs = {f32({3, 7}), f32({3, 7})},
                   .reference = ref_binary([](double x, double dy) { return x > 0 ? dy : 0.0; })});
  cases.push_back({.name = "relu_grad shapes",
                   .op = OpKind::ReluGrad,
                   .inputs = {f32({5}), f32({1})},
                   .infer_error = "operands must be f32 of one shape, got f32[5] and f32[1]"});

  // equal -> bool.
  cases.push_back({.name = "equal f32 bias",
                   .op = OpKind::Equal,
                   .inputs = {f32({2, 3}), f32({3})},
                   .values = {{1, 2, 3, 4, 2, 0}, {1, 2, 0}},
                   .expected = {1, 1, 0, 0, 1, 1}});
  cases.push_back({.name = "equal i32 general",
                   .op = OpKind::Equal,
                   .inputs = {i32({3, 1}), i32({1, 4})},
                   .reference = ref_binary([](double a, double b) { return a == b ? 1.0 : 0.0; }),
                   .lo = 0,
                   .hi = 2});
  cases.push_back({.name = "equal bool",
                   .op = OpKind::Equal,
                   .inputs = {boolean({4}), boolean({4})},
                   .values = {{0, 1, 0, 1}, {0, 0, 1, 1}},
                   .expected = {1, 0, 0, 1}});
  cases.push_back({.name = "equal dtypes",
                   .op = OpKind::Equal,
                   .inputs = {f32({2}), i32({2})},
                   .infer_error = "element types differ"});

  // cast.
  cases.push_back({.name = "cast f32 to i32 truncates",
                   .op = OpKind::Cast,
                   .inputs = {f32({6})},
                   .attrs = {{"dtype", std::string("i32")}},
                   .values = {{-1.7, 2.9, 0.4, -0.4, 3e9, -7}},
                   .expected = {-1, 2, 0, 0, 2147483647, -7}});
  cases.push_back({.name = "cast i32 to f32",
                   .op = OpKind::Cast,
                   .inputs = {i32({3})},
                   .attrs = {{"dtype", std::string("f32")}},
                   .values = {{-3, 0, 16777216}},
                   .expected = {-3, 0, 16777216}});
  cases.push_back({.name = "cast f32 to bool",
                   .op = OpKind::Cast,
                   .inputs = {f32({3})},
                   .attrs = {{"dtype", std::string("bool")}},
                   .values = {{0, -0.5, 2}},
                   .expected = {0, 1, 1}});
  cases.push_back({.name = "cast bool to i32",
                   .op = OpKind::Cast,
                   .inputs = {boolean({2})},
                   .attrs = {{"dtype", std::string("i32")}},
                   .values = {{1, 0}},
                   .expected = {1, 0}});
  cases.push_back({.name = "cast bool to f32",
                   .op = OpKind::Cast,
                   .inputs = {boolean({2})},
                   .attrs = {{"dtype", std::string("f32")}},
                   .values = {{0, 1}},
                   .expected = {0, 1}});
  cases.push_back({.name = "cast i32 to bool",
                   .op = OpKind::Cast,
                   .inputs = {i32({3})},
                   .attrs = {{"dtype", std::string("bool")}},
                   .values = {{0, -4, 1}},
                   .expected = {0, 1, 1}});
  cases.push_back({.name = "cast f32 to f32 (gradient)",
                   .op = OpKind::Cast,
                   .inputs = {f32({2, 3})},
                   .attrs = {{"dtype", std::string("f32")}},
                   .reference = identity});
  cases.push_back({.name = "cast to f64",
                   .op = OpKind::Cast,
                   .inputs = {f32({2})},
                   .attrs = {{"dtype", std::string("f64")}},
                   .infer_error = "cannot cast to 'f64'"});
  // From u8, the 8-bit inputs: exact into every type. No gradient flows into a u8 input (as into an
  // i32 one), so these cases check values only (the harness checks gradients of f32 inputs).
  const Values bytes = {0, 1, 127, 128, 200, 255};
  for (const char* to : {"f32", "f16", "bf16", "i32"}) {
    cases.push_back({.name = fmt::format("cast u8 to {}", to),
                     .op = OpKind::Cast,
                     .inputs = {u8({2, 3})},
                     .attrs = {{"dtype", std::string(to)}},
                     .values = {bytes},
                     .expected = bytes});
  }
  cases.push_back({.name = "cast u8 to bool",
                   .op = OpKind::Cast,
                   .inputs = {u8({4})},
                   .attrs = {{"dtype", std::string("bool")}},
                   .values = {{0, 1, 128, 255}},
                   .expected = {0, 1, 1, 1}});
  cases.push_back({.name = "cast u8 random bytes to f32",
                   .op = OpKind::Cast,
                   .inputs = {u8({5, 7})},
                   .attrs = {{"dtype", std::string("f32")}},
                   .reference = identity,
                   .lo = 0,
                   .hi = 255});
  cases.push_back({.name = "cast to u8",
                   .op = OpKind::Cast,
                   .inputs = {f32({2})},
                   .attrs = {{"dtype", std::string("u8")}},
                   .infer_error = "cannot cast to 'u8'"});
  cases.push_back({.name = "cast f32 to f16 (half types come from u8 only)",
                   .op = OpKind::Cast,
                   .inputs = {f32({2})},
                   .attrs = {{"dtype", std::string("f16")}},
                   .infer_error = "cannot cast f32[2] to f16"});
  cases.push_back({.name = "add refuses u8",
                   .op = OpKind::Add,
                   .inputs = {u8({2}), u8({2})},
                   .infer_error = "operand 1 is u8[2], and u8 tensors are only cast"});
  cases.push_back({.name = "matmul refuses u8",
                   .op = OpKind::MatMul,
                   .inputs = {f32({2, 3}), u8({3, 2})},
                   .infer_error = "operand 'b' is u8[3, 2]"});

  // Shapes.
  cases.push_back({.name = "reshape infer -1",
                   .op = OpKind::Reshape,
                   .inputs = {f32({2, 3, 4})},
                   .attrs = {{"shape", Shape{6, -1}}},
                   .reference = identity});
  cases.push_back({.name = "reshape flat",
                   .op = OpKind::Reshape,
                   .inputs = {f32({2, 3})},
                   .attrs = {{"shape", Shape{6}}},
                   .reference = identity});
  cases.push_back({.name = "reshape i32",
                   .op = OpKind::Reshape,
                   .inputs = {i32({4})},
                   .attrs = {{"shape", Shape{2, 1, 2}}},
                   .values = {{1, 2, 3, 4}},
                   .expected = {1, 2, 3, 4}});
  cases.push_back({.name = "reshape count",
                   .op = OpKind::Reshape,
                   .inputs = {f32({2, 3})},
                   .attrs = {{"shape", Shape{4, 2}}},
                   .infer_error = "cannot reshape f32[2, 3] to [4, 2]: 6 elements vs 8"});
  cases.push_back({.name = "reshape two -1",
                   .op = OpKind::Reshape,
                   .inputs = {f32({2, 3})},
                   .attrs = {{"shape", Shape{-1, -1}}},
                   .infer_error = "invalid target shape [-1, -1]"});
  cases.push_back({.name = "reshape -1 indivisible",
                   .op = OpKind::Reshape,
                   .inputs = {f32({2, 3})},
                   .attrs = {{"shape", Shape{4, -1}}},
                   .infer_error = "cannot reshape f32[2, 3] to [4, -1]"});
  for (const auto& [pname, from, to] :
       std::vector<std::tuple<std::string, Shape, Shape>>{{"bias", {3}, {2, 3}},
                                                          {"column", {2, 1}, {2, 3}},
                                                          {"scalar", {}, {2, 2}},
                                                          {"rank 3 general", {3, 1}, {2, 3, 4}},
                                                          {"same", {2, 2}, {2, 2}},
                                                          {"middle", {2, 1, 3}, {2, 4, 3}},
                                                          {"alternating", {1, 3, 1, 2}, {2, 3, 4, 2}}}) {
    cases.push_back({.name = "broadcast_to " + pname,
                     .op = OpKind::BroadcastTo,
                     .inputs = {f32(from)},
                     .attrs = {{"shape", to}},
                     .reference = ref_unary([](double x) { return x; })});
  }
  cases.push_back({.name = "broadcast_to bool",
                   .op = OpKind::BroadcastTo,
                   .inputs = {boolean({2, 1})},
                   .attrs = {{"shape", Shape{2, 2}}},
                   .values = {{1, 0}},
                   .expected = {1, 1, 0, 0}});
  cases.push_back({.name = "broadcast_to bad",
                   .op = OpKind::BroadcastTo,
                   .inputs = {f32({3})},
                   .attrs = {{"shape", Shape{2, 4}}},
                   .infer_error = "cannot broadcast f32[3] to [2, 4]"});

  // Reductions.
  struct Reduction {
    std::string name;
    Shape shape;
    Shape axes;
    int64_t keepdims;
  };
  const std::vector<Reduction> reductions = {
      {"all", {3, 4}, {}, 0},
      {"all keepdims", {2, 3, 2}, {}, 1},
      {"axis 0 (bias gradient)", {5, 3}, {0}, 0},
      {"axis 1", {5, 3}, {1}, 0},
      {"axis -1 keepdims", {2, 3, 4}, {-1}, 1},
      {"middle axis", {2, 3, 4}, {1}, 0},
      {"axes 0 and 2", {2, 3, 4}, {0, 2}, 0},
      {"leading axes", {2, 3, 4}, {0, 1}, 1},
      {"size-1 axis", {3, 1, 2}, {1}, 0},
      {"scalar", {}, {}, 0},
  };
  for (const auto& [name, shape, axes, keepdims] : reductions) {
    const Attrs attrs{{"axes", axes}, {"keepdims", keepdims}};
    cases.push_back({.name = "sum " + name,
                     .op = OpKind::Sum,
                     .inputs = {f32(shape)},
                     .attrs = attrs,
                     .reference = ref_reduce(false),
                     .rtol = 1e-5});
    cases.push_back({.name = "mean " + name,
                     .op = OpKind::Mean,
                     .inputs = {f32(shape)},
                     .attrs = attrs,
                     .reference = ref_reduce(true),
                     .rtol = 1e-5});
  }
  cases.push_back({.name = "sum i32 axis 0",
                   .op = OpKind::Sum,
                   .inputs = {i32({4, 3})},
                   .attrs = {{"axes", Shape{0}}},
                   .reference = ref_reduce(false),
                   .lo = -100,
                   .hi = 100});
  cases.push_back({.name = "sum i32 all",
                   .op = OpKind::Sum,
                   .inputs = {i32({2, 3})},
                   .values = {{1, 2, 3, 4, 5, 6}},
                   .expected = {21}});
  cases.push_back({.name = "mean explicit",
                   .op = OpKind::Mean,
                   .inputs = {f32({2, 2})},
                   .attrs = {{"axes", Shape{1}}},
                   .values = {{1, 2, 3, 5}},
                   .expected = {1.5, 4}});
  cases.push_back({.name = "sum duplicate axes",
                   .op = OpKind::Sum,
                   .inputs = {f32({2, 3})},
                   .attrs = {{"axes", Shape{1, -1}}},
                   .infer_error = "axis -1 is listed twice"});
  cases.push_back({.name = "sum axis out of range",
                   .op = OpKind::Sum,
                   .inputs = {f32({2, 3})},
                   .attrs = {{"axes", Shape{2}}},
                   .infer_error = "axis 2 is out of range for rank 2"});
  cases.push_back(
      {.name = "mean i32", .op = OpKind::Mean, .inputs = {i32({2})}, .infer_error = "cannot average"});
  cases.push_back({.name = "mean keepdims 2",
                   .op = OpKind::Mean,
                   .inputs = {f32({2})},
                   .attrs = {{"keepdims", int64_t{2}}},
                   .infer_error = "keepdims must be 0 or 1"});
  cases.push_back({.name = "argmax ties",
                   .op = OpKind::Argmax,
                   .inputs = {f32({3, 4})},
                   .values = {{1, 5, 5, 0, -1, -2, -3, -1, 7, 7, 7, 7}},
                   .expected = {1, 0, 0}});
  cases.push_back({.name = "argmax axis 0",
                   .op = OpKind::Argmax,
                   .inputs = {f32({3, 4})},
                   .attrs = {{"axis", int64_t{0}}},
                   .reference = ref_argmax});
  cases.push_back({.name = "argmax rank 3 middle",
                   .op = OpKind::Argmax,
                   .inputs = {f32({2, 5, 3})},
                   .attrs = {{"axis", int64_t{1}}},
                   .reference = ref_argmax});
  cases.push_back(
      {.name = "argmax rank 1", .op = OpKind::Argmax, .inputs = {f32({6})}, .reference = ref_argmax});
  cases.push_back({.name = "argmax axis",
                   .op = OpKind::Argmax,
                   .inputs = {f32({2, 3})},
                   .attrs = {{"axis", int64_t{2}}},
                   .infer_error = "axis 2 is out of range for f32[2, 3]"});

  // matmul.
  const Attrs ta{{"transpose_a", int64_t{1}}};
  const Attrs tb{{"transpose_b", int64_t{1}}};
  cases.push_back({.name = "matmul 2-D",
                   .op = OpKind::MatMul,
                   .inputs = {f32({3, 4}), f32({4, 5})},
                   .reference = ref_matmul});
  cases.push_back({.name = "matmul rank 3 @ 2-D",
                   .op = OpKind::MatMul,
                   .inputs = {f32({2, 3, 4}), f32({4, 5})},
                   .reference = ref_matmul});
  cases.push_back({.name = "matmul batched",
                   .op = OpKind::MatMul,
                   .inputs = {f32({2, 3, 4}), f32({2, 4, 5})},
                   .reference = ref_matmul});
  cases.push_back({.name = "matmul transpose_b",
                   .op = OpKind::MatMul,
                   .inputs = {f32({3, 4}), f32({5, 4})},
                   .attrs = tb,
                   .reference = ref_matmul,
                   .grad = false});
  cases.push_back({.name = "matmul transpose_a",
                   .op = OpKind::MatMul,
                   .inputs = {f32({4, 3}), f32({4, 5})},
                   .attrs = ta,
                   .reference = ref_matmul,
                   .grad = false});
  cases.push_back({.name = "matmul rank 3 transpose_a @ 2-D",
                   .op = OpKind::MatMul,
                   .inputs = {f32({2, 4, 3}), f32({4, 5})},
                   .attrs = ta,
                   .infer_error = "transpose_a with a 2-D right operand needs a 2-D left operand"});
  cases.push_back({.name = "matmul batched transpose_a",
                   .op = OpKind::MatMul,
                   .inputs = {f32({2, 4, 3}), f32({2, 4, 5})},
                   .attrs = ta,
                   .reference = ref_matmul,
                   .grad = false});
  cases.push_back({.name = "matmul batched transpose_b",
                   .op = OpKind::MatMul,
                   .inputs = {f32({2, 3, 4}), f32({2, 5, 4})},
                   .attrs = tb,
                   .reference = ref_matmul,
                   .grad = false});
  cases.push_back({.name = "matmul inner",
                   .op = OpKind::MatMul,
                   .inputs = {f32({3, 4}), f32({5, 6})},
                   .infer_error = "inner dimensions differ: f32[3, 4] @ f32[5, 6]"});
  cases.push_back({.name = "matmul batch",
                   .op = OpKind::MatMul,
                   .inputs = {f32({2, 3, 4}), f32({3, 4, 5})},
                   .infer_error = "batch dimensions differ"});
  cases.push_back({.name = "matmul rank 1",
                   .op = OpKind::MatMul,
                   .inputs = {f32({4}), f32({4, 5})},
                   .infer_error = "rank >= 2"});

  // Losses.
  cases.push_back({.name = "softmax_cross_entropy",
                   .op = OpKind::SoftmaxCrossEntropy,
                   .inputs = {f32({4, 5}), i32({4})},
                   .values = {{}, {0, 4, 2, 2}},
                   .reference = ref_sce});
  cases.push_back({.name = "softmax_cross_entropy rank 3",
                   .op = OpKind::SoftmaxCrossEntropy,
                   .inputs = {f32({2, 3, 4}), i32({2, 3})},
                   .values = {{}, {0, 1, 2, 3, 3, 0}},
                   .reference = ref_sce});
  cases.push_back({.name = "softmax_cross_entropy large logits",
                   .op = OpKind::SoftmaxCrossEntropy,
                   .inputs = {f32({3, 3}), i32({3})},
                   .values = {{1000, 0, -1000, 1000, 1000, 0, -5000, 5000, 4999}, {0, 2, 2}},
                   .expected = {0, 1000 + std::log(2.0), 1 + std::log(1 + std::exp(-1.0))},
                   .grad = false,
                   .rtol = 1e-6,
                   .atol = 1e-5});
  cases.push_back({.name = "softmax_cross_entropy label range",
                   .op = OpKind::SoftmaxCrossEntropy,
                   .inputs = {f32({2, 3}), i32({2})},
                   .values = {{}, {1, 3}},
                   .reference = ref_sce,
                   .run_error = "label 3 out of range [0, 3)"});
  cases.push_back({.name = "softmax_cross_entropy negative label",
                   .op = OpKind::SoftmaxCrossEntropy,
                   .inputs = {f32({1, 3}), i32({1})},
                   .values = {{}, {-1}},
                   .reference = ref_sce,
                   .run_error = "label -1 out of range [0, 3)"});
  cases.push_back({.name = "softmax_cross_entropy labels shape",
                   .op = OpKind::SoftmaxCrossEntropy,
                   .inputs = {f32({4, 5}), i32({5})},
                   .infer_error = "labels must be i32[4] for logits f32[4, 5]"});
  cases.push_back({.name = "softmax_cross_entropy labels dtype",
                   .op = OpKind::SoftmaxCrossEntropy,
                   .inputs = {f32({4, 5}), f32({4})},
                   .infer_error = "labels must be i32[4]"});
  cases.push_back({.name = "softmax_cross_entropy_grad",
                   .op = OpKind::SoftmaxCrossEntropyGrad,
                   .inputs = {f32({3, 4}), i32({3}), f32({3})},
                   .values = {{}, {3, 0, 1}},
                   .reference = ref_sce_grad});
  cases.push_back({.name = "softmax_cross_entropy_grad large logits",
                   .op = OpKind::SoftmaxCrossEntropyGrad,
                   .inputs = {f32({2, 3}), i32({2}), f32({2})},
                   .values = {{1000, 0, -1000, -5000, 5000, 4999}, {0, 1}, {1, 2}},
                   .reference = ref_sce_grad,
                   .atol = 1e-6});
  cases.push_back({.name = "softmax_cross_entropy_grad label range",
                   .op = OpKind::SoftmaxCrossEntropyGrad,
                   .inputs = {f32({1, 2}), i32({1}), f32({1})},
                   .values = {{}, {2}, {}},
                   .reference = ref_sce_grad,
                   .run_error = "label 2 out of range [0, 2)"});
  add_math_cases(cases);
  add_shape_cases(cases);
  add_nn_cases(cases);
  add_edge_cases(cases);
  add_scan_cases(cases);
  add_recurrent_cases(cases);
  add_ctc_cases(cases);
  add_collective_cases(cases);
  add_custom_cases(cases);
  add_dynamic_cases(cases);
  add_loop_cases(cases);
  add_sampling_cases(cases);
  cases.push_back({.name = "softmax_cross_entropy_grad dy",
                   .op = OpKind::SoftmaxCrossEntropyGrad,
                   .inputs = {f32({3, 4}), i32({3}), f32({4})},
                   .infer_error = "dy must be f32[3]"});
  return cases;
}

}  // namespace iputrain::test
