#include "frontend/value.hpp"

#include <fmt/format.h>

#include <cmath>

#include "frontend/scope.hpp"

namespace iputrain::frontend {

Value Value::of_int(int64_t v) {
  Value out;
  out.kind = Kind::Int;
  out.i = v;
  return out;
}

Value Value::of_float(double v) {
  Value out;
  out.kind = Kind::Float;
  out.f = v;
  return out;
}

Value Value::of_bool(bool v) {
  Value out;
  out.kind = Kind::Bool;
  out.b = v;
  return out;
}

Value Value::of_string(std::string v) {
  Value out;
  out.kind = Kind::String;
  out.s = std::move(v);
  return out;
}

Value Value::of_list(std::vector<Value> items) {
  Value out;
  out.kind = Kind::List;
  out.list = std::move(items);
  return out;
}

Value Value::of_tensor(ir::ValueId id) {
  Value out;
  out.kind = Kind::Tensor;
  out.tensor = id;
  return out;
}

Value Value::of_function(std::shared_ptr<const Callable> fn) {
  Value out;
  out.kind = Kind::Function;
  out.fn = std::move(fn);
  return out;
}

namespace {

std::string literal(const Value& v, const ir::Graph& g) {
  switch (v.kind) {
    case Value::Kind::Int:
      return std::to_string(v.i);
    case Value::Kind::Float:
      return fmt::format("{}", v.f);
    case Value::Kind::Bool:
      return v.b ? "true" : "false";
    case Value::Kind::String:
      return fmt::format("\"{}\"", v.s);
    case Value::Kind::List: {
      std::string out = "[";
      for (size_t k = 0; k < v.list.size(); ++k) {
        out += (k == 0 ? "" : ", ") + literal(v.list[k], g);
      }
      return out + "]";
    }
    default:
      return describe(v, g);
  }
}

}  // namespace

std::string type_name(const Value& v, const ir::Graph& g) {
  switch (v.kind) {
    case Value::Kind::None:
      return "nothing";
    case Value::Kind::Int:
      return "int";
    case Value::Kind::Float:
      return "float";
    case Value::Kind::Bool:
      return "bool";
    case Value::Kind::String:
      return "string";
    case Value::Kind::List:
      return "list";
    case Value::Kind::Tensor:
      return g.type(v.tensor).str();
    case Value::Kind::Function:
      return "function";
    case Value::Kind::Module:
      return "module";
    case Value::Kind::Initializer:
      return "initializer";
  }
  return "?";
}

std::string describe(const Value& v, const ir::Graph& g) {
  switch (v.kind) {
    case Value::Kind::None:
      return "nothing (a function without 'return')";
    case Value::Kind::Int:
    case Value::Kind::Float:
    case Value::Kind::Bool:
    case Value::Kind::String:
      return type_name(v, g) + " " + literal(v, g);
    case Value::Kind::List:
      return "list " + literal(v, g);
    case Value::Kind::Tensor:
      return "tensor " + g.type(v.tensor).str();
    case Value::Kind::Function:
      return fmt::format("function '{}'", v.fn->name);
    case Value::Kind::Module:
      return fmt::format("module '{}'", v.module->name);
    case Value::Kind::Initializer:
      return fmt::format("initializer {}()", v.s);
  }
  return "?";
}

bool same_value(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    return a.as_double() == b.as_double();
  }
  if (a.kind != b.kind) {
    return false;
  }
  switch (a.kind) {
    case Value::Kind::None:
      return true;
    case Value::Kind::Bool:
      return a.b == b.b;
    case Value::Kind::String:
      return a.s == b.s;
    case Value::Kind::List:
      if (a.list.size() != b.list.size()) {
        return false;
      }
      for (size_t k = 0; k < a.list.size(); ++k) {
        if (!same_value(a.list[k], b.list[k])) {
          return false;
        }
      }
      return true;
    case Value::Kind::Function:
      return a.fn->builtin == b.fn->builtin && a.fn->decl == b.fn->decl && a.fn->name == b.fn->name;
    case Value::Kind::Module:
      return a.module == b.module;
    default:
      return false;
  }
}

ir::ValueId expect_tensor(const Value& v, const ir::Graph& g, SourceSpan span, const std::string& what) {
  if (v.kind == Value::Kind::Tensor) {
    return v.tensor;
  }
  throw Error(ErrorKind::Semantic, fmt::format("{} must be a tensor, got {}", what, describe(v, g)), span);
}

int64_t expect_int(const Value& v, const ir::Graph& g, SourceSpan span, const std::string& what) {
  if (v.kind == Value::Kind::Int) {
    return v.i;
  }
  // Shape arithmetic with `/` yields floats; whole ones are accepted where an int is needed.
  if (v.kind == Value::Kind::Float && std::isfinite(v.f) && v.f == std::floor(v.f) && std::abs(v.f) < 9e15) {
    return static_cast<int64_t>(v.f);
  }
  throw Error(ErrorKind::Semantic, fmt::format("{} must be an int, got {}", what, describe(v, g)), span,
              v.kind == Value::Kind::Float ? "use // for integer division" : "");
}

double expect_number(const Value& v, const ir::Graph& g, SourceSpan span, const std::string& what) {
  if (v.is_number()) {
    return v.as_double();
  }
  throw Error(ErrorKind::Semantic, fmt::format("{} must be a number, got {}", what, describe(v, g)), span);
}

std::vector<int64_t> expect_ints(const Value& v, const ir::Graph& g, SourceSpan span,
                                 const std::string& what) {
  if (v.kind != Value::Kind::List) {
    return {expect_int(v, g, span, what)};
  }
  std::vector<int64_t> out;
  for (const Value& item : v.list) {
    out.push_back(expect_int(item, g, span, what + " (every item)"));
  }
  return out;
}

std::string expect_string(const Value& v, const ir::Graph& g, SourceSpan span, const std::string& what) {
  if (v.kind == Value::Kind::String) {
    return v.s;
  }
  throw Error(ErrorKind::Semantic, fmt::format("{} must be a string, got {}", what, describe(v, g)), span);
}

}  // namespace iputrain::frontend
