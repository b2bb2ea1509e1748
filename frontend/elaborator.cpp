// Elaboration's entry point: finds the model, binds its parameters (defaults and [model]
// overrides, checked here only), runs its body and checks the finished graph.
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

// "an integer" for "int", and so on: how the config's errors name a value's kind.
const char* kind_name(const std::string& type) {
  return type == "int" ? "an integer" : type == "float" ? "a float" : type == "bool" ? "a bool" : "a string";
}

std::optional<ParamValue> param_value_of(const Value& v) {
  switch (v.kind) {
    case K::Int:
      return ParamValue(v.i);
    case K::Float:
      return ParamValue(v.f);
    case K::Bool:
      return ParamValue(v.b);
    case K::String:
      return ParamValue(v.s);
    default:
      return std::nullopt;
  }
}

}  // namespace

Elaborated Elaborator::run(const ParamOverrides& overrides) {
  const ast::Function* model = find_model();
  Elaborated out;
  out.model_name = model->name;
  Scope scope(&main_.scope);
  bind_model_params(*model, overrides, scope, out.params);
  declare_stages(*model);
  Frame frame{ast::FunctionKind::Model, {}};
  exec(model->body, scope, frame);
  check_stage_order();
  // The planner's refusals of a stateful layer (planner/recurrent_states.hpp) point at the
  // model's call of the layer, not at the library line that reads or writes its state.
  for (ir::ValueId id = 0; id < g_.size(); ++id) {
    if (op_has(g_.node(id).op, ir::op_flags::stateful)) {
      g_.node(id).span = user_span(id);
    }
  }
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

// An override that names no parameter of the model: at the config key when a config set it
// (the parameters listed by name, as the config's errors do), else at the model's declaration.
void Elaborator::check_override_names(const ast::Function& model, const ParamOverrides& overrides) const {
  std::vector<std::string> names;
  for (const auto& p : model.params) {
    names.push_back(p.name);
  }
  for (const auto& [key, value] : overrides.values) {
    if (std::find(names.begin(), names.end(), key) != names.end()) {
      continue;
    }
    if (overrides.keys != nullptr) {
      std::vector<std::string> sorted = names;
      std::sort(sorted.begin(), sorted.end());
      const std::string near = nearest_name(key, sorted);
      overrides.keys->fail_at("model." + key, fmt::format("the model has no compile-time parameter `{}`", key),
                              near.empty() ? fmt::format("its parameters are: {}", fmt::join(sorted, ", "))
                                           : fmt::format("did you mean `{}`?", near));
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
}

void Elaborator::bind_model_params(const ast::Function& model, const ParamOverrides& overrides, Scope& scope,
                                   std::map<std::string, ParamValue>& resolved) {
  check_override_names(model, overrides);
  for (const auto& p : model.params) {
    if (scope.find_local(p.name) != nullptr) {
      fail(p.span, fmt::format("duplicate model parameter '{}'", p.name), "rename one of them");
    }
    const std::string declared = p.type ? p.type->name : "";
    if (!declared.empty() && declared != "int" && declared != "float" && declared != "bool" && declared != "str") {
      fail(p.type->span, fmt::format("model parameter '{}' has type '{}'", p.name, declared),
           "model parameters are compile-time values of type int, float, bool or str");
    }
    Value v = model_param_value(p, declared, overrides, scope);
    if (const std::optional<ParamValue> pv = param_value_of(v)) {
      resolved[p.name] = *pv;
    }
    scope.set(p.name, std::move(v), p.span);
  }
}

// A model parameter's value: its override, else its default, where data.batch_size (per slice)
// stands in for the default of an int `batch`.
Value Elaborator::model_param_value(const ast::ParamDecl& p, const std::string& declared,
                                    const ParamOverrides& overrides, Scope& scope) {
  const auto it = overrides.values.find(p.name);
  if (it != overrides.values.end()) {
    return from_override(p, declared, it->second, overrides.keys, scope);
  }
  if (!p.default_value) {
    throw Error(ErrorKind::Config,
                fmt::format("model parameter '{}' has no default and the config does not set it", p.name), p.span,
                fmt::format("set it in the config: [model] {} = …", p.name));
  }
  Value v = eval(*p.default_value, scope);
  check_scalar_type(declared, v, p.default_value->span, fmt::format("the default of '{}'", p.name));
  if (p.name == "batch" && overrides.batch > 0 && v.kind == K::Int) {
    v = Value::of_int(overrides.batch);
  }
  return v;
}

Value Elaborator::from_override(const ast::ParamDecl& p, const std::string& declared, const ParamValue& pv,
                                const KeyLocations* keys, Scope& scope) {
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
  if (want.empty() || got == want) {
    return v;
  }
  const std::string example = fmt::format("write a value of type {}, e.g. {} = {}", want, p.name, example_of(want));
  if (keys != nullptr) {  // at the config key, in the config's words
    const std::optional<ParamValue> def_value =
        p.default_value ? param_value_of(eval(*p.default_value, scope)) : std::nullopt;
    keys->fail_at("model." + p.name,
                  fmt::format("model parameter `{}` takes {}, got {}", p.name, kind_name(want), kind_name(got)),
                  def_value ? fmt::format("its default is {}", param_value_str(*def_value)) : example);
  }
  throw Error(ErrorKind::Config,
              fmt::format("[model] {} = {}: model parameter '{}' is {}, not {}", p.name, param_value_text(pv), p.name,
                          want, got),
              p.span, example);
}

}  // namespace iputrain::frontend::elab

namespace iputrain::frontend {

Elaborated elaborate(const ModuleScope& main, const ParamOverrides& overrides, const SourceManager& sources) {
  return elab::Elaborator(main, sources).run(overrides);
}

}  // namespace iputrain::frontend
