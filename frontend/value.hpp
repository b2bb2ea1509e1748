// Compile-time values of the model language: what names are bound to while a model is elaborated.
// Scalars, strings and lists are computed at compile time; tensors are IR values.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/ir/graph.hpp"
#include "iputrain/error.hpp"

namespace iputrain::frontend::ast {
struct Function;
}

namespace iputrain::frontend {

struct Builtin;
struct ModuleScope;

//! A callable: a builtin, or a user `def`/`layer` together with the module it was declared in.
struct Callable {
  std::string name;
  const Builtin* builtin = nullptr;
  const ast::Function* decl = nullptr;
  const ModuleScope* module = nullptr;
};

struct Value {
  enum class Kind : uint8_t { None, Int, Float, Bool, String, List, Tensor, Function, Module, Initializer };

  Kind kind = Kind::None;
  int64_t i = 0;
  double f = 0.0;
  bool b = false;
  std::string s;            //!< String: the text; Initializer: the initializer's name
  std::vector<Value> list;  //!< List items
  ir::ValueId tensor = ir::kNoValue;
  std::shared_ptr<const Callable> fn;
  const ModuleScope* module = nullptr;
  std::vector<std::pair<std::string, double>> init_args;  //!< Initializer arguments

  static Value none() { return {}; }
  static Value of_int(int64_t v);
  static Value of_float(double v);
  static Value of_bool(bool v);
  static Value of_string(std::string v);
  static Value of_list(std::vector<Value> items);
  static Value of_tensor(ir::ValueId id);
  static Value of_function(std::shared_ptr<const Callable> fn);

  bool is_number() const { return kind == Kind::Int || kind == Kind::Float; }
  double as_double() const { return kind == Kind::Int ? static_cast<double>(i) : f; }
};

//! "int 3", "tensor f32[32, 10]", "function 'relu'", …: how messages name a value.
std::string describe(const Value& v, const ir::Graph& g);
//! Just the type part: "int", "f32[32, 10]", "function", …
std::string type_name(const Value& v, const ir::Graph& g);
//! Compile-time equality (structural for lists); false for tensors, which are compared by ops.
bool same_value(const Value& a, const Value& b);

//! Argument accessors used by builtins and the elaborator. Each throws Error(Semantic) at `span`
//! naming `what` ("argument 'axis' of mean") and the value it got.
ir::ValueId expect_tensor(const Value& v, const ir::Graph& g, SourceSpan span, const std::string& what);
int64_t expect_int(const Value& v, const ir::Graph& g, SourceSpan span, const std::string& what);
double expect_number(const Value& v, const ir::Graph& g, SourceSpan span, const std::string& what);
//! An int or a list of ints.
std::vector<int64_t> expect_ints(const Value& v, const ir::Graph& g, SourceSpan span,
                                 const std::string& what);
std::string expect_string(const Value& v, const ir::Graph& g, SourceSpan span, const std::string& what);

}  // namespace iputrain::frontend
