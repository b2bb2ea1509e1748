// The model language's syntax tree. Built from the ANTLR parse tree by parser.cpp; ANTLR types
// never appear here. Every node carries the SourceSpan of the text it came from.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/operators.hpp"
#include "iputrain/error.hpp"

namespace iputrain::frontend::ast {

enum class ExprKind : uint8_t {
  Int,       //!< int_value
  Float,     //!< float_value
  Bool,      //!< bool_value
  String,    //!< text
  Name,      //!< text
  List,      //!< items
  Unary,     //!< op; text = its spelling ("-", "+" or "not"); items[0]
  Binary,    //!< op; text = its spelling ("+", "@", "and", "==", …); items[0], items[1]
  Call,      //!< callee = items[0]; arguments = items[1..], keywords parallel to them
  Attr,      //!< items[0] . text
  Index,     //!< items[0] [ items[1..] ]; a slice subscript is a Slice node
  Slice,     //!< items = {lo, hi, step}, each possibly null
  Ellipsis,  //!< `...` in a shape pattern
};

struct Expr {
  ExprKind kind = ExprKind::Int;
  SourceSpan span;
  int64_t int_value = 0;
  double float_value = 0.0;
  bool bool_value = false;
  std::string text;
  Operator op = Operator::None;  //!< Unary and Binary: the operator `text` spells
  std::vector<std::unique_ptr<Expr>> items;
  //! For Call: the keyword of each argument in items[1..] ("" for positional ones).
  std::vector<std::string> keywords;
};
using ExprPtr = std::unique_ptr<Expr>;

//! `f32[batch, 28, 28]`, `f32[..., n]`, `int`. Dims are expressions (Ellipsis allowed in patterns).
struct TypeExpr {
  std::string name;
  bool has_dims = false;
  std::vector<ExprPtr> dims;
  SourceSpan span;
};

//! A parameter of a model, def or layer: `units: int`, `activation = identity`.
struct ParamDecl {
  std::string name;
  std::optional<TypeExpr> type;
  ExprPtr default_value;  //!< null if none
  SourceSpan span;
};

struct Stmt;
using Block = std::vector<std::unique_ptr<Stmt>>;

enum class StmtKind : uint8_t {
  Input,     //!< name, type
  Stage,     //!< name, body, group (-1 unless inside `parallel`)
  Param,     //!< name, type, value (initializer, may be null), options
  Return,    //!< value
  If,        //!< value (condition), body, else_body
  For,       //!< name, value (from), value2 (to), body
  Loop,      //!< name (counter), value, value2 (bounds), value3 (`while`, may be null), options (the
             //!< carried values: name, initial value or null), body
  Collect,   //!< name, value: inside a loop, stacked over its iterations
  Minimize,  //!< value
  Output,    //!< name, value (may be null: output an existing name), per_sample
  Assign,    //!< name, value
  Assert,    //!< value (condition), value2 (message)
};

//! `NAME = EXPR` after a param's initializer: `param m: f32[c] = zeros(), trainable = false`.
struct ParamOption {
  std::string name;
  SourceSpan name_span;
  ExprPtr value;
};

struct Stmt {
  StmtKind kind = StmtKind::Assign;
  SourceSpan span;
  std::string name;
  SourceSpan name_span;
  std::optional<TypeExpr> type;
  ExprPtr value;
  ExprPtr value2;
  ExprPtr value3;
  Block body;
  Block else_body;
  int32_t group = -1;
  std::vector<ParamOption> options;  //!< Param's options; Loop's carried values
  bool per_sample = false;           //!< Output only: `output per_sample NAME`
};

enum class FunctionKind : uint8_t { Def, Layer, Model };

//! A `def`, `layer` or `model`: a name, parameters and either a body or a single expression.
struct Function {
  FunctionKind kind = FunctionKind::Def;
  std::string name;
  SourceSpan span;       //!< the whole declaration
  SourceSpan name_span;  //!< the name only
  std::vector<ParamDecl> params;
  Block body;
  ExprPtr expr;  //!< `def f(x) = EXPR`; null for block bodies
};

//! `import nn` or `from nn import dense, relu_layer`.
struct Import {
  std::string module;
  std::vector<std::string> names;  //!< empty for a plain `import`
  std::vector<SourceSpan> name_spans;
  SourceSpan span;
};

//! One parsed file.
struct Module {
  std::string path;
  int32_t file = -1;
  std::vector<Import> imports;
  std::vector<std::unique_ptr<Function>> functions;  //!< defs, layers and models in file order
};

}  // namespace iputrain::frontend::ast
