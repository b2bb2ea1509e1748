// Expressions: names, literals, lists, unary and binary operators, attributes. Operators go to
// elaborator_operators.cpp, subscripts to elaborator_indexing.cpp, calls to elaborator_calls.cpp.
#include "frontend/elaborator_impl.hpp"

#include <fmt/format.h>

namespace iputrain::frontend::elab {

Value Elaborator::lookup(const std::string& name, SourceSpan span, const Scope& scope) const {
  if (const Value* v = scope.find(name)) {
    return *v;
  }
  if (name == "none") {  // the absent value: optional arguments' default (`lengths = none`)
    return Value::none();
  }
  const std::string near = nearest_name(name, scope.names());
  fail(span, fmt::format("unknown name '{}'", name),
       near.empty() ? "names must be assigned, imported or declared before they are used"
                    : fmt::format("did you mean '{}'?", near));
}

Value Elaborator::eval(const Expr& e, Scope& scope) {
  switch (e.kind) {
    case ExprKind::Int:
      return Value::of_int(e.int_value);
    case ExprKind::Float:
      return Value::of_float(e.float_value);
    case ExprKind::Bool:
      return Value::of_bool(e.bool_value);
    case ExprKind::String:
      return Value::of_string(e.text);
    case ExprKind::Name:
      return lookup(e.text, e.span, scope);
    case ExprKind::List: {
      std::vector<Value> items;
      for (const auto& item : e.items) {
        items.push_back(eval(*item, scope));
      }
      return Value::of_list(std::move(items));
    }
    case ExprKind::Unary:
      return eval_unary(e, scope);
    case ExprKind::Binary:
      return eval_binary(e, scope);
    case ExprKind::Call:
      return eval_call(e, scope);
    case ExprKind::Attr:
      return eval_attr(e, scope);
    case ExprKind::Index:
      return eval_index(e, scope);
    case ExprKind::Slice:
    case ExprKind::Ellipsis:
      fail(e.span, "'...' and slices are only allowed in brackets");
  }
  fail(e.span, "unsupported expression");
}

Value Elaborator::eval_unary(const Expr& e, Scope& scope) {
  const Value v = eval(*e.items[0], scope);
  const bool negate = e.op == Operator::Negate;
  if (e.op == Operator::Not) {
    if (v.kind != K::Bool) {
      fail(e.span, fmt::format("'not' needs a compile-time bool, got {}", describe(v, g_)),
           v.kind == K::Tensor ? "logical operators on tensors are not supported yet" : "");
    }
    return Value::of_bool(!v.b);
  }
  if (v.kind == K::Int) {
    if (negate && v.i == INT64_MIN) {
      fail(e.span, "integer overflow");
    }
    return negate ? Value::of_int(-v.i) : v;
  }
  if (v.kind == K::Float) {
    return negate ? Value::of_float(-v.f) : v;
  }
  if (v.kind == K::Tensor) {
    return negate ? Value::of_tensor(g_.add(ir::OpKind::Neg, {v.tensor}, {}, e.span)) : v;
  }
  fail(e.span, fmt::format("unary '{}' needs a number or a tensor, got {}", e.text, describe(v, g_)));
}

Value Elaborator::eval_binary(const Expr& e, Scope& scope) {
  if (e.op == Operator::And || e.op == Operator::Or) {
    const Value a = eval(*e.items[0], scope);
    check_logical(e.text, a, e.items[0]->span);
    // Short-circuit: `false and …` and `true or …` do not evaluate their right side.
    if (a.b == (e.op == Operator::Or)) {
      return a;
    }
    const Value b = eval(*e.items[1], scope);
    check_logical(e.text, b, e.items[1]->span);
    return b;
  }
  const Value a = eval(*e.items[0], scope);
  const Value b = eval(*e.items[1], scope);
  if (a.kind == K::Tensor || b.kind == K::Tensor) {
    return tensor_binary(e, a, b);
  }
  return fold(e, a, b);
}

void Elaborator::check_logical(const std::string& op, const Value& v, SourceSpan span) const {
  if (v.kind != K::Bool) {
    fail(span, fmt::format("'{}' needs compile-time bools, got {}", op, describe(v, g_)),
         v.kind == K::Tensor ? "logical operators on tensors are not supported yet" : "");
  }
}

Value Elaborator::eval_attr(const Expr& e, Scope& scope) {
  const Value obj = eval(*e.items[0], scope);
  if (obj.kind == K::Module) {
    if (const Value* v = obj.module->scope.find_local(e.text)) {
      return *v;
    }
    const std::string near = nearest_name(e.text, obj.module->scope.local_names());
    fail(e.span, fmt::format("module '{}' has no member '{}'", obj.module->name, e.text),
         near.empty() ? fmt::format("see {} for what it defines", obj.module->path)
                      : fmt::format("did you mean '{}.{}'?", obj.module->name, near));
  }
  if (obj.kind == K::Tensor) {
    const TensorType& t = g_.type(obj.tensor);
    if (e.text == "shape") {
      std::vector<Value> dims;
      for (int64_t d : t.shape) {
        dims.push_back(Value::of_int(d));
      }
      return Value::of_list(std::move(dims));
    }
    if (e.text == "dtype") {
      return Value::of_string(std::string(dtype_name(t.dtype)));
    }
    if (e.text == "rank") {
      return Value::of_int(t.rank());
    }
    const std::string near = nearest_name(e.text, {"shape", "dtype", "rank"});
    fail(e.span, fmt::format("a tensor has no attribute '{}'", e.text),
         near.empty() ? "tensors have .shape, .dtype and .rank" : fmt::format("did you mean '.{}'?", near));
  }
  fail(e.span, fmt::format("{} has no attribute '{}'", describe(obj, g_), e.text));
}

}  // namespace iputrain::frontend::elab
