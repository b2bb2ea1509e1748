// Elaboration's entry point: finds the model, binds its parameters (defaults and [model]
// overrides), runs its body and checks the finished graph.
#include "frontend/elaborator_impl.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace iputrain::frontend::elab {

namespace {

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

const char* example_of(const std::string& type) {
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

}  // namespace

Elaborated Elaborator::run(const std::map<std::string, ParamValue>& overrides) {
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

const ast::Function* Elaborator::find_model() const {
  const ast::Function* found = nullptr;
  for (const auto& fn : main_.ast.functions) {
    if (fn->kind != ast::FunctionKind::Model) {
      continue;
    }
    if (found != nullptr) {
      fail(fn->name_span, fmt::format("a second model '{}' in one file", fn->name),
           fmt::format("model '{}' is already declared on line {}; put each model in its own file", found->name,
                       found->name_span.line));
    }
    found = fn.get();
  }
  if (found == nullptr) {
    fail(SourceSpan{main_.ast.file, 1, 1, 1}, "this file declares no model",
         "add `model NAME(params) { … }`; files with only defs and layers are modules to import");
  }
  return found;
}

void Elaborator::bind_model_params(const ast::Function& model, const std::map<std::string, ParamValue>& overrides,
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
                near.empty() ? fmt::format("the parameters of {} are: {}", model.name, list.empty() ? "(none)" : list)
                             : fmt::format("did you mean '{}'?", near));
  }
  for (const auto& p : model.params) {
    if (scope.find_local(p.name) != nullptr) {
      fail(p.span, fmt::format("duplicate model parameter '{}'", p.name), "rename one of them");
    }
    const std::string declared = p.type ? p.type->name : "";
    if (!declared.empty() && declared != "int" && declared != "float" && declared != "bool" && declared != "str") {
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
                  fmt::format("model parameter '{}' has no default and the config does not set it", p.name), p.span,
                  fmt::format("set it in the config: [model] {} = …", p.name));
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

Value Elaborator::from_override(const ast::ParamDecl& p, const std::string& declared, const ParamValue& pv,
                                Scope& scope) {
  std::string want = declared;
  if (want.empty() && p.default_value) {
    const Value def = eval(*p.default_value, scope);
    want = def.kind == K::Int ? "int" : def.kind == K::Float ? "float" : def.kind == K::Bool ? "bool" : "str";
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
  const std::string got = v.kind == K::Int ? "int" : v.kind == K::Float ? "float" : v.kind == K::Bool ? "bool" : "str";
  if (!want.empty() && got != want) {
    throw Error(ErrorKind::Config,
                fmt::format("[model] {} = {}: model parameter '{}' is {}, not {}", p.name, param_value_text(pv), p.name,
                            want, got),
                p.span, fmt::format("write a value of type {}, e.g. {} = {}", want, p.name, example_of(want)));
  }
  return v;
}

}  // namespace iputrain::frontend::elab

namespace iputrain::frontend {

Elaborated elaborate(const ModuleScope& main, const std::map<std::string, ParamValue>& overrides,
                     const SourceManager& sources) {
  return elab::Elaborator(main, sources).run(overrides);
}

}  // namespace iputrain::frontend
