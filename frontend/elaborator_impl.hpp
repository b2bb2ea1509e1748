// The elaborator's class, private to the frontend and implemented in one file per concern:
//   elaborator.cpp             the entry point, the model and its parameters
//   elaborator_stages.cpp      stage declarations, the stage-order check, unused-name warnings
//   elaborator_statements.cpp  statements: input, param, if, for, minimize, output, assert
//   elaborator_loops.cpp       `loop` statements, their bodies lowered once, and `collect`
//   elaborator_expressions.cpp names, literals, unary and binary expressions, attributes
//   elaborator_operators.cpp   compile-time folding of operators and their tensor ops
//   elaborator_indexing.cpp    list and tensor subscripts
//   elaborator_calls.cpp       calls: argument binding, builtins, user functions and layers
//   elaborator_types.cpp       scalar types and shape patterns of signatures
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/elaborator.hpp"

namespace iputrain::frontend::elab {

using K = Value::Kind;
using ast::Expr;
using ast::ExprKind;
using ast::Operator;
using ast::Stmt;
using ast::StmtKind;

constexpr size_t kMaxCallDepth = 64;
constexpr int64_t kMaxLoopIterations = 100000;
// Statements run while building one model (loops unrolled, functions called): nested loops of
// allowed lengths must not take minutes and gigabytes.
constexpr int64_t kMaxStatements = 500000;

[[noreturn]] inline void fail(SourceSpan span, std::string message, std::string hint = {}) {
  throw Error(ErrorKind::Semantic, std::move(message), span, std::move(hint));
}

//! The index of the one `...` in items[first..], or items.size() if there is none; a second one
//! fails ("only one '...' is allowed in WHERE"). Subscripts and shape patterns (elaborator_indexing.cpp).
size_t find_ellipsis(const std::vector<ast::ExprPtr>& items, size_t first, const char* where);

//! One formal parameter as the argument binder sees it (builtins and user functions alike).
struct Formal {
  std::string name;
  bool has_default;
};

//! An evaluated call argument.
struct Actual {
  Value value;
  SourceSpan span;
  std::string keyword;
};

//! What a function body is executing in: duplicate `param` names are per call.
struct Frame {
  ast::FunctionKind kind;
  std::set<std::string> params;
};

//! Elaborates one model: see elaborate() in frontend/elaborator.hpp.
class Elaborator {
 public:
  Elaborator(const ModuleScope& main, const SourceManager& sources) : main_(main), sources_(sources) {}

  Elaborated run(const ParamOverrides& overrides);

 private:
  // elaborator.cpp: the model and its parameters
  const ast::Function* find_model() const;
  void bind_model_params(const ast::Function& model, const ParamOverrides& overrides, Scope& scope,
                         std::map<std::string, ParamValue>& resolved);
  void check_override_names(const ast::Function& model, const ParamOverrides& overrides) const;
  Value model_param_value(const ast::ParamDecl& p, const std::string& declared, const ParamOverrides& overrides,
                          Scope& scope);
  Value from_override(const ast::ParamDecl& p, const std::string& declared, const ParamValue& pv,
                      const KeyLocations* keys, Scope& scope);

  // elaborator_stages.cpp
  void declare_stages(const ast::Function& model);
  void check_stage_order() const;
  std::string value_label(ir::ValueId id) const;
  SourceSpan user_span(ir::ValueId id) const;
  int32_t stage_index(const std::string& name) const;
  void collect_warnings(const ast::Function& model, std::vector<Diagnostic>& out) const;

  // elaborator_statements.cpp
  std::optional<Value> exec(const ast::Block& block, Scope& scope, Frame& frame);
  std::optional<Value> exec(const Stmt& s, Scope& scope, Frame& frame);
  std::optional<Value> exec_stage(const Stmt& s, Scope& scope, Frame& frame);
  std::optional<Value> exec_if(const Stmt& s, Scope& scope, Frame& frame);
  std::optional<Value> exec_for(const Stmt& s, Scope& scope, Frame& frame);
  void exec_minimize(const Stmt& s, Scope& scope);
  void check_new_name(const Stmt& s, const Scope& scope, const char* what) const;
  TensorType tensor_type(const ast::TypeExpr& t, Scope& scope, const char* what);
  void exec_input(const Stmt& s, Scope& scope);
  void exec_param(const Stmt& s, Scope& scope, Frame& frame);
  void exec_assert(const Stmt& s, Scope& scope);
  void exec_output(const Stmt& s, Scope& scope);
  void check_per_sample(const Stmt& s, ir::ValueId v, SourceSpan where);
  void name_model_value(const std::string& name, ir::ValueId v, SourceSpan span);

  // elaborator_loops.cpp: `loop` (lowered once) and `collect`
  struct LoopFrame {
    struct Collected {
      std::string name;
      ir::ValueId value;
      SourceSpan span;
    };
    std::vector<Collected> collected;
  };
  void exec_loop(const Stmt& s, Scope& scope, Frame& frame);
  void exec_collect(const Stmt& s, Scope& scope);
  std::vector<ir::ValueId> loop_initial_values(const Stmt& s, Scope& scope);
  //! A value a loop body reads from outside: a value of the model (`outer`), or a parameter or
  //! constant the body declared, which moves in front of the loop (`hoisted`).
  struct Captured {
    ir::ValueId outer = ir::kNoValue;
    std::optional<ir::Node> hoisted;
  };
  std::shared_ptr<ir::Graph> extract_body(ir::ValueId begin, int64_t carried, const std::vector<ir::ValueId>& results,
                                          std::vector<Captured>& captured);
  void drop_body_from_model(ir::ValueId begin, size_t params);
  void emit_loop(const Stmt& s, int64_t from, int64_t to, std::shared_ptr<ir::Graph> body,
                 const std::vector<ir::ValueId>& operands, const LoopFrame& lf, Scope& scope, Frame& frame);

  // elaborator_expressions.cpp
  Value lookup(const std::string& name, SourceSpan span, const Scope& scope) const;
  Value eval(const Expr& e, Scope& scope);
  Value eval_unary(const Expr& e, Scope& scope);
  Value eval_binary(const Expr& e, Scope& scope);
  void check_logical(const std::string& op, const Value& v, SourceSpan span) const;
  Value eval_attr(const Expr& e, Scope& scope);

  // elaborator_operators.cpp
  Value fold(const Expr& e, const Value& a, const Value& b) const;
  std::optional<Value> fold_ints(const Expr& e, int64_t x, int64_t y) const;
  Value fold_floats(const Expr& e, double x, double y) const;
  ir::ValueId scalar_as_tensor(const Value& v, DType like, SourceSpan span, const Expr& e);
  Value tensor_binary(const Expr& e, const Value& a, const Value& b);

  // elaborator_indexing.cpp
  Value eval_index(const Expr& e, Scope& scope);
  Value index_tensor(const Expr& e, ir::ValueId x, Scope& scope);

  // elaborator_calls.cpp
  std::string snippet(SourceSpan span) const;
  std::string signature(const Callable& fn) const;
  std::string describe_short(const Value& v) const;
  std::vector<int> bind(const Callable& fn, const std::vector<Formal>& formals, const std::vector<Actual>& actuals,
                        SourceSpan call_span) const;
  Value eval_call(const Expr& e, Scope& scope);
  Value call_builtin(const Callable& fn, const std::vector<Actual>& actuals, SourceSpan span);
  Value call_user(const Callable& fn, const std::vector<Actual>& actuals, SourceSpan span);
  std::string path_string() const;
  std::string in_library_hint(const std::string& hint, const std::string& fn, SourceSpan at) const;
  std::string unique_scope_name(const std::string& base);

  // elaborator_types.cpp
  void check_scalar_type(const std::string& declared, Value& v, SourceSpan span, const std::string& what);
  void check_pattern(const ast::TypeExpr& t, Value& v, Scope& local, SourceSpan where, const std::string& what);

  const ModuleScope& main_;
  const SourceManager& sources_;
  ir::Graph g_;
  bool explicit_stages_ = false;
  std::vector<std::string> path_;
  std::map<std::string, std::map<std::string, int>> scope_counts_;
  std::vector<const ast::Function*> stack_;
  struct LibraryCall {
    ir::ValueId first;  //!< nodes [first, end) were created by the call
    ir::ValueId end;
    SourceSpan span;  //!< the call in the model file
    std::string name;
  };
  std::vector<LibraryCall> library_calls_;
  std::map<ir::ValueId, std::string> value_names_;  //!< the first name each tensor was bound to
  int64_t statements_run_ = 0;                      //!< against kMaxStatements
  LoopFrame* loop_ = nullptr;                       //!< the innermost `loop` body being built
};

}  // namespace iputrain::frontend::elab
