// Binary operators: folded at compile time on numbers, strings and lists, or an IR op on tensors.
#include "frontend/builtins.hpp"
#include "frontend/elaborator_impl.hpp"

#include <fmt/format.h>

#include <cmath>

namespace iputrain::frontend::elab {

namespace {

std::string operand_hint(Operator op, const Value& a, const Value& b) {
  if (a.kind == K::Initializer || b.kind == K::Initializer) {
    return "initializers describe a param's initial value: `param w: f32[n] = zeros()`";
  }
  if (a.kind == K::Function || b.kind == K::Function) {
    return "is a call missing its arguments?";
  }
  return op == Operator::MatMul ? "'@' multiplies tensors" : "";
}

// <, <=, > or >= on two values of one ordered type.
template <typename T>
bool ordered(Operator op, const T& x, const T& y) {
  switch (op) {
    case Operator::Less:
      return x < y;
    case Operator::LessEqual:
      return x <= y;
    case Operator::Greater:
      return x > y;
    default:
      return x >= y;
  }
}

// Python's // and %: the quotient rounds towards negative infinity. False on overflow.
bool floor_div_mod(Operator op, int64_t x, int64_t y, int64_t& r) {
  if (x == INT64_MIN && y == -1) {
    return false;
  }
  int64_t q = x / y;
  if ((x % y != 0) && ((x < 0) != (y < 0))) {
    --q;  // floor, as in Python
  }
  r = op == Operator::FloorDiv ? q : x - q * y;
  return true;
}

// x ** y for y >= 0. False on overflow.
bool int_power(int64_t x, int64_t y, int64_t& r) {
  r = 1;
  for (int64_t k = 0; k < y; ++k) {
    if (x == -1) {
      r = y % 2 == 0 ? 1 : -1;
      break;
    }
    if (__builtin_mul_overflow(r, x, &r)) {
      return false;
    }
    if (x == 0 || x == 1) {
      break;
    }
  }
  return true;
}

// The IR op of a binary operator on tensors; Count for those that have none.
ir::OpKind tensor_op(Operator op) {
  switch (op) {
    case Operator::Add:
      return ir::OpKind::Add;
    case Operator::Sub:
      return ir::OpKind::Sub;
    case Operator::Mul:
      return ir::OpKind::Mul;
    case Operator::Div:
      return ir::OpKind::Div;
    case Operator::Pow:
      return ir::OpKind::Pow;
    case Operator::MatMul:
      return ir::OpKind::MatMul;
    case Operator::Equal:
      return ir::OpKind::Equal;
    case Operator::NotEqual:
      return ir::OpKind::NotEqual;
    case Operator::Less:
      return ir::OpKind::Less;
    case Operator::LessEqual:
      return ir::OpKind::LessEqual;
    case Operator::Greater:
      return ir::OpKind::Greater;
    case Operator::GreaterEqual:
      return ir::OpKind::GreaterEqual;
    default:
      return ir::OpKind::Count;
  }
}

}  // namespace

// Compile-time arithmetic and comparison, with Python's meaning of / // % and **.
Value Elaborator::fold(const Expr& e, const Value& a, const Value& b) const {
  const Operator op = e.op;
  if (op == Operator::Equal) {
    return Value::of_bool(same_value(a, b));
  }
  if (op == Operator::NotEqual) {
    return Value::of_bool(!same_value(a, b));
  }
  if (op == Operator::Add && a.kind == K::String && b.kind == K::String) {
    return Value::of_string(a.s + b.s);
  }
  if (op == Operator::Add && a.kind == K::List && b.kind == K::List) {
    std::vector<Value> items = a.list;
    items.insert(items.end(), b.list.begin(), b.list.end());
    return Value::of_list(std::move(items));
  }
  const bool cmp = ast::is_ordering(op);
  if (cmp && a.kind == K::String && b.kind == K::String) {
    return Value::of_bool(ordered(op, a.s.compare(b.s), 0));
  }
  if (!a.is_number() || !b.is_number()) {
    fail(e.span, fmt::format("cannot apply '{}' to {} and {}", e.text, describe(a, g_), describe(b, g_)),
         operand_hint(op, a, b));
  }
  if (cmp) {
    return Value::of_bool(ordered(op, a.as_double(), b.as_double()));
  }
  if (op == Operator::MatMul) {
    fail(e.span, fmt::format("'@' needs tensors, got {} and {}", describe(a, g_), describe(b, g_)));
  }
  const bool division = op == Operator::Div || op == Operator::FloorDiv || op == Operator::Mod;
  if (division && b.as_double() == 0.0) {
    fail(e.items[1]->span, "division by zero");
  }
  if (a.kind == K::Int && b.kind == K::Int) {
    if (auto r = fold_ints(e, a.i, b.i)) {
      return *r;
    }
  }
  return fold_floats(e, a.as_double(), b.as_double());
}

// Int arithmetic, or nothing when the result is a float: `/` is true division and a negative
// power is fractional.
std::optional<Value> Elaborator::fold_ints(const Expr& e, int64_t x, int64_t y) const {
  int64_t r = 0;
  bool ok = true;
  switch (e.op) {
    case Operator::Add:
      ok = !__builtin_add_overflow(x, y, &r);
      break;
    case Operator::Sub:
      ok = !__builtin_sub_overflow(x, y, &r);
      break;
    case Operator::Mul:
      ok = !__builtin_mul_overflow(x, y, &r);
      break;
    case Operator::FloorDiv:
    case Operator::Mod:
      ok = floor_div_mod(e.op, x, y, r);
      break;
    case Operator::Pow:
      if (y < 0) {
        return std::nullopt;
      }
      ok = int_power(x, y, r);
      break;
    default:
      return std::nullopt;
  }
  if (!ok) {
    fail(e.span, "integer overflow in a compile-time expression");
  }
  return Value::of_int(r);
}

Value Elaborator::fold_floats(const Expr& e, double x, double y) const {
  switch (e.op) {
    case Operator::Add:
      return Value::of_float(x + y);
    case Operator::Sub:
      return Value::of_float(x - y);
    case Operator::Mul:
      return Value::of_float(x * y);
    case Operator::Div:
      return Value::of_float(x / y);
    case Operator::FloorDiv:
      return Value::of_float(std::floor(x / y));
    case Operator::Mod:
      return Value::of_float(x - std::floor(x / y) * y);
    case Operator::Pow:
      return Value::of_float(std::pow(x, y));
    default:
      fail(e.span, fmt::format("unknown operator '{}'", e.text));
  }
}

// A scalar next to a tensor becomes a constant of the tensor's dtype, then the broadcasting op.
ir::ValueId Elaborator::scalar_as_tensor(const Value& v, DType like, SourceSpan span, const Expr& e) {
  if (v.kind == K::Tensor) {
    return v.tensor;
  }
  if (!v.is_number() && v.kind != K::Bool) {
    fail(e.span, fmt::format("cannot apply '{}' to {}", e.text, describe(v, g_)), operand_hint(e.op, v, v));
  }
  if (v.kind == K::Float && !is_float(like)) {
    fail(span, fmt::format("cannot combine float {} with a tensor of dtype {}", v.f, dtype_name(like)),
         "cast the tensor first: cast(x, dtype = \"f32\")");
  }
  const double value = v.kind == K::Bool ? (v.b ? 1.0 : 0.0) : v.as_double();
  return g_.add_constant(value, TensorType{like, {}}, span);
}

Value Elaborator::tensor_binary(const Expr& e, const Value& a, const Value& b) {
  const ir::OpKind kind = tensor_op(e.op);
  if (kind == ir::OpKind::Count) {
    fail(e.span, fmt::format("operator '{}' on tensors is not supported yet", e.text),
         "'//' and '%' work on compile-time numbers only");
  }
  if (kind == ir::OpKind::MatMul && (a.kind != K::Tensor || b.kind != K::Tensor)) {
    fail(e.span, fmt::format("'@' needs two tensors, got {} and {}", describe(a, g_), describe(b, g_)),
         "use '*' to scale a tensor by a number");
  }
  if (kind == ir::OpKind::MatMul) {
    return Value::of_tensor(add_matmul(g_, a.tensor, b.tensor, false, false, e.span));
  }
  const DType like = a.kind == K::Tensor ? g_.type(a.tensor).dtype : g_.type(b.tensor).dtype;
  const ir::ValueId x = scalar_as_tensor(a, like, e.items[0]->span, e);
  const ir::ValueId y = scalar_as_tensor(b, like, e.items[1]->span, e);
  return Value::of_tensor(g_.add(kind, {x, y}, {}, e.span));
}

}  // namespace iputrain::frontend::elab
