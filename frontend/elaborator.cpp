#include "frontend/elaborator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "frontend/builtins.hpp"

namespace iputrain::frontend {

namespace {

using K = Value::Kind;
using ast::Expr;
using ast::ExprKind;
using ast::Stmt;
using ast::StmtKind;

constexpr size_t kMaxCallDepth = 64;
constexpr int64_t kMaxLoopIterations = 100000;
// Statements run while building one model (loops unrolled, functions called): nested loops of
// allowed lengths must not take minutes and gigabytes.
constexpr int64_t kMaxStatements = 500000;

[[noreturn]] void fail(SourceSpan span, std::string message, std::string hint = {}) {
  throw Error(ErrorKind::Semantic, std::move(message), span, std::move(hint));
}

std::string param_value_text(const ParamValue& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) {
          return x ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::string>) {
          return "\"" + x + "\"";
        } else {
          return fmt::format("{}", x);
        }
      },
      v);
}

// One formal parameter as the argument binder sees it (builtins and user functions alike).
struct Formal {
  std::string name;
  bool has_default;
};

// An evaluated call argument.
struct Actual {
  Value value;
  SourceSpan span;
  std::string keyword;
};

// What a function body is executing in: duplicate `param` names are per call.
struct Frame {
  ast::FunctionKind kind;
  std::set<std::string> params;
};

class Elaborator {
 public:
  Elaborator(const ModuleScope& main, const SourceManager& sources) : main_(main), sources_(sources) {}

  Elaborated run(const std::map<std::string, ParamValue>& overrides) {
    const ast::Function* model = find_model();
    Elaborated out;
    out.model_name = model->name;
    Scope scope(&main_.scope);
    bind_model_params(*model, overrides, scope, out.params);
    declare_stages(*model);
    Frame frame{ast::FunctionKind::Model, {}};
    exec(model->body, scope, frame);
    check_stage_order();
    collect_warnings(*model, out.warnings);
    out.graph = std::move(g_);
    return out;
  }

 private:
  // ---- model level ------------------------------------------------------------------------

  const ast::Function* find_model() const {
    const ast::Function* found = nullptr;
    for (const auto& fn : main_.ast.functions) {
      if (fn->kind != ast::FunctionKind::Model) {
        continue;
      }
      if (found != nullptr) {
        fail(fn->name_span, fmt::format("a second model '{}' in one file", fn->name),
             fmt::format("model '{}' is already declared on line {}; put each model in its own file",
                         found->name, found->name_span.line));
      }
      found = fn.get();
    }
    if (found == nullptr) {
      fail(SourceSpan{main_.ast.file, 1, 1, 1}, "this file declares no model",
           "add `model NAME(params) { … }`; files with only defs and layers are modules to import");
    }
    return found;
  }

  void bind_model_params(const ast::Function& model, const std::map<std::string, ParamValue>& overrides,
                         Scope& scope, std::map<std::string, ParamValue>& resolved) {
    std::vector<std::string> names;
    for (const auto& p : model.params) {
      names.push_back(p.name);
    }
    for (const auto& [key, value] : overrides) {
      if (std::find(names.begin(), names.end(), key) != names.end()) {
        continue;
      }
      const std::string near = nearest_name(key, names);
      std::string list;
      for (const auto& n : names) {
        list += (list.empty() ? "" : ", ") + n;
      }
      throw Error(ErrorKind::Config,
                  fmt::format("[model] sets '{}', which is not a parameter of model {}", key, model.name),
                  model.name_span,
                  near.empty() ? fmt::format("the parameters of {} are: {}", model.name,
                                             list.empty() ? "(none)" : list)
                               : fmt::format("did you mean '{}'?", near));
    }
    for (const auto& p : model.params) {
      if (scope.find_local(p.name) != nullptr) {
        fail(p.span, fmt::format("duplicate model parameter '{}'", p.name), "rename one of them");
      }
      const std::string declared = p.type ? p.type->name : "";
      if (!declared.empty() && declared != "int" && declared != "float" && declared != "bool" &&
          declared != "str") {
        fail(p.type->span, fmt::format("model parameter '{}' has type '{}'", p.name, declared),
             "model parameters are compile-time values of type int, float, bool or str");
      }
      Value v;
      auto it = overrides.find(p.name);
      if (it != overrides.end()) {
        v = from_override(p, declared, it->second, scope);
      } else if (p.default_value) {
        v = eval(*p.default_value, scope);
        check_scalar_type(declared, v, p.default_value->span, fmt::format("the default of '{}'", p.name));
      } else {
        throw Error(ErrorKind::Config,
                    fmt::format("model parameter '{}' has no default and the config does not set it", p.name),
                    p.span, fmt::format("set it in the config: [model] {} = …", p.name));
      }
      switch (v.kind) {
        case K::Int:
          resolved[p.name] = v.i;
          break;
        case K::Float:
          resolved[p.name] = v.f;
          break;
        case K::Bool:
          resolved[p.name] = v.b;
          break;
        case K::String:
          resolved[p.name] = v.s;
          break;
        default:
          break;
      }
      scope.set(p.name, std::move(v), p.span);
    }
  }

  Value from_override(const ast::ParamDecl& p, const std::string& declared, const ParamValue& pv,
                      Scope& scope) {
    std::string want = declared;
    if (want.empty() && p.default_value) {
      const Value def = eval(*p.default_value, scope);
      want = def.kind == K::Int     ? "int"
             : def.kind == K::Float ? "float"
             : def.kind == K::Bool  ? "bool"
                                    : "str";
    }
    Value v;
    if (const auto* i = std::get_if<int64_t>(&pv)) {
      v = want == "float" ? Value::of_float(static_cast<double>(*i)) : Value::of_int(*i);
    } else if (const auto* f = std::get_if<double>(&pv)) {
      v = Value::of_float(*f);
    } else if (const auto* b = std::get_if<bool>(&pv)) {
      v = Value::of_bool(*b);
    } else {
      v = Value::of_string(std::get<std::string>(pv));
    }
    const std::string got = v.kind == K::Int     ? "int"
                            : v.kind == K::Float ? "float"
                            : v.kind == K::Bool  ? "bool"
                                                 : "str";
    if (!want.empty() && got != want) {
      throw Error(ErrorKind::Config,
                  fmt::format("[model] {} = {}: model parameter '{}' is {}, not {}", p.name,
                              param_value_text(pv), p.name, want, got),
                  p.span,
                  fmt::format("write a value of type {}, e.g. {} = {}", want, p.name, example_of(want)));
    }
    return v;
  }

  static const char* example_of(const std::string& type) {
    if (type == "int") {
      return "64";
    }
    if (type == "float") {
      return "0.5";
    }
    if (type == "bool") {
      return "true";
    }
    return "\"text\"";
  }

  void check_scalar_type(const std::string& declared, Value& v, SourceSpan span, const std::string& what) {
    if (declared.empty()) {
      return;
    }
    bool ok = false;
    if (declared == "int") {
      ok = v.kind == K::Int;
    } else if (declared == "float") {
      ok = v.is_number();
      if (ok) {
        v = Value::of_float(v.as_double());
      }
    } else if (declared == "bool") {
      ok = v.kind == K::Bool;
    } else if (declared == "str") {
      ok = v.kind == K::String;
    }
    if (!ok) {
      fail(span, fmt::format("{} must be {}, got {}", what, declared, describe(v, g_)));
    }
  }

  void declare_stages(const ast::Function& model) {
    std::vector<ir::Stage> stages;
    for (const auto& s : model.body) {
      if (s->kind != StmtKind::Stage) {
        continue;
      }
      for (size_t k = 0; k < stages.size(); ++k) {
        if (stages[k].name == s->name) {
          fail(s->name_span, fmt::format("duplicate stage '{}'", s->name),
               fmt::format("stage '{}' is already declared on line {}", s->name, stages[k].span.line));
        }
      }
      stages.push_back(ir::Stage{s->name, s->name_span, s->group});
    }
    if (!stages.empty()) {
      g_.stages = std::move(stages);
      explicit_stages_ = true;
    }
  }

  // A value may flow from a stage to itself or to a later stage, but not to an earlier one (the
  // pipeline runs stages in declaration order) nor between stages of one `parallel` group (they
  // run at the same time). Checked on the finished graph, so every path into a stage is covered.
  void check_stage_order() const {
    for (ir::ValueId id = 0; id < g_.size(); ++id) {
      const ir::Node& n = g_.node(id);
      for (ir::ValueId in : n.inputs) {
        const int32_t from = g_.node(in).stage;
        if (from == n.stage) {
          continue;
        }
        const ir::Stage& src = g_.stages[static_cast<size_t>(from)];
        const ir::Stage& dst = g_.stages[static_cast<size_t>(n.stage)];
        const bool siblings = src.group >= 0 && src.group == dst.group;
        if (from < n.stage && !siblings) {
          continue;
        }
        const std::string what = value_label(in);
        const SourceSpan where = user_span(id);
        if (siblings) {
          fail(where,
               fmt::format("stage '{}' uses {} from stage '{}', which runs concurrently with it", dst.name,
                           what, src.name),
               fmt::format("stages in one 'parallel' block cannot feed each other; compute {} in a stage "
                           "before the block, or use it in a stage after the block",
                           what));
        }
        fail(where, fmt::format("stage '{}' uses {} from the later stage '{}'", dst.name, what, src.name),
             fmt::format("stages run in the order they are declared ('{}' on line {} comes after '{}' on "
                         "line {}); values flow forward only",
                         src.name, src.span.line, dst.name, dst.span.line));
      }
    }
  }

  // "'p'" for a named value, "parameter 'b1/dense/kernel'", or "a value" for a temporary.
  std::string value_label(ir::ValueId id) const {
    const ir::Node& n = g_.node(id);
    if (n.op == ir::OpKind::Param) {
      return fmt::format("parameter '{}'", n.name);
    }
    if (n.op == ir::OpKind::Input) {
      return fmt::format("input '{}'", n.name);
    }
    auto it = value_names_.find(id);
    return it == value_names_.end() ? std::string("a value") : fmt::format("'{}'", it->second);
  }

  void collect_warnings(const ast::Function& model, std::vector<Diagnostic>& out) const {
    std::vector<bool> used(static_cast<size_t>(g_.size()), false);
    for (const ir::Node& n : g_.nodes()) {
      for (ir::ValueId in : n.inputs) {
        used[static_cast<size_t>(in)] = true;
      }
    }
    for (const ir::Output& o : g_.outputs) {
      used[static_cast<size_t>(o.value)] = true;
    }
    if (g_.loss != ir::kNoValue) {
      used[static_cast<size_t>(g_.loss)] = true;
    }
    for (const auto& p : model.params) {
      if (!mentions(model.body, p.name)) {
        out.push_back(Diagnostic{"warning", fmt::format("model parameter '{}' is never used", p.name), p.span,
                                 "remove it, or use it in the model body"});
      }
    }
    for (ir::ValueId id : g_.inputs) {
      if (!used[static_cast<size_t>(id)]) {
        const ir::Node& n = g_.node(id);
        out.push_back(Diagnostic{"warning", fmt::format("input '{}' is never used", n.name), n.span,
                                 "remove it, or use it in the model"});
      }
    }
    for (ir::ValueId id : g_.params) {
      if (!used[static_cast<size_t>(id)]) {
        const ir::Node& n = g_.node(id);
        out.push_back(Diagnostic{"warning", fmt::format("parameter '{}' is never used", n.name), n.span,
                                 "it would never be trained; remove it or use it"});
      }
    }
  }

  // Whether `name` is read anywhere in `block` (model parameters are only visible in the model
  // body, so a syntactic search is exact enough for an unused-parameter warning).
  static bool mentions(const ast::Block& block, const std::string& name) {
    for (const auto& st : block) {
      if (mentions(*st, name)) {
        return true;
      }
    }
    return false;
  }
  static bool mentions(const Stmt& st, const std::string& name) {
    if (st.type) {
      for (const auto& d : st.type->dims) {
        if (mentions(*d, name)) {
          return true;
        }
      }
    }
    if ((st.value && mentions(*st.value, name)) || (st.value2 && mentions(*st.value2, name))) {
      return true;
    }
    if (st.kind == StmtKind::Output && !st.value && st.name == name) {
      return true;
    }
    return mentions(st.body, name) || mentions(st.else_body, name);
  }
  static bool mentions(const Expr& e, const std::string& name) {
    if (e.kind == ExprKind::Name && e.text == name) {
      return true;
    }
    for (const auto& item : e.items) {
      if (item && mentions(*item, name)) {
        return true;
      }
    }
    return false;
  }

  // ---- statements -------------------------------------------------------------------------

  // Runs `block`; returns the value of a `return` if one ran.
  std::optional<Value> exec(const ast::Block& block, Scope& scope, Frame& frame) {
    for (const auto& s : block) {
      if (auto r = exec(*s, scope, frame)) {
        return r;
      }
    }
    return std::nullopt;
  }

  std::optional<Value> exec(const Stmt& s, Scope& scope, Frame& frame) {
    if (++statements_run_ > kMaxStatements) {
      fail(s.span, fmt::format("building the model ran more than {} statements", kMaxStatements),
           "'for' loops and calls are unrolled at compile time: make the loops (and nested loops) shorter");
    }
    switch (s.kind) {
      case StmtKind::Assign: {
        Value v = eval(*s.value, scope);
        if (v.kind == K::Tensor && s.span.file == main_.ast.file) {
          value_names_.try_emplace(v.tensor, s.name);
        }
        scope.set(s.name, std::move(v), s.name_span);
        return std::nullopt;
      }
      case StmtKind::Return:
        return eval(*s.value, scope);
      case StmtKind::Input:
        exec_input(s, scope);
        return std::nullopt;
      case StmtKind::Param:
        exec_param(s, scope, frame);
        return std::nullopt;
      case StmtKind::Stage: {
        const int32_t index = stage_index(s.name);
        g_.set_cursor(index, ir::Phase::Forward);
        path_ = {s.name};
        auto r = exec(s.body, scope, frame);
        path_.clear();
        return r;
      }
      case StmtKind::If: {
        const Value c = eval(*s.value, scope);
        if (c.kind != K::Bool) {
          fail(s.value->span,
               fmt::format("an 'if' condition must be a compile-time bool, got {}", describe(c, g_)),
               c.kind == K::Tensor
                   ? "'if' is evaluated while the model is built; tensors are only known at run time"
                   : "compare it, e.g. `if n > 0 { … }`");
        }
        return exec(c.b ? s.body : s.else_body, scope, frame);
      }
      case StmtKind::For: {
        const int64_t from =
            expect_int(eval(*s.value, scope), g_, s.value->span, "the start of a 'for' range");
        const int64_t to = expect_int(eval(*s.value2, scope), g_, s.value2->span, "the end of a 'for' range");
        if (to - from > kMaxLoopIterations) {
          fail(s.span, fmt::format("a loop of {} iterations is too long to unroll", to - from),
               fmt::format("'for' is unrolled at compile time; keep it under {} iterations",
                           kMaxLoopIterations));
        }
        for (int64_t i = from; i < to; ++i) {
          scope.set(s.name, Value::of_int(i), s.name_span);
          if (auto r = exec(s.body, scope, frame)) {
            return r;
          }
        }
        return std::nullopt;
      }
      case StmtKind::Minimize: {
        const Value v = eval(*s.value, scope);
        if (g_.loss != ir::kNoValue) {
          fail(s.span, "a model can minimize only one objective",
               fmt::format("the first 'minimize' is on line {}; add the terms into one scalar",
                           g_.node(g_.loss).span.line));
        }
        if (v.kind != K::Tensor || g_.type(v.tensor).rank() != 0 || !is_float(g_.type(v.tensor).dtype)) {
          fail(s.value->span, fmt::format("minimize needs a scalar float tensor, got {}", describe(v, g_)),
               v.kind == K::Tensor ? "reduce it first, e.g. `minimize mean(loss)`" : "");
        }
        g_.loss = v.tensor;
        return std::nullopt;
      }
      case StmtKind::Output:
        exec_output(s, scope);
        return std::nullopt;
      case StmtKind::Assert:
        exec_assert(s, scope);
        return std::nullopt;
    }
    return std::nullopt;
  }

  int32_t stage_index(const std::string& name) const {
    for (size_t k = 0; k < g_.stages.size(); ++k) {
      if (g_.stages[k].name == name) {
        return static_cast<int32_t>(k);
      }
    }
    return 0;
  }

  void check_new_name(const Stmt& s, const Scope& scope, const char* what) const {
    if (scope.find_local(s.name) != nullptr) {
      const SourceSpan first = scope.defined_at(s.name);
      fail(s.name_span, fmt::format("{} '{}' is already defined", what, s.name),
           first.valid()
               ? fmt::format("'{}' was first defined on line {}; rename one of them", s.name, first.line)
               : "rename one of them");
    }
  }

  TensorType tensor_type(const ast::TypeExpr& t, Scope& scope, const char* what) {
    auto dtype = parse_dtype(t.name);
    if (!dtype) {
      const std::string near = nearest_name(t.name, {"f32", "f16", "bf16", "i32", "bool"});
      fail(t.span, fmt::format("{} must have a tensor type, got '{}'", what, t.name),
           near.empty() ? "tensor types are f32, f16, bf16, i32 and bool, e.g. f32[batch, 10]"
                        : fmt::format("did you mean '{}'?", near));
    }
    TensorType out{*dtype, {}};
    for (const auto& d : t.dims) {
      const Value v = eval(*d, scope);
      const int64_t n = expect_int(v, g_, d->span, "a dimension");
      if (n <= 0) {
        fail(d->span, fmt::format("dimensions must be positive, got {}", n));
      }
      out.shape.push_back(n);
    }
    return out;
  }

  void exec_input(const Stmt& s, Scope& scope) {
    check_new_name(s, scope, "input");
    const TensorType t = tensor_type(*s.type, scope, "an input");
    const ir::ValueId id = g_.add_input(s.name, t, s.name_span);
    scope.set(s.name, Value::of_tensor(id), s.name_span);
  }

  void exec_param(const Stmt& s, Scope& scope, Frame& frame) {
    if (!frame.params.insert(s.name).second) {
      fail(s.name_span,
           fmt::format("param '{}' is already declared in this {}", s.name,
                       frame.kind == ast::FunctionKind::Layer ? "layer" : "model"),
           "give each param its own name");
    }
    const TensorType t = tensor_type(*s.type, scope, "a param");
    if (!is_float(t.dtype)) {
      fail(s.type->span, fmt::format("param '{}' must be floating point, got {}", s.name, t.str()),
           "trainable parameters are f32, f16 or bf16");
    }
    if (!s.value) {
      fail(s.span, fmt::format("param '{}' has no initializer", s.name),
           fmt::format("write e.g. `param {}: {} = glorot_uniform()`", s.name, t.str()));
    }
    const Value init = eval(*s.value, scope);
    if (init.kind != K::Initializer) {
      fail(s.value->span,
           fmt::format("the initial value of a param must be an initializer, got {}", describe(init, g_)),
           "use zeros(), ones(), constant(v), glorot_uniform(), glorot_normal(), he_normal(), normal() or "
           "uniform()");
    }
    ir::Attrs attrs{{"init", init.s}};
    for (const auto& [key, value] : init.init_args) {
      attrs.set(key, value);
    }
    for (const ast::ParamOption& o : s.options) {
      if (o.name != "trainable") {
        const std::string near = nearest_name(o.name, {"trainable"});
        fail(o.name_span, fmt::format("a param has no option '{}'", o.name),
             near.empty() ? "the one option of a param is `trainable = false`"
                          : fmt::format("did you mean '{}'?", near));
      }
      const Value v = eval(*o.value, scope);
      if (v.kind != K::Bool) {
        fail(o.value->span, fmt::format("trainable must be a compile-time bool, got {}", describe(v, g_)));
      }
      if (!v.b) {
        // State the optimizer never touches: no gradient, accumulator or optimizer state.
        attrs.set("trainable", int64_t{0});
      }
    }
    std::string path;
    for (const auto& part : path_) {
      path += part + "/";
    }
    path += s.name;
    for (ir::ValueId p : g_.params) {
      if (g_.node(p).name == path) {
        fail(s.name_span, fmt::format("a parameter named '{}' already exists", path), "rename one of them");
      }
    }
    const ir::ValueId id = g_.add_param(path, t, std::move(attrs), s.span);
    scope.set(s.name, Value::of_tensor(id), s.name_span);
  }

  // A failed assert in library code is reported at the user's call into the library (call_user
  // relocates it), with the assert's own location in the hint.
  void exec_assert(const Stmt& s, Scope& scope) {
    const Value c = eval(*s.value, scope);
    if (c.kind != K::Bool) {
      fail(s.value->span,
           fmt::format("an 'assert' condition must be a compile-time bool, got {}", describe(c, g_)));
    }
    if (c.b) {
      return;
    }
    const std::string message =
        expect_string(eval(*s.value2, scope), g_, s.value2->span, "the message of an 'assert'");
    fail(s.span, message);
  }

  void exec_output(const Stmt& s, Scope& scope) {
    for (const ir::Output& o : g_.outputs) {
      if (o.name == s.name) {
        fail(s.name_span, fmt::format("duplicate output '{}'", s.name),
             fmt::format("'{}' is already an output (line {})", s.name, o.span.line));
      }
    }
    Value v;
    SourceSpan where = s.name_span;
    if (s.value) {
      v = eval(*s.value, scope);
      where = s.value->span;
      scope.set(s.name, v, s.name_span);
    } else {
      v = lookup(s.name, s.name_span, scope);
    }
    if (v.kind != K::Tensor) {
      fail(where, fmt::format("an output must be a tensor, got {}", describe(v, g_)),
           "outputs are values computed by the model at run time");
    }
    g_.outputs.push_back(ir::Output{s.name, v.tensor, s.span});
  }

  // ---- expressions ------------------------------------------------------------------------

  Value lookup(const std::string& name, SourceSpan span, const Scope& scope) const {
    if (const Value* v = scope.find(name)) {
      return *v;
    }
    const std::string near = nearest_name(name, scope.names());
    fail(span, fmt::format("unknown name '{}'", name),
         near.empty() ? "names must be assigned, imported or declared before they are used"
                      : fmt::format("did you mean '{}'?", near));
  }

  Value eval(const Expr& e, Scope& scope) {
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

  Value eval_unary(const Expr& e, Scope& scope) {
    const Value v = eval(*e.items[0], scope);
    if (e.text == "not") {
      if (v.kind != K::Bool) {
        fail(e.span, fmt::format("'not' needs a compile-time bool, got {}", describe(v, g_)),
             v.kind == K::Tensor ? "logical operators on tensors are not supported yet" : "");
      }
      return Value::of_bool(!v.b);
    }
    if (v.kind == K::Int) {
      if (e.text == "-" && v.i == INT64_MIN) {
        fail(e.span, "integer overflow");
      }
      return e.text == "-" ? Value::of_int(-v.i) : v;
    }
    if (v.kind == K::Float) {
      return e.text == "-" ? Value::of_float(-v.f) : v;
    }
    if (v.kind == K::Tensor) {
      return e.text == "-" ? Value::of_tensor(g_.add(ir::OpKind::Neg, {v.tensor}, {}, e.span)) : v;
    }
    fail(e.span, fmt::format("unary '{}' needs a number or a tensor, got {}", e.text, describe(v, g_)));
  }

  Value eval_binary(const Expr& e, Scope& scope) {
    const std::string& op = e.text;
    if (op == "and" || op == "or") {
      const Value a = eval(*e.items[0], scope);
      check_logical(op, a, e.items[0]->span);
      if ((op == "and" && !a.b) || (op == "or" && a.b)) {
        return a;
      }
      const Value b = eval(*e.items[1], scope);
      check_logical(op, b, e.items[1]->span);
      return b;
    }
    const Value a = eval(*e.items[0], scope);
    const Value b = eval(*e.items[1], scope);
    if (a.kind == K::Tensor || b.kind == K::Tensor) {
      return tensor_binary(e, a, b);
    }
    return fold(e, a, b);
  }

  void check_logical(const std::string& op, const Value& v, SourceSpan span) const {
    if (v.kind != K::Bool) {
      fail(span, fmt::format("'{}' needs compile-time bools, got {}", op, describe(v, g_)),
           v.kind == K::Tensor ? "logical operators on tensors are not supported yet" : "");
    }
  }

  static std::string operand_hint(const std::string& op, const Value& a, const Value& b) {
    if (a.kind == K::Initializer || b.kind == K::Initializer) {
      return "initializers describe a param's initial value: `param w: f32[n] = zeros()`";
    }
    if (a.kind == K::Function || b.kind == K::Function) {
      return "is a call missing its arguments?";
    }
    return op == "@" ? "'@' multiplies tensors" : "";
  }

  // Compile-time arithmetic and comparison, with Python's meaning of / // % and **.
  Value fold(const Expr& e, const Value& a, const Value& b) const {
    const std::string& op = e.text;
    if (op == "==") {
      return Value::of_bool(same_value(a, b));
    }
    if (op == "!=") {
      return Value::of_bool(!same_value(a, b));
    }
    if (op == "+" && a.kind == K::String && b.kind == K::String) {
      return Value::of_string(a.s + b.s);
    }
    if (op == "+" && a.kind == K::List && b.kind == K::List) {
      std::vector<Value> items = a.list;
      items.insert(items.end(), b.list.begin(), b.list.end());
      return Value::of_list(std::move(items));
    }
    const bool cmp = op == "<" || op == "<=" || op == ">" || op == ">=";
    if (cmp && a.kind == K::String && b.kind == K::String) {
      const int c = a.s.compare(b.s);
      return Value::of_bool(op == "<" ? c < 0 : op == "<=" ? c <= 0 : op == ">" ? c > 0 : c >= 0);
    }
    if (!a.is_number() || !b.is_number()) {
      fail(e.span, fmt::format("cannot apply '{}' to {} and {}", op, describe(a, g_), describe(b, g_)),
           operand_hint(op, a, b));
    }
    if (cmp) {
      const double x = a.as_double();
      const double y = b.as_double();
      return Value::of_bool(op == "<" ? x < y : op == "<=" ? x <= y : op == ">" ? x > y : x >= y);
    }
    if (op == "@") {
      fail(e.span, fmt::format("'@' needs tensors, got {} and {}", describe(a, g_), describe(b, g_)));
    }
    const bool ints = a.kind == K::Int && b.kind == K::Int;
    if ((op == "/" || op == "//" || op == "%") && b.as_double() == 0.0) {
      fail(e.items[1]->span, "division by zero");
    }
    if (ints) {
      int64_t r = 0;
      bool overflow = false;
      if (op == "+") {
        overflow = __builtin_add_overflow(a.i, b.i, &r);
      } else if (op == "-") {
        overflow = __builtin_sub_overflow(a.i, b.i, &r);
      } else if (op == "*") {
        overflow = __builtin_mul_overflow(a.i, b.i, &r);
      } else if (op == "//" || op == "%") {
        if (a.i == INT64_MIN && b.i == -1) {
          overflow = true;
        } else {
          int64_t q = a.i / b.i;
          if ((a.i % b.i != 0) && ((a.i < 0) != (b.i < 0))) {
            --q;  // floor, as in Python
          }
          r = op == "//" ? q : a.i - q * b.i;
        }
      } else if (op == "**" && b.i >= 0) {
        r = 1;
        for (int64_t k = 0; k < b.i; ++k) {
          if (a.i == -1) {
            r = b.i % 2 == 0 ? 1 : -1;
            break;
          }
          overflow = __builtin_mul_overflow(r, a.i, &r);
          if (overflow || a.i == 0 || a.i == 1) {
            break;
          }
        }
      }
      if (overflow) {
        fail(e.span, "integer overflow in a compile-time expression");
      }
      // `/` is true division and a negative power is fractional: both continue as floats.
      if (op != "/" && !(op == "**" && b.i < 0)) {
        return Value::of_int(r);
      }
    }
    const double x = a.as_double();
    const double y = b.as_double();
    if (op == "+") {
      return Value::of_float(x + y);
    }
    if (op == "-") {
      return Value::of_float(x - y);
    }
    if (op == "*") {
      return Value::of_float(x * y);
    }
    if (op == "/") {
      return Value::of_float(x / y);
    }
    if (op == "//") {
      return Value::of_float(std::floor(x / y));
    }
    if (op == "%") {
      return Value::of_float(x - std::floor(x / y) * y);
    }
    if (op == "**") {
      return Value::of_float(std::pow(x, y));
    }
    fail(e.span, fmt::format("unknown operator '{}'", op));
  }

  // A scalar next to a tensor becomes a constant of the tensor's dtype, then the broadcasting op.
  ir::ValueId scalar_as_tensor(const Value& v, DType like, SourceSpan span, const Expr& e) {
    if (v.kind == K::Tensor) {
      return v.tensor;
    }
    if (!v.is_number() && v.kind != K::Bool) {
      fail(e.span, fmt::format("cannot apply '{}' to {}", e.text, describe(v, g_)),
           operand_hint(e.text, v, v));
    }
    if (v.kind == K::Float && !is_float(like)) {
      fail(span, fmt::format("cannot combine float {} with a tensor of dtype {}", v.f, dtype_name(like)),
           "cast the tensor first: cast(x, dtype = \"f32\")");
    }
    const double value = v.kind == K::Bool ? (v.b ? 1.0 : 0.0) : v.as_double();
    return g_.add_constant(value, TensorType{like, {}}, span);
  }

  Value tensor_binary(const Expr& e, const Value& a, const Value& b) {
    const std::string& op = e.text;
    ir::OpKind kind = ir::OpKind::Count;
    if (op == "+") {
      kind = ir::OpKind::Add;
    } else if (op == "-") {
      kind = ir::OpKind::Sub;
    } else if (op == "*") {
      kind = ir::OpKind::Mul;
    } else if (op == "/") {
      kind = ir::OpKind::Div;
    } else if (op == "**") {
      kind = ir::OpKind::Pow;
    } else if (op == "@") {
      kind = ir::OpKind::MatMul;
    } else if (op == "==") {
      kind = ir::OpKind::Equal;
    } else if (op == "!=") {
      kind = ir::OpKind::NotEqual;
    } else if (op == "<") {
      kind = ir::OpKind::Less;
    } else if (op == "<=") {
      kind = ir::OpKind::LessEqual;
    } else if (op == ">") {
      kind = ir::OpKind::Greater;
    } else if (op == ">=") {
      kind = ir::OpKind::GreaterEqual;
    } else {
      fail(e.span, fmt::format("operator '{}' on tensors is not supported yet", op),
           "'//' and '%' work on compile-time numbers only");
    }
    if (kind == ir::OpKind::MatMul && (a.kind != K::Tensor || b.kind != K::Tensor)) {
      fail(e.span, fmt::format("'@' needs two tensors, got {} and {}", describe(a, g_), describe(b, g_)),
           "use '*' to scale a tensor by a number");
    }
    const DType like = a.kind == K::Tensor ? g_.type(a.tensor).dtype : g_.type(b.tensor).dtype;
    const ir::ValueId x = scalar_as_tensor(a, like, e.items[0]->span, e);
    const ir::ValueId y = scalar_as_tensor(b, like, e.items[1]->span, e);
    return Value::of_tensor(g_.add(kind, {x, y}, {}, e.span));
  }

  Value eval_attr(const Expr& e, Scope& scope) {
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

  Value eval_index(const Expr& e, Scope& scope) {
    const Value obj = eval(*e.items[0], scope);
    if (obj.kind == K::Tensor) {
      return index_tensor(e, obj.tensor, scope);
    }
    if (obj.kind != K::List) {
      fail(e.items[0]->span, fmt::format("only lists can be indexed, got {}", describe(obj, g_)));
    }
    if (e.items.size() != 2) {
      fail(e.span, "a list takes one index", "write x[i] or x[a:b]");
    }
    const Expr& sub = *e.items[1];
    const auto n = static_cast<int64_t>(obj.list.size());
    if (sub.kind != ExprKind::Slice) {
      const int64_t i = expect_int(eval(sub, scope), g_, sub.span, "a list index");
      const int64_t k = i < 0 ? i + n : i;
      if (k < 0 || k >= n) {
        fail(sub.span, fmt::format("index {} is out of range for a list of {} items", i, n),
             n == 0 ? "the list is empty" : fmt::format("valid indices are {}..{}", -n, n - 1));
      }
      return obj.list[static_cast<size_t>(k)];
    }
    auto bound = [&](size_t slot, int64_t def) {
      if (!sub.items[slot]) {
        return def;
      }
      return expect_int(eval(*sub.items[slot], scope), g_, sub.items[slot]->span, "a slice bound");
    };
    const int64_t step = bound(2, 1);
    if (step != 1) {
      fail(sub.span, "slices with a step are not supported", "write a:b");
    }
    auto clamp = [&](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + n : i, 0, n); };
    const int64_t lo = clamp(bound(0, 0));
    const int64_t hi = clamp(bound(1, n));
    std::vector<Value> items;
    for (int64_t k = lo; k < hi; ++k) {
      items.push_back(obj.list[static_cast<size_t>(k)]);
    }
    return Value::of_list(std::move(items));
  }

  // x[i, a:b, ..., ::s]: one `slice` node over every dimension, then a `reshape` that drops the
  // dimensions indexed by a single integer (as in NumPy).
  Value index_tensor(const Expr& e, ir::ValueId x, Scope& scope) {
    const TensorType type = g_.type(x);
    const int64_t rank = type.rank();
    size_t ellipsis = e.items.size();
    for (size_t k = 1; k < e.items.size(); ++k) {
      if (e.items[k]->kind == ExprKind::Ellipsis) {
        if (ellipsis != e.items.size()) {
          fail(e.items[k]->span, "only one '...' is allowed in a subscript");
        }
        ellipsis = k;
      }
    }
    const auto given = static_cast<int64_t>(e.items.size() - 1 - (ellipsis != e.items.size() ? 1 : 0));
    if (given > rank) {
      fail(e.span,
           fmt::format("too many indices: {} given for a tensor of rank {} ({})", given, rank, type.str()),
           "index each dimension at most once; '...' stands for the dimensions you skip");
    }
    std::vector<int64_t> begin(static_cast<size_t>(rank), 0);
    std::vector<int64_t> end(type.shape.begin(), type.shape.end());
    std::vector<int64_t> strides(static_cast<size_t>(rank), 1);
    std::vector<bool> dropped(static_cast<size_t>(rank), false);
    int64_t axis = 0;
    for (size_t k = 1; k < e.items.size(); ++k) {
      const Expr& sub = *e.items[k];
      if (k == ellipsis) {
        axis += rank - given;
        continue;
      }
      const auto a = static_cast<size_t>(axis);
      const int64_t n = type.shape[a];
      if (sub.kind != ExprKind::Slice) {
        const Value v = eval(sub, scope);
        if (v.kind == K::Tensor) {
          fail(sub.span, "a tensor cannot be used as an index",
               "indices are compile-time ints; to pick rows by a tensor of indices use gather(x, indices)");
        }
        const int64_t i = expect_int(v, g_, sub.span, "an index");
        if (i < -n || i >= n) {
          fail(sub.span, fmt::format("index {} is out of range for dimension {} of {}", i, axis, type.str()),
               fmt::format("valid indices are {}..{}", -n, n - 1));
        }
        begin[a] = i < 0 ? i + n : i;
        end[a] = begin[a] + 1;
        dropped[a] = true;
        ++axis;
        continue;
      }
      auto bound = [&](size_t slot, int64_t def) {
        if (!sub.items[slot]) {
          return def;
        }
        return expect_int(eval(*sub.items[slot], scope), g_, sub.items[slot]->span, "a slice bound");
      };
      const int64_t step = bound(2, 1);
      if (step < 1) {
        fail(sub.items[2]->span, fmt::format("a slice step must be positive, got {}", step),
             "reversing slices are not supported");
      }
      auto clamp = [&](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + n : i, 0, n); };
      begin[a] = clamp(bound(0, 0));
      end[a] = clamp(bound(1, n));
      strides[a] = step;
      if (end[a] <= begin[a]) {
        fail(sub.span,
             fmt::format("the slice {} of dimension {} of {} is empty", snippet(sub.span), axis, type.str()),
             "tensors cannot have empty dimensions; check the bounds");
      }
      ++axis;
    }
    Shape kept;
    bool identity = true;
    for (int64_t a = 0; a < rank; ++a) {
      const auto k = static_cast<size_t>(a);
      identity = identity && begin[k] == 0 && end[k] == type.shape[k] && strides[k] == 1;
      if (!dropped[k]) {
        kept.push_back((end[k] - begin[k] + strides[k] - 1) / strides[k]);
      }
    }
    ir::ValueId y = x;
    if (!identity) {
      ir::Attrs attrs{{"begin", begin}, {"end", end}};
      if (std::any_of(strides.begin(), strides.end(), [](int64_t s) { return s != 1; })) {
        attrs.set("strides", strides);
      }
      y = g_.add(ir::OpKind::Slice, {x}, std::move(attrs), e.span);
    }
    if (kept.size() != static_cast<size_t>(rank)) {
      y = g_.add(ir::OpKind::Reshape, {y}, ir::Attrs{{"shape", kept}}, e.span);
    }
    return Value::of_tensor(y);
  }

  // ---- calls ------------------------------------------------------------------------------

  std::string snippet(SourceSpan span) const {
    if (!span.valid() || span.file >= sources_.size()) {
      return {};
    }
    const std::string line = sources_.line_text(span.file, span.line);
    const auto col = static_cast<size_t>(std::max(1, span.col) - 1);
    return col < line.size() ? line.substr(col, static_cast<size_t>(span.length)) : std::string();
  }

  std::string signature(const Callable& fn) const {
    std::string params;
    if (fn.builtin != nullptr) {
      for (const auto& p : fn.builtin->params) {
        params += (params.empty() ? "" : ", ") + p.name;
        if (!p.required) {
          params += " = " + (p.def.kind == K::None ? std::string("none") : describe_short(p.def));
        }
      }
    } else {
      for (const auto& p : fn.decl->params) {
        params += (params.empty() ? "" : ", ") + snippet(p.span);
      }
    }
    return fmt::format("{}({})", fn.name, params);
  }

  std::string describe_short(const Value& v) const {
    const std::string d = describe(v, g_);
    const size_t space = d.find(' ');
    return space == std::string::npos ? d : d.substr(space + 1);
  }

  // Matches actual arguments to formals; returns, per formal, the index of its actual (or -1).
  std::vector<int> bind(const Callable& fn, const std::vector<Formal>& formals,
                        const std::vector<Actual>& actuals, SourceSpan call_span) const {
    std::vector<int> slot(formals.size(), -1);
    size_t positional = 0;
    bool seen_keyword = false;
    for (size_t k = 0; k < actuals.size(); ++k) {
      const Actual& a = actuals[k];
      if (a.keyword.empty()) {
        if (seen_keyword) {
          fail(a.span, "a positional argument after a keyword argument",
               "put positional arguments first, as in " + signature(fn));
        }
        if (positional >= formals.size()) {
          fail(a.span,
               fmt::format("{} takes {} argument{}, got {}", fn.name, formals.size(),
                           formals.size() == 1 ? "" : "s", positional_count(actuals)),
               "signature: " + signature(fn));
        }
        slot[positional] = static_cast<int>(k);
        ++positional;
        continue;
      }
      seen_keyword = true;
      size_t f = 0;
      while (f < formals.size() && formals[f].name != a.keyword) {
        ++f;
      }
      if (f == formals.size()) {
        std::vector<std::string> names;
        for (const auto& x : formals) {
          names.push_back(x.name);
        }
        const std::string near = nearest_name(a.keyword, names);
        fail(a.span, fmt::format("{} has no parameter '{}'", fn.name, a.keyword),
             near.empty() ? "signature: " + signature(fn) : fmt::format("did you mean '{}'?", near));
      }
      if (slot[f] >= 0) {
        fail(a.span, fmt::format("argument '{}' of {} is given twice", a.keyword, fn.name));
      }
      slot[f] = static_cast<int>(k);
    }
    for (size_t f = 0; f < formals.size(); ++f) {
      if (slot[f] < 0 && !formals[f].has_default) {
        fail(call_span, fmt::format("{}: missing argument '{}'", fn.name, formals[f].name),
             "signature: " + signature(fn));
      }
    }
    return slot;
  }

  static size_t positional_count(const std::vector<Actual>& actuals) {
    size_t n = 0;
    for (const auto& a : actuals) {
      n += a.keyword.empty() ? 1 : 0;
    }
    return n;
  }

  Value eval_call(const Expr& e, Scope& scope) {
    const Expr& callee_expr = *e.items[0];
    const Value callee = eval(callee_expr, scope);
    if (callee.kind != K::Function) {
      fail(callee_expr.span, fmt::format("{} is not a function", describe(callee, g_)),
           callee_expr.kind == ExprKind::Name
               ? fmt::format("'{}' names a value here, not something to call", callee_expr.text)
               : "");
    }
    std::vector<Actual> actuals;
    for (size_t k = 1; k < e.items.size(); ++k) {
      actuals.push_back(Actual{eval(*e.items[k], scope), e.items[k]->span, e.keywords[k - 1]});
    }
    const Callable& fn = *callee.fn;
    if (fn.builtin != nullptr) {
      return call_builtin(fn, actuals, e.span);
    }
    return call_user(fn, actuals, e.span);
  }

  Value call_builtin(const Callable& fn, const std::vector<Actual>& actuals, SourceSpan span) {
    const Builtin& b = *fn.builtin;
    std::vector<Formal> formals;
    for (const auto& p : b.params) {
      formals.push_back(Formal{p.name, !p.required});
    }
    const std::vector<int> slot = bind(fn, formals, actuals, span);
    CallArgs call{g_, span, {}, {}, b.name, path_string(), {}};
    call.unique_name = [this](const std::string& base) { return unique_scope_name(base); };
    for (size_t f = 0; f < formals.size(); ++f) {
      if (slot[f] >= 0) {
        call.args.push_back(actuals[static_cast<size_t>(slot[f])].value);
        call.spans.push_back(actuals[static_cast<size_t>(slot[f])].span);
      } else {
        call.args.push_back(b.params[f].def);
        call.spans.push_back(span);
      }
    }
    return b.fn(call);
  }

  Value call_user(const Callable& fn, const std::vector<Actual>& actuals, SourceSpan span) {
    const ast::Function& decl = *fn.decl;
    for (const ast::Function* active : stack_) {
      if (active == &decl) {
        std::string chain;
        for (const ast::Function* f : stack_) {
          chain += f->name + " -> ";
        }
        fail(span, fmt::format("recursive call of '{}'", decl.name),
             fmt::format("{}{}: functions and layers are expanded at compile time, so recursion never ends",
                         chain, decl.name));
      }
    }
    if (stack_.size() >= kMaxCallDepth) {
      fail(span, "calls nest too deeply", fmt::format("more than {} nested calls", kMaxCallDepth));
    }
    std::vector<Formal> formals;
    for (const auto& p : decl.params) {
      formals.push_back(Formal{p.name, p.default_value != nullptr});
    }
    const std::vector<int> slot = bind(fn, formals, actuals, span);

    Scope local(&fn.module->scope);
    const bool layer = decl.kind == ast::FunctionKind::Layer;
    std::vector<std::string> saved_path = path_;
    if (layer) {
      path_.push_back(unique_scope_name(decl.name));
    }
    stack_.push_back(&decl);
    for (size_t f = 0; f < formals.size(); ++f) {
      const ast::ParamDecl& p = decl.params[f];
      Value v;
      SourceSpan where;
      if (slot[f] >= 0) {
        v = actuals[static_cast<size_t>(slot[f])].value;
        where = actuals[static_cast<size_t>(slot[f])].span;
      } else {
        v = eval(*p.default_value, local);
        where = p.default_value->span;
      }
      if (p.type) {
        check_pattern(*p.type, v, local, where, fmt::format("argument '{}' of {}", p.name, decl.name));
      }
      if (local.find_local(p.name) != nullptr) {
        fail(p.span, fmt::format("'{}' is bound twice in the signature of {}", p.name, decl.name),
             "a shape symbol and a parameter cannot share a name");
      }
      local.set(p.name, std::move(v), p.span);
    }
    // A call from the model file into a library is where errors inside the library are
    // reported: the user can change the call, rarely the library.
    const bool boundary = span.file == main_.ast.file && fn.module != &main_;
    const ir::ValueId first_node = g_.size();
    Value result;
    try {
      if (decl.expr) {
        result = eval(*decl.expr, local);
      } else {
        Frame frame{decl.kind, {}};
        if (auto r = exec(decl.body, local, frame)) {
          result = std::move(*r);
        }
      }
    } catch (const Error& e) {
      if (!boundary || e.span().file == main_.ast.file || !e.span().valid()) {
        throw;
      }
      throw Error(e.kind(), e.diagnostic().message, span, in_library_hint(e.hint(), decl.name, e.span()));
    }
    if (boundary) {
      library_calls_.push_back(LibraryCall{first_node, g_.size(), span, decl.name});
    }
    stack_.pop_back();
    path_ = std::move(saved_path);
    return result;
  }

  std::string path_string() const {
    std::string out;
    for (const auto& part : path_) {
      out += (out.empty() ? "" : "/") + part;
    }
    return out;
  }

  std::string in_library_hint(const std::string& hint, const std::string& fn, SourceSpan at) const {
    const std::string where = fmt::format("raised in {} at {}:{}", fn, sources_.path(at.file), at.line);
    return hint.empty() ? where : fmt::format("{} ({})", hint, where);
  }

  // Where to report a problem with node `id`: its own span in the model file, or the model
  // file's call into the library that created it.
  SourceSpan user_span(ir::ValueId id) const {
    const ir::Node& n = g_.node(id);
    if (n.span.file == main_.ast.file) {
      return n.span;
    }
    for (const LibraryCall& c : library_calls_) {
      if (id >= c.first && id < c.end) {
        return c.span;
      }
    }
    return n.span;
  }

  // `dense`, then `dense_1`, `dense_2`, … for later calls in the same scope.
  std::string unique_scope_name(const std::string& base) {
    std::string prefix;
    for (const auto& part : path_) {
      prefix += part + "/";
    }
    int& count = scope_counts_[prefix][base];
    const std::string name = count == 0 ? base : fmt::format("{}_{}", base, count);
    ++count;
    return name;
  }

  // Checks an argument against a signature type (`units: int`, `x: f32[..., n]`), binding shape
  // symbols that are not bound yet in the callee's scope.
  void check_pattern(const ast::TypeExpr& t, Value& v, Scope& local, SourceSpan where,
                     const std::string& what) {
    if (t.name == "int" || t.name == "float" || t.name == "bool" || t.name == "str") {
      check_scalar_type(t.name, v, where, what);
      return;
    }
    if (t.name == "tensor" || t.name == "fn" || t.name == "list") {
      const K want = t.name == "tensor" ? K::Tensor : t.name == "fn" ? K::Function : K::List;
      if (v.kind != want) {
        fail(where, fmt::format("{} must be a {}, got {}", what, t.name, describe(v, g_)));
      }
      return;
    }
    auto dtype = parse_dtype(t.name);
    if (!dtype) {
      const std::string near = nearest_name(
          t.name, {"int", "float", "bool", "str", "tensor", "fn", "list", "f32", "f16", "bf16", "i32"});
      fail(t.span, fmt::format("unknown type '{}'", t.name),
           near.empty()
               ? "types are int, float, bool, str, tensor, fn, list or a dtype pattern like f32[..., n]"
               : fmt::format("did you mean '{}'?", near));
    }
    const std::string pattern = snippet(t.span);
    if (v.kind != K::Tensor) {
      fail(where, fmt::format("{} must be a tensor {}, got {}", what, pattern, describe(v, g_)));
    }
    const TensorType actual = g_.type(v.tensor);
    auto mismatch = [&](const std::string& detail) {
      fail(where, fmt::format("{} must be {}, got {}", what, pattern, actual.str()), detail);
    };
    if (actual.dtype != *dtype) {
      mismatch(fmt::format("the dtype is {}, {} expected; use cast(x, dtype = \"{}\")",
                           dtype_name(actual.dtype), dtype_name(*dtype), dtype_name(*dtype)));
    }
    if (!t.has_dims) {
      return;
    }
    size_t ellipsis = t.dims.size();
    for (size_t k = 0; k < t.dims.size(); ++k) {
      if (t.dims[k]->kind == ExprKind::Ellipsis) {
        if (ellipsis != t.dims.size()) {
          fail(t.dims[k]->span, "only one '...' is allowed in a shape pattern");
        }
        ellipsis = k;
      }
    }
    const auto rank = static_cast<size_t>(actual.rank());
    const bool has_ellipsis = ellipsis != t.dims.size();
    const size_t fixed = t.dims.size() - (has_ellipsis ? 1 : 0);
    if (has_ellipsis ? rank < fixed : rank != fixed) {
      mismatch(fmt::format("rank {} expected, got rank {}",
                           has_ellipsis ? fmt::format("{} or more", fixed) : std::to_string(fixed), rank));
    }
    for (size_t k = 0; k < t.dims.size(); ++k) {
      if (k == ellipsis) {
        continue;
      }
      const size_t axis = k < ellipsis ? k : rank - (t.dims.size() - k);
      const int64_t size = actual.shape[axis];
      const Expr& d = *t.dims[k];
      if (d.kind == ExprKind::Name && local.find_local(d.text) == nullptr) {
        local.set(d.text, Value::of_int(size), d.span);
        continue;
      }
      const int64_t want = expect_int(eval(d, local), g_, d.span, "a shape pattern dimension");
      if (want != size) {
        mismatch(
            fmt::format("dimension {} must be {} ('{}'), but it is {}", axis, want, snippet(d.span), size));
      }
    }
  }

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
  int64_t statements_run_ = 0;  //!< against kMaxStatements
};

}  // namespace

Elaborated elaborate(const ModuleScope& main, const std::map<std::string, ParamValue>& overrides,
                     const SourceManager& sources) {
  return Elaborator(main, sources).run(overrides);
}

}  // namespace iputrain::frontend
