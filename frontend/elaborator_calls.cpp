// Calls: arguments bound to a signature, then a builtin runs or a user def/layer is expanded in
// place (layers name their parameters by call path).
#include "frontend/elaborator_impl.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "frontend/builtins.hpp"

namespace iputrain::frontend::elab {

std::string Elaborator::snippet(SourceSpan span) const {
  if (!span.valid() || span.file >= sources_.size()) {
    return {};
  }
  const std::string line = sources_.line_text(span.file, span.line);
  const auto col = static_cast<size_t>(std::max(1, span.col) - 1);
  return col < line.size() ? line.substr(col, static_cast<size_t>(span.length)) : std::string();
}

std::string Elaborator::signature(const Callable& fn) const {
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

std::string Elaborator::describe_short(const Value& v) const {
  const std::string d = describe(v, g_);
  const size_t space = d.find(' ');
  return space == std::string::npos ? d : d.substr(space + 1);
}

namespace {

size_t positional_count(const std::vector<Actual>& actuals) {
  size_t n = 0;
  for (const auto& a : actuals) {
    n += a.keyword.empty() ? 1 : 0;
  }
  return n;
}

}  // namespace

// Matches actual arguments to formals; returns, per formal, the index of its actual (or -1).
std::vector<int> Elaborator::bind(const Callable& fn, const std::vector<Formal>& formals,
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
             fmt::format("{} takes {} argument{}, got {}", fn.name, formals.size(), formals.size() == 1 ? "" : "s",
                         positional_count(actuals)),
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

Value Elaborator::eval_call(const Expr& e, Scope& scope) {
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

Value Elaborator::call_builtin(const Callable& fn, const std::vector<Actual>& actuals, SourceSpan span) {
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

Value Elaborator::call_user(const Callable& fn, const std::vector<Actual>& actuals, SourceSpan span) {
  const ast::Function& decl = *fn.decl;
  for (const ast::Function* active : stack_) {
    if (active == &decl) {
      std::string chain;
      for (const ast::Function* f : stack_) {
        chain += f->name + " -> ";
      }
      fail(span, fmt::format("recursive call of '{}'", decl.name),
           fmt::format("{}{}: functions and layers are expanded at compile time, so recursion never ends", chain,
                       decl.name));
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

std::string Elaborator::path_string() const {
  std::string out;
  for (const auto& part : path_) {
    out += (out.empty() ? "" : "/") + part;
  }
  return out;
}

std::string Elaborator::in_library_hint(const std::string& hint, const std::string& fn, SourceSpan at) const {
  const std::string where = fmt::format("raised in {} at {}:{}", fn, sources_.path(at.file), at.line);
  return hint.empty() ? where : fmt::format("{} ({})", hint, where);
}

// `dense`, then `dense_1`, `dense_2`, … for later calls in the same scope.
std::string Elaborator::unique_scope_name(const std::string& base) {
  std::string prefix;
  for (const auto& part : path_) {
    prefix += part + "/";
  }
  int& count = scope_counts_[prefix][base];
  const std::string name = count == 0 ? base : fmt::format("{}_{}", base, count);
  ++count;
  return name;
}

}  // namespace iputrain::frontend::elab
