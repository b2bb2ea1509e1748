// Statements of model, def and layer bodies; `if` and `for` run at compile time.
#include "frontend/elaborator_impl.hpp"

#include <fmt/format.h>

namespace iputrain::frontend::elab {

// Runs `block`; returns the value of a `return` if one ran.
std::optional<Value> Elaborator::exec(const ast::Block& block, Scope& scope, Frame& frame) {
  for (const auto& s : block) {
    if (auto r = exec(*s, scope, frame)) {
      return r;
    }
  }
  return std::nullopt;
}

std::optional<Value> Elaborator::exec(const Stmt& s, Scope& scope, Frame& frame) {
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
      if (v.kind == K::Tensor && frame.kind == ast::FunctionKind::Model) {
        name_model_value(s.name, v.tensor, s.name_span);
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
    case StmtKind::Stage:
      return exec_stage(s, scope, frame);
    case StmtKind::If:
      return exec_if(s, scope, frame);
    case StmtKind::For:
      return exec_for(s, scope, frame);
    case StmtKind::Minimize:
      exec_minimize(s, scope);
      return std::nullopt;
    case StmtKind::Output:
      exec_output(s, scope);
      return std::nullopt;
    case StmtKind::Assert:
      exec_assert(s, scope);
      return std::nullopt;
    case StmtKind::Loop:
      exec_loop(s, scope, frame);
      return std::nullopt;
    case StmtKind::Collect:
      exec_collect(s, scope);
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<Value> Elaborator::exec_stage(const Stmt& s, Scope& scope, Frame& frame) {
  const int32_t index = stage_index(s.name);
  g_.set_cursor(index, ir::Phase::Forward);
  path_ = {s.name};
  auto r = exec(s.body, scope, frame);
  path_.clear();
  return r;
}

std::optional<Value> Elaborator::exec_if(const Stmt& s, Scope& scope, Frame& frame) {
  const Value c = eval(*s.value, scope);
  if (c.kind != K::Bool) {
    fail(s.value->span, fmt::format("an 'if' condition must be a compile-time bool, got {}", describe(c, g_)),
         c.kind == K::Tensor ? "'if' is evaluated while the model is built; tensors are only known at run time"
                             : "compare it, e.g. `if n > 0 { … }`");
  }
  return exec(c.b ? s.body : s.else_body, scope, frame);
}

std::optional<Value> Elaborator::exec_for(const Stmt& s, Scope& scope, Frame& frame) {
  const int64_t from = expect_int(eval(*s.value, scope), g_, s.value->span, "the start of a 'for' range");
  const int64_t to = expect_int(eval(*s.value2, scope), g_, s.value2->span, "the end of a 'for' range");
  if (to - from > kMaxLoopIterations) {
    fail(s.span, fmt::format("a loop of {} iterations is too long to unroll", to - from),
         fmt::format("'for' is unrolled at compile time; keep it under {} iterations", kMaxLoopIterations));
  }
  for (int64_t i = from; i < to; ++i) {
    scope.set(s.name, Value::of_int(i), s.name_span);
    if (auto r = exec(s.body, scope, frame)) {
      return r;
    }
  }
  return std::nullopt;
}

void Elaborator::exec_minimize(const Stmt& s, Scope& scope) {
  const Value v = eval(*s.value, scope);
  if (g_.loss != ir::kNoValue) {
    fail(s.span, "a model can minimize only one objective",
         fmt::format("the first 'minimize' is on line {}; add the terms into one scalar", g_.node(g_.loss).span.line));
  }
  if (v.kind != K::Tensor || g_.type(v.tensor).rank() != 0 || !is_float(g_.type(v.tensor).dtype)) {
    fail(s.value->span, fmt::format("minimize needs a scalar float tensor, got {}", describe(v, g_)),
         v.kind == K::Tensor ? "reduce it first, e.g. `minimize mean(loss)`" : "");
  }
  g_.loss = v.tensor;
}

void Elaborator::check_new_name(const Stmt& s, const Scope& scope, const char* what) const {
  if (scope.find_local(s.name) != nullptr) {
    const SourceSpan first = scope.defined_at(s.name);
    fail(s.name_span, fmt::format("{} '{}' is already defined", what, s.name),
         first.valid() ? fmt::format("'{}' was first defined on line {}; rename one of them", s.name, first.line)
                       : "rename one of them");
  }
}

TensorType Elaborator::tensor_type(const ast::TypeExpr& t, Scope& scope, const char* what) {
  auto dtype = parse_dtype(t.name);
  if (!dtype) {
    const std::string near = nearest_name(t.name, {"f32", "f16", "bf16", "i32", "bool", "u8"});
    fail(t.span, fmt::format("{} must have a tensor type, got '{}'", what, t.name),
         near.empty() ? "tensor types are f32, f16, bf16, i32, bool and u8, e.g. f32[batch, 10]"
                      : fmt::format("did you mean '{}'?", near));
  }
  TensorType out{*dtype, {}};
  for (const auto& d : t.dims) {
    const Value v = eval(*d, scope);
    const int64_t n = expect_int(v, g_, d->span, "a dimension");
    if (n <= 0) {
      fail(d->span, fmt::format("dimensions must be positive, got {}", n),
           "a tensor has at least one element along each dimension: iputrain has no empty tensors "
           "(docs/language.md, Tensors)");
    }
    out.shape.push_back(n);
  }
  return out;
}

void Elaborator::exec_input(const Stmt& s, Scope& scope) {
  check_new_name(s, scope, "input");
  const TensorType t = tensor_type(*s.type, scope, "an input");
  const ir::ValueId id = g_.add_input(s.name, t, s.name_span);
  name_model_value(s.name, id, s.name_span);
  scope.set(s.name, Value::of_tensor(id), s.name_span);
}

void Elaborator::exec_param(const Stmt& s, Scope& scope, Frame& frame) {
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
    fail(s.value->span, fmt::format("the initial value of a param must be an initializer, got {}", describe(init, g_)),
         "use zeros(), ones(), constant(v), glorot_uniform(), glorot_normal(), he_normal(), normal() or "
         "uniform()");
  }
  ir::Attrs attrs{{"init", init.s}};
  for (const auto& [key, value] : init.init_args) {
    attrs.set(key, value);
  }
  for (const ast::ParamOption& o : s.options) {
    if (o.name != "trainable" && o.name != "host") {
      const std::string near = nearest_name(o.name, {"trainable", "host"});
      fail(o.name_span, fmt::format("a param has no option '{}'", o.name),
           near.empty() ? "the options of a param are `trainable = false` and `host = true`"
                        : fmt::format("did you mean '{}'?", near));
    }
    const Value v = eval(*o.value, scope);
    if (v.kind != K::Bool) {
      fail(o.value->span, fmt::format("{} must be a compile-time bool, got {}", o.name, describe(v, g_)));
    }
    if (o.name == "host") {
      if (v.b && (t.shape.size() != 2 || t.dtype != DType::F32)) {
        fail(o.name_span, fmt::format("a host table is a f32 matrix [rows, width], got {}", t.str()),
             "declare it as `param table: f32[vocab, dim] = ..., host = true` (nn.host_embedding)");
      }
      // Kept in host memory, looked up and updated by the host (planner/host_tables.hpp).
      attrs.set("host", int64_t{v.b ? 1 : 0});
    } else if (!v.b) {
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
void Elaborator::exec_assert(const Stmt& s, Scope& scope) {
  const Value c = eval(*s.value, scope);
  if (c.kind != K::Bool) {
    fail(s.value->span, fmt::format("an 'assert' condition must be a compile-time bool, got {}", describe(c, g_)));
  }
  if (c.b) {
    return;
  }
  const std::string message = expect_string(eval(*s.value2, scope), g_, s.value2->span, "the message of an 'assert'");
  fail(s.span, message);
}

void Elaborator::exec_output(const Stmt& s, Scope& scope) {
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
  if (s.per_sample) {
    check_per_sample(s, v.tensor, where);
  }
  g_.outputs.push_back(ir::Output{s.name, v.tensor, s.span, s.per_sample});
}

// A per-sample output has a row per sample: its first dimension is the micro-batch, the first
// dimension of every input.
void Elaborator::check_per_sample(const Stmt& s, ir::ValueId v, SourceSpan where) {
  if (g_.inputs.empty()) {
    fail(s.span, fmt::format("per-sample output '{}' in a model without inputs", s.name),
         "a per-sample output has one row per sample of the inputs; declare the inputs first");
  }
  const TensorType& in = g_.type(g_.inputs.front());
  const TensorType& t = g_.type(v);
  if (in.shape.empty() || t.shape.empty() || t.shape.front() != in.shape.front()) {
    fail(where,
         fmt::format("per-sample output '{}' is {}: its first dimension must be the micro-batch, {} (the first "
                     "dimension of input '{}')",
                     s.name, t.str(), in.shape.empty() ? std::string("none") : std::to_string(in.shape.front()),
                     g_.node(g_.inputs.front()).name),
         "a per-sample output has one row per sample, e.g. `output per_sample probs = softmax(logits)`; "
         "a value per batch is a plain `output`");
  }
}

// `predict --output NAME` may ask for any tensor the model body names: the last binding counts.
void Elaborator::name_model_value(const std::string& name, ir::ValueId v, SourceSpan span) {
  for (ir::Output& o : g_.named) {
    if (o.name == name) {
      o.value = v;
      o.span = span;
      return;
    }
  }
  g_.named.push_back(ir::Output{name, v, span, false});
}

}  // namespace iputrain::frontend::elab
