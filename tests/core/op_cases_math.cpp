// Cases for the f32 unary ops and their shared gradient op, maximum/minimum, the comparisons,
// where and the max reduction.
#include <cmath>
#include <limits>

#include "tests/core/ref_util.hpp"

namespace iputrain::test {

namespace {

double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}
double gelu_erf(double x) {
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}
double gelu_tanh(double x) {
  const double c = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x)));
}

struct Unary {
  OpKind op;
  std::string name;
  std::function<double(double)> f;
  std::function<double(double)> df;  // for the unary_grad cases
  double lo, hi, min_abs;
  Attrs attrs;
};

std::vector<Unary> unaries() {
  const Attrs tanh_form{{"approximate", std::string("tanh")}};
  return {
      {OpKind::Exp, "exp", [](double x) { return std::exp(x); }, [](double x) { return std::exp(x); }, -2, 2, 0, {}},
      {OpKind::Log, "log", [](double x) { return std::log(x); }, [](double x) { return 1 / x; }, 0.2, 3, 0, {}},
      {OpKind::Log1p,
       "log1p",
       [](double x) { return std::log1p(x); },
       [](double x) { return 1 / (1 + x); },
       -0.8,
       3,
       0,
       {}},
      {OpKind::Sqrt,
       "sqrt",
       [](double x) { return std::sqrt(x); },
       [](double x) { return 0.5 / std::sqrt(x); },
       0.2,
       3,
       0,
       {}},
      {OpKind::Rsqrt,
       "rsqrt",
       [](double x) { return 1 / std::sqrt(x); },
       [](double x) { return -0.5 * std::pow(x, -1.5); },
       0.2,
       3,
       0,
       {}},
      {OpKind::Abs,
       "abs",
       [](double x) { return std::fabs(x); },
       [](double x) { return x > 0 ? 1.0 : -1.0; },
       -2,
       2,
       0.05,
       {}},
      {OpKind::Square, "square", [](double x) { return x * x; }, [](double x) { return 2 * x; }, -2, 2, 0, {}},
      {OpKind::Tanh,
       "tanh",
       [](double x) { return std::tanh(x); },
       [](double x) { return 1 - std::tanh(x) * std::tanh(x); },
       -3,
       3,
       0,
       {}},
      {OpKind::Sigmoid, "sigmoid", sigmoid, [](double x) { return sigmoid(x) * (1 - sigmoid(x)); }, -4, 4, 0, {}},
      {OpKind::Gelu,
       "gelu",
       gelu_erf,
       [](double x) {
         return 0.5 * (1 + std::erf(x / std::sqrt(2.0))) + x * std::exp(-x * x / 2) / std::sqrt(2 * M_PI);
       },
       -3,
       3,
       0,
       {}},
      {OpKind::Gelu, "gelu tanh", gelu_tanh,
       [](double x) {
         const double h = 1e-6;
         return (gelu_tanh(x + h) - gelu_tanh(x - h)) / (2 * h);
       },
       -3, 3, 0, tanh_form},
      {OpKind::Swish,
       "swish",
       [](double x) { return x * sigmoid(x); },
       [](double x) { return sigmoid(x) + x * sigmoid(x) * (1 - sigmoid(x)); },
       -4,
       4,
       0,
       {}},
      {OpKind::Erf,
       "erf",
       [](double x) { return std::erf(x); },
       [](double x) { return 2 / std::sqrt(M_PI) * std::exp(-x * x); },
       -3,
       3,
       0,
       {}},
      {OpKind::Sin, "sin", [](double x) { return std::sin(x); }, [](double x) { return std::cos(x); }, -4, 4, 0, {}},
      {OpKind::Cos, "cos", [](double x) { return std::cos(x); }, [](double x) { return -std::sin(x); }, -4, 4, 0, {}},
      {OpKind::HardSigmoid,
       "hard_sigmoid",
       [](double x) { return std::clamp(0.2 * x + 0.5, 0.0, 1.0); },
       [](double x) { return std::fabs(x) < 2.5 ? 0.2 : 0.0; },
       -2.4,
       2.4,
       0,
       {}},
      {OpKind::Softsign,
       "softsign",
       [](double x) { return x / (1 + std::fabs(x)); },
       [](double x) { return 1 / ((1 + std::fabs(x)) * (1 + std::fabs(x))); },
       -4,
       4,
       0,
       {}},
  };
}

// Per row of the middle axis: the maximum over the `axes` attribute.
Values ref_max(const std::vector<Values>& in, const std::vector<TensorType>& t, const TensorType& out,
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
  Values r(static_cast<size_t>(out.numel()), -std::numeric_limits<double>::infinity());
  for (int64_t i = 0; i < t[0].numel(); ++i) {
    double& m = r[static_cast<size_t>(broadcast_index(unflatten(i, s), kept))];
    m = std::max(m, in[0][static_cast<size_t>(i)]);
  }
  return r;
}

Values ref_where(const std::vector<Values>& in, const std::vector<TensorType>& t, const TensorType& out,
                 const Attrs&) {
  Values r(static_cast<size_t>(out.numel()));
  for (int64_t i = 0; i < out.numel(); ++i) {
    const Shape idx = unflatten(i, out.shape);
    const bool c = in[0][static_cast<size_t>(broadcast_index(idx, t[0].shape))] != 0;
    r[static_cast<size_t>(i)] = in[c ? 1 : 2][static_cast<size_t>(broadcast_index(idx, t[c ? 1 : 2].shape))];
  }
  return r;
}

}  // namespace

void add_math_cases(std::vector<OpCase>& cases) {
  for (const Unary& u : unaries()) {
    for (const Shape& s : {Shape{7}, Shape{2, 3, 4}, Shape{}}) {
      OpCase c{.name = u.name + " " + shape_str(s),
               .op = u.op,
               .inputs = {f32(s)},
               .attrs = u.attrs,
               .reference = ref_unary(u.f),
               .lo = u.lo,
               .hi = u.hi,
               .min_abs = u.min_abs};
      cases.push_back(c);
    }
    // unary_grad on its own: dy * f'(x) against the analytic derivative.
    Attrs ga{{"fn", std::string(ir::op_name(u.op))}};
    if (u.attrs.has("approximate")) {
      ga.set("approximate", u.attrs.get_str("approximate"));
    }
    cases.push_back({.name = "unary_grad " + u.name,
                     .op = OpKind::UnaryGrad,
                     .inputs = {f32({3, 5}), f32({3, 5})},
                     .attrs = ga,
                     .reference =
                         [df = u.df](const std::vector<Values>& in, const std::vector<TensorType>&,
                                     const TensorType&, const Attrs&) {
                           Values r(in[0].size());
                           for (size_t i = 0; i < r.size(); ++i) {
                             r[i] = in[1][i] * df(in[0][i]);
                           }
                           return r;
                         },
                     .lo = u.lo,
                     .hi = u.hi,
                     .min_abs = u.min_abs,
                     .rtol = 1e-4,
                     .atol = 1e-5});
  }
  // Edge values: saturation, zeros, large magnitudes.
  cases.push_back({.name = "sigmoid extremes",
                   .op = OpKind::Sigmoid,
                   .inputs = {f32({5})},
                   .values = {{-100, -20, 0, 20, 100}},
                   .expected = {0, sigmoid(-20), 0.5, sigmoid(20), 1},
                   .grad = false,
                   .atol = 1e-7});
  cases.push_back({.name = "hard_sigmoid saturates",
                   .op = OpKind::HardSigmoid,
                   .inputs = {f32({5})},
                   .values = {{-4, -1, 0, 1, 4}},
                   .expected = {0, 0.3, 0.5, 0.7, 1}});
  const double infinity = std::numeric_limits<double>::infinity();
  cases.push_back({.name = "softsign reaches its limits at the infinities",
                   .op = OpKind::Softsign,
                   .inputs = {f32({7})},
                   .values = {{-infinity, -3, -0.0, 0, 1, 1e30, infinity}},
                   .expected = {-1, -0.75, -0.0, 0, 0.5, 1, 1},
                   .grad = false});
  cases.push_back({.name = "erf saturates and is odd",
                   .op = OpKind::Erf,
                   .inputs = {f32({7})},
                   .values = {{-10, -1, -0.5, 0, 0.5, 1, 10}},
                   .expected = {-1, std::erf(-1.0), std::erf(-0.5), 0, std::erf(0.5), std::erf(1.0), 1},
                   .grad = false,
                   .atol = 1e-6});
  cases.push_back({.name = "log zero",
                   .op = OpKind::Log,
                   .inputs = {f32({2})},
                   .values = {{0, 1}},
                   .expected = {-std::numeric_limits<double>::infinity(), 0},
                   .grad = false});
  // Where 1 + x rounds to 1 (log gives 0), log1p keeps x; -1 is its pole, below it nan.
  cases.push_back(
      {.name = "log1p small, pole and beyond",
       .op = OpKind::Log1p,
       .inputs = {f32({5})},
       .values = {{1e-10, -1e-9, 1e-40, -1, -2}},
       .expected = {1e-10, -1e-9, static_cast<double>(1e-40f), -std::numeric_limits<double>::infinity(), std::nan("")},
       .grad = false,
       .rtol = 1e-6,
       .atol = 0});
  cases.push_back({.name = "abs gradient at 0",
                   .op = OpKind::UnaryGrad,
                   .inputs = {f32({3}), f32({3})},
                   .attrs = {{"fn", std::string("abs")}},
                   .values = {{-1, 0, 2}, {5, 5, 5}},
                   .expected = {-5, 0, 5}});
  cases.push_back({.name = "swish large",
                   .op = OpKind::Swish,
                   .inputs = {f32({3})},
                   .values = {{-50, 0, 50}},
                   .expected = {0, 0, 50},
                   .grad = false,
                   .atol = 1e-6});
  cases.push_back(
      {.name = "exp i32", .op = OpKind::Exp, .inputs = {i32({2})}, .infer_error = "must be f32, got i32[2]"});
  // The piecewise-constant ones: exact values, halves and signed zeros; no gradient flows.
  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  const Values halves{-2.5, -1.5, -0.5, -0.0, 0.5, 1.5, 2.5, 2.7, -2.7, inf, -inf, nan};
  cases.push_back({.name = "floor halves",
                   .op = OpKind::Floor,
                   .inputs = {f32({12})},
                   .values = {halves},
                   .expected = {-3, -2, -1, 0, 0, 1, 2, 2, -3, inf, -inf, nan}});
  cases.push_back({.name = "ceil halves",
                   .op = OpKind::Ceil,
                   .inputs = {f32({12})},
                   .values = {halves},
                   .expected = {-2, -1, 0, 0, 1, 2, 3, 3, -2, inf, -inf, nan}});
  cases.push_back({.name = "round halves to even",
                   .op = OpKind::Round,
                   .inputs = {f32({12})},
                   .values = {halves},
                   .expected = {-2, -2, 0, 0, 0, 2, 2, 3, -3, inf, -inf, nan}});
  cases.push_back({.name = "sign",
                   .op = OpKind::Sign,
                   .inputs = {f32({12})},
                   .values = {halves},
                   .expected = {-1, -1, -1, 0, 1, 1, 1, 1, -1, 1, -1, nan}});
  for (OpKind op : {OpKind::Log, OpKind::Log1p, OpKind::Sqrt, OpKind::Rsqrt, OpKind::Abs, OpKind::Square, OpKind::Tanh,
                    OpKind::Sigmoid, OpKind::Swish, OpKind::HardSigmoid, OpKind::Softsign, OpKind::Erf, OpKind::Sin,
                    OpKind::Cos, OpKind::Floor, OpKind::Ceil, OpKind::Round, OpKind::Sign}) {
    cases.push_back({.name = std::string(ir::op_name(op)) + " bool",
                     .op = op,
                     .inputs = {boolean({2})},
                     .infer_error = "must be f32"});
  }
  cases.push_back({.name = "gelu approximate",
                   .op = OpKind::Gelu,
                   .inputs = {f32({2})},
                   .attrs = {{"approximate", std::string("fast")}},
                   .infer_error = "gelu: argument 'approximate' must be one of \"none\", \"tanh\", got \"fast\""});
  cases.push_back({.name = "unary_grad checks the function's attributes",
                   .op = OpKind::UnaryGrad,
                   .inputs = {f32({2}), f32({2})},
                   .attrs = {{"fn", std::string("gelu")}, {"approximate", std::string("fast")}},
                   .infer_error = "unary_grad: argument 'approximate' must be one of \"none\", \"tanh\""});
  cases.push_back({.name = "unary_grad unknown fn",
                   .op = OpKind::UnaryGrad,
                   .inputs = {f32({2}), f32({2})},
                   .attrs = {{"fn", std::string("cosh")}},
                   .infer_error = "unknown function \"cosh\""});

  // maximum / minimum over the broadcasting patterns; random values rarely tie.
  const std::vector<std::tuple<std::string, Shape, Shape>> patterns = {
      {"same", {2, 3}, {2, 3}},
      {"scalar", {2, 3}, {}},
      {"bias first", {3}, {4, 3}},
      {"column x row", {3, 1}, {1, 4}},
      {"rank 3 x column", {2, 3, 4}, {3, 1}},
      {"row scalar", {2, 3, 4}, {2, 3, 1}},
      {"middle", {2, 1, 4}, {2, 3, 4}},
      {"leading", {1, 3, 4}, {2, 3, 4}},
      {"alternating", {2, 1, 3, 1}, {1, 4, 1, 5}},
  };
  for (const auto& [pname, sa, sb] : patterns) {
    cases.push_back({.name = "maximum " + pname,
                     .op = OpKind::Maximum,
                     .inputs = {f32(sa), f32(sb)},
                     .reference = ref_binary([](double a, double b) { return std::max(a, b); })});
    cases.push_back({.name = "minimum " + pname,
                     .op = OpKind::Minimum,
                     .inputs = {f32(sa), f32(sb)},
                     .reference = ref_binary([](double a, double b) { return std::min(a, b); })});
  }
  cases.push_back({.name = "maximum i32",
                   .op = OpKind::Maximum,
                   .inputs = {i32({2, 3}), i32({3})},
                   .reference = ref_binary([](double a, double b) { return std::max(a, b); }),
                   .lo = -9,
                   .hi = 9});
  cases.push_back({.name = "minimum i32",
                   .op = OpKind::Minimum,
                   .inputs = {i32({4}), i32({})},
                   .values = {{-3, 0, 5, 2}, {2}},
                   .expected = {-3, 0, 2, 2}});
  cases.push_back({.name = "maximum bool",
                   .op = OpKind::Maximum,
                   .inputs = {boolean({2}), boolean({2})},
                   .infer_error = "operands must be f32 or i32"});
  cases.push_back({.name = "minimum shapes",
                   .op = OpKind::Minimum,
                   .inputs = {f32({2, 3}), f32({2})},
                   .infer_error = "shapes cannot be broadcast together"});
  cases.push_back({.name = "minmax_grad max ties",
                   .op = OpKind::MinMaxGrad,
                   .inputs = {f32({4}), f32({}), f32({4})},
                   .attrs = {{"mode", std::string("max")}, {"side", int64_t{0}}},
                   .values = {{1, 2, 3, 2}, {2}, {10, 10, 10, 10}},
                   .expected = {0, 5, 10, 5}});
  cases.push_back({.name = "minmax_grad min side 1",
                   .op = OpKind::MinMaxGrad,
                   .inputs = {f32({2, 2}), f32({2}), f32({2, 2})},
                   .attrs = {{"mode", std::string("min")}, {"side", int64_t{1}}},
                   .values = {{1, 5, 3, 0}, {2, 0}, {1, 2, 3, 4}},
                   .expected = {0, 2, 3, 2}});
  cases.push_back({.name = "minmax_grad mode",
                   .op = OpKind::MinMaxGrad,
                   .inputs = {f32({2}), f32({2}), f32({2})},
                   .attrs = {{"mode", std::string("mean")}},
                   .infer_error = "mode must be \"max\" or \"min\""});

  // Comparisons -> bool.
  struct Cmp {
    OpKind op;
    std::string name;
    std::function<bool(double, double)> f;
  };
  const std::vector<Cmp> cmps = {
      {OpKind::NotEqual, "not_equal", [](double a, double b) { return a != b; }},
      {OpKind::Less, "less", [](double a, double b) { return a < b; }},
      {OpKind::LessEqual, "less_equal", [](double a, double b) { return a <= b; }},
      {OpKind::Greater, "greater", [](double a, double b) { return a > b; }},
      {OpKind::GreaterEqual, "greater_equal", [](double a, double b) { return a >= b; }},
  };
  for (const Cmp& c : cmps) {
    auto ref = ref_binary([f = c.f](double a, double b) { return f(a, b) ? 1.0 : 0.0; });
    // Small integers make ties common, so equality edges are exercised.
    cases.push_back({.name = c.name + " i32 general",
                     .op = c.op,
                     .inputs = {i32({3, 1}), i32({2, 1, 4})},
                     .reference = ref,
                     .lo = 0,
                     .hi = 2});
    cases.push_back({.name = c.name + " f32 bias",
                     .op = c.op,
                     .inputs = {f32({2, 3}), f32({3})},
                     .values = {{1, 2, 3, 4, 2, 0}, {1, 2, 0}},
                     .reference = ref});
    cases.push_back({.name = c.name + " dtypes",
                     .op = c.op,
                     .inputs = {f32({2}), i32({2})},
                     .infer_error = "element types differ"});
  }
  cases.push_back({.name = "not_equal bool",
                   .op = OpKind::NotEqual,
                   .inputs = {boolean({4}), boolean({4})},
                   .values = {{0, 1, 0, 1}, {0, 0, 1, 1}},
                   .expected = {0, 1, 1, 0}});
  cases.push_back({.name = "less bool",
                   .op = OpKind::Less,
                   .inputs = {boolean({2}), boolean({2})},
                   .infer_error = "cannot compare bool"});
  cases.push_back({.name = "greater nan",
                   .op = OpKind::Greater,
                   .inputs = {f32({2}), f32({2})},
                   .values = {{std::nan(""), 1}, {0, std::nan("")}},
                   .expected = {0, 0}});

  // where.
  for (const auto& [pname, sc, sa, sb] : std::vector<std::tuple<std::string, Shape, Shape, Shape>>{
           {"same", {2, 3}, {2, 3}, {2, 3}},
           {"scalar branch", {2, 3}, {2, 3}, {}},
           {"column cond", {3, 1}, {3, 4}, {4}},
           {"all broadcast", {2, 1, 1}, {1, 3, 1}, {1, 1, 4}},
           {"causal mask", {4, 4}, {2, 3, 4, 4}, {}},
           {"row scalar cond", {2, 3, 1}, {2, 3, 4}, {2, 1, 4}},
       }) {
    cases.push_back({.name = "where " + pname,
                     .op = OpKind::Where,
                     .inputs = {boolean(sc), f32(sa), f32(sb)},
                     .reference = ref_where});
  }
  // Rows split into blocks (16384 / 70 rows each): the second block starts mid-tensor.
  cases.push_back({.name = "where many rows",
                   .op = OpKind::Where,
                   .inputs = {boolean({300, 1}), f32({300, 70}), f32({70})},
                   .reference = ref_where,
                   .grad = false});
  cases.push_back({.name = "maximum many rows",
                   .op = OpKind::Maximum,
                   .inputs = {f32({3, 100, 70}), f32({3, 100, 1})},
                   .reference = ref_binary([](double a, double b) { return std::max(a, b); }),
                   .grad = false});
  cases.push_back({.name = "where i32",
                   .op = OpKind::Where,
                   .inputs = {boolean({4}), i32({4}), i32({})},
                   .values = {{1, 0, 0, 1}, {1, 2, 3, 4}, {-1}},
                   .expected = {1, -1, -1, 4}});
  cases.push_back({.name = "where cond f32",
                   .op = OpKind::Where,
                   .inputs = {f32({2}), f32({2}), f32({2})},
                   .infer_error = "the condition must be bool, got f32[2]"});
  cases.push_back({.name = "where branch dtypes",
                   .op = OpKind::Where,
                   .inputs = {boolean({2}), f32({2}), i32({2})},
                   .infer_error = "element types differ"});
  cases.push_back({.name = "where cond shape",
                   .op = OpKind::Where,
                   .inputs = {boolean({3}), f32({2}), f32({2})},
                   .infer_error = "the condition bool[3] cannot be broadcast with f32[2]"});

  // max: the patterns of sum/mean (random values do not tie, so finite differences apply).
  struct Reduction {
    std::string name;
    Shape shape;
    Shape axes;
    int64_t keepdims;
  };
  for (const auto& [name, shape, axes, keepdims] : std::vector<Reduction>{
           {"all", {3, 4}, {}, 0},
           {"axis 0", {5, 3}, {0}, 0},
           {"axis -1 keepdims", {2, 3, 4}, {-1}, 1},
           {"middle axis", {2, 3, 4}, {1}, 0},
           {"axes 0 and 2", {2, 3, 4}, {0, 2}, 1},
           {"leading axes", {2, 3, 4}, {0, 1}, 0},
           {"scalar", {}, {}, 0},
       }) {
    cases.push_back({.name = "max " + name,
                     .op = OpKind::Max,
                     .inputs = {f32(shape)},
                     .attrs = {{"axes", axes}, {"keepdims", keepdims}},
                     .reference = ref_max});
  }
  cases.push_back({.name = "max i32",
                   .op = OpKind::Max,
                   .inputs = {i32({2, 3})},
                   .attrs = {{"axes", Shape{1}}},
                   .values = {{-5, -2, -9, 4, 4, 1}},
                   .expected = {-2, 4}});
  cases.push_back({.name = "max nan",
                   .op = OpKind::Max,
                   .inputs = {f32({2, 3})},
                   .attrs = {{"axes", Shape{1}}},
                   .values = {{1, std::nan(""), 3, 1, 2, 3}},
                   .expected = {std::nan(""), 3},
                   .grad = false});
  cases.push_back({.name = "max bool",
                   .op = OpKind::Max,
                   .inputs = {boolean({2})},
                   .infer_error = "cannot take the maximum"});
  cases.push_back({.name = "max empty",
                   .op = OpKind::Max,
                   .inputs = {f32({0, 3})},
                   .attrs = {{"axes", Shape{0}}},
                   .infer_error = "the maximum of the empty tensor"});
}

}  // namespace iputrain::test
