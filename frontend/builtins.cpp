#include "frontend/builtins.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace iputrain::frontend {

namespace {

using K = Value::Kind;

using builtin_args::opt;
using builtin_args::req;
using builtin_args::what;

std::string arg_what(const CallArgs& c, const std::string& param) {
  return what(c, param);
}

Value b_identity(CallArgs& c) {
  return c.args[0];
}

Value b_len(CallArgs& c) {
  const Value& v = c.args[0];
  if (v.kind == K::List) {
    return Value::of_int(static_cast<int64_t>(v.list.size()));
  }
  if (v.kind == K::String) {
    return Value::of_int(static_cast<int64_t>(v.s.size()));
  }
  throw Error(ErrorKind::Semantic,
              fmt::format("len: expected a list or string, got {}", describe(v, c.graph)), c.spans[0],
              "use x.shape[0] for the size of a tensor's first dimension");
}

// str(v): a compile-time value as text, for messages.
Value b_str(CallArgs& c) {
  const Value& v = c.args[0];
  if (v.kind == K::String) {
    return v;
  }
  if (v.kind == K::Int || v.kind == K::Float || v.kind == K::Bool || v.kind == K::List) {
    const std::string d = describe(v, c.graph);
    return Value::of_string(d.substr(d.find(' ') + 1));
  }
  return Value::of_string(type_name(v, c.graph));
}

// kind(v): "int", "float", "bool", "str", "list", "tensor", "function", "module", "initializer"
// or "none", so library code can accept several forms of an argument (3 or [3, 5]).
Value b_kind(CallArgs& c) {
  static const char* names[] = {"none", "int",    "float",    "bool",   "str",
                                "list", "tensor", "function", "module", "initializer"};
  return Value::of_string(names[static_cast<size_t>(c.args[0].kind)]);
}

// `range(n)` = [0, …, n-1]; `range(a, b[, step])`, as in Python, evaluated at compile time.
Value b_range(CallArgs& c) {
  int64_t start = expect_int(c.args[0], c.graph, c.spans[0], arg_what(c, "start"));
  int64_t stop = 0;
  if (c.args[1].kind == K::None) {
    stop = start;
    start = 0;
  } else {
    stop = expect_int(c.args[1], c.graph, c.spans[1], arg_what(c, "stop"));
  }
  const int64_t step = expect_int(c.args[2], c.graph, c.spans[2], arg_what(c, "step"));
  if (step == 0) {
    throw Error(ErrorKind::Semantic, "range: step must not be zero", c.spans[2]);
  }
  if ((stop - start) / step > 1'000'000) {
    throw Error(ErrorKind::Semantic, "range: more than a million items", c.span,
                "ranges are compile-time lists; keep them small");
  }
  std::vector<Value> items;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    items.push_back(Value::of_int(i));
  }
  return Value::of_list(std::move(items));
}

// Initializers only describe how a param starts; the engine draws the values from the config seed.
Value initializer(CallArgs& c, const char* name, std::initializer_list<const char*> arg_names) {
  Value v;
  v.kind = K::Initializer;
  v.s = name;
  size_t k = 0;
  for (const char* arg : arg_names) {
    v.init_args.emplace_back(arg, expect_number(c.args[k], c.graph, c.spans[k], arg_what(c, arg)));
    ++k;
  }
  return v;
}

Value b_zeros(CallArgs& c) {
  return initializer(c, "zeros", {});
}
Value b_ones(CallArgs& c) {
  return initializer(c, "ones", {});
}
Value b_constant(CallArgs& c) {
  return initializer(c, "constant", {"value"});
}
Value b_glorot_uniform(CallArgs& c) {
  return initializer(c, "glorot_uniform", {});
}
Value b_glorot_normal(CallArgs& c) {
  return initializer(c, "glorot_normal", {});
}
Value b_he_normal(CallArgs& c) {
  return initializer(c, "he_normal", {});
}
Value b_he_uniform(CallArgs& c) { return initializer(c, "he_uniform", {}); }
Value b_lecun_normal(CallArgs& c) { return initializer(c, "lecun_normal", {}); }
Value b_lecun_uniform(CallArgs& c) { return initializer(c, "lecun_uniform", {}); }
Value b_truncated_normal(CallArgs& c) {
  if (expect_number(c.args[1], c.graph, c.spans[1], arg_what(c, "stddev")) <= 0) {
    throw Error(ErrorKind::Semantic, "truncated_normal: stddev must be positive", c.spans[1]);
  }
  return initializer(c, "truncated_normal", {"mean", "stddev"});
}
Value b_orthogonal(CallArgs& c) { return initializer(c, "orthogonal", {"gain"}); }
Value b_lstm_bias(CallArgs& c) { return initializer(c, "lstm_bias", {"forget"}); }
Value b_normal(CallArgs& c) {
  if (expect_number(c.args[1], c.graph, c.spans[1], arg_what(c, "stddev")) <= 0) {
    throw Error(ErrorKind::Semantic, "normal: stddev must be positive", c.spans[1]);
  }
  return initializer(c, "normal", {"mean", "stddev"});
}
Value b_uniform(CallArgs& c) {
  if (expect_number(c.args[0], c.graph, c.spans[0], arg_what(c, "minval")) >
      expect_number(c.args[1], c.graph, c.spans[1], arg_what(c, "maxval"))) {
    throw Error(ErrorKind::Semantic, "uniform: minval is greater than maxval", c.span);
  }
  return initializer(c, "uniform", {"minval", "maxval"});
}

std::vector<Builtin> make_table() {
  const Value none = Value::none();
  std::vector<Builtin> t = {
      {"identity", {req("x")}, b_identity},
      {"len", {req("x")}, b_len},
      {"str", {req("x")}, b_str},
      {"kind", {req("x")}, b_kind},
      {"range", {req("start"), opt("stop", none), opt("step", Value::of_int(1))}, b_range},
      {"zeros", {}, b_zeros, true},
      {"ones", {}, b_ones, true},
      {"constant", {req("value")}, b_constant, true},
      {"glorot_uniform", {}, b_glorot_uniform, true},
      {"glorot_normal", {}, b_glorot_normal, true},
      {"he_normal", {}, b_he_normal, true},
      {"he_uniform", {}, b_he_uniform, true},
      {"lecun_normal", {}, b_lecun_normal, true},
      {"lecun_uniform", {}, b_lecun_uniform, true},
      {"truncated_normal",
       {opt("mean", Value::of_float(0.0)), opt("stddev", Value::of_float(0.05))},
       b_truncated_normal,
       true},
      {"orthogonal", {opt("gain", Value::of_float(1.0))}, b_orthogonal, true},
      {"lstm_bias", {opt("forget", Value::of_float(1.0))}, b_lstm_bias, true},
      {"normal", {opt("mean", Value::of_float(0.0)), opt("stddev", Value::of_float(0.05))}, b_normal, true},
      {"uniform", {opt("minval", Value::of_float(-0.05)), opt("maxval", Value::of_float(0.05))}, b_uniform, true},
  };
  add_plain_builtins(t);
  add_tensor_builtins(t);
  add_matmul_builtin(t);
  add_scan_builtins(t);
  add_collective_builtins(t);
  add_slice_builtins(t);
  add_sampling_builtins(t);
  add_einsum_builtin(t);
  return t;
}

}  // namespace

const std::vector<Builtin>& builtins() {
  static const std::vector<Builtin> table = make_table();
  return table;
}

namespace builtin_args {

std::string what(const CallArgs& c, const std::string& param) {
  return fmt::format("argument '{}' of {}", param, c.name);
}

ir::ValueId tensor(CallArgs& c, size_t k, const std::string& param) {
  return expect_tensor(c.args[k], c.graph, c.spans[k], what(c, param));
}

ir::ValueId tensor_or_scalar(CallArgs& c, size_t k, const std::string& param, DType like) {
  const Value& v = c.args[k];
  if (v.kind == K::Tensor) {
    return v.tensor;
  }
  if (v.kind == K::Float && !is_float(like)) {
    throw Error(
        ErrorKind::Semantic,
        fmt::format("{}: cannot combine float {} with a tensor of dtype {}", c.name, v.f, dtype_name(like)),
        c.spans[k], "cast the tensor first: cast(x, dtype = \"f32\")");
  }
  if (!v.is_number() && v.kind != K::Bool) {
    throw Error(ErrorKind::Semantic,
                fmt::format("{} must be a tensor or a number, got {}", what(c, param), describe(v, c.graph)),
                c.spans[k]);
  }
  const double value = v.kind == K::Bool ? (v.b ? 1.0 : 0.0) : v.as_double();
  return c.graph.add_constant(value, TensorType{like, {}}, c.spans[k]);
}

int64_t integer(CallArgs& c, size_t k, const std::string& param) {
  return expect_int(c.args[k], c.graph, c.spans[k], what(c, param));
}

bool boolean(CallArgs& c, size_t k, const std::string& param) {
  if (c.args[k].kind != K::Bool) {
    throw Error(ErrorKind::Semantic,
                fmt::format("{} must be a bool, got {}", what(c, param), describe(c.args[k], c.graph)),
                c.spans[k]);
  }
  return c.args[k].b;
}

std::string choice(CallArgs& c, size_t k, const std::string& param, const std::vector<std::string>& allowed) {
  const std::string s = expect_string(c.args[k], c.graph, c.spans[k], what(c, param));
  if (std::find(allowed.begin(), allowed.end(), s) != allowed.end()) {
    return s;
  }
  std::string list;
  for (const auto& a : allowed) {
    list += (list.empty() ? "\"" : ", \"") + a + "\"";
  }
  const std::string near = nearest_name(s, allowed);
  throw Error(ErrorKind::Semantic, fmt::format("{} must be one of {}, got \"{}\"", what(c, param), list, s),
              c.spans[k], near.empty() ? "" : fmt::format("did you mean \"{}\"?", near));
}

BuiltinParam req(std::string name) { return {std::move(name), true, {}}; }
BuiltinParam opt(std::string name, Value def) { return {std::move(name), false, std::move(def)}; }

ir::ValueId add(CallArgs& c, ir::OpKind op, std::vector<ir::ValueId> inputs, ir::Attrs attrs) {
  return c.graph.add(op, std::move(inputs), std::move(attrs), c.span);
}
}  // namespace builtin_args

namespace {

Value builtin_value(const Builtin& b) {
  auto fn = std::make_shared<Callable>();
  fn->name = b.name;
  fn->builtin = &b;
  return Value::of_function(std::move(fn));
}

// The `ops` module: every builtin once more, in a scope of its own, built once (thread-safe).
const ModuleScope& ops_module() {
  static const ModuleScope* module = [] {
    auto* m = new ModuleScope(nullptr);
    m->name = "ops";
    m->path = "<builtins>";
    for (const Builtin& b : builtins()) {
      m->scope.set(b.name, builtin_value(b));
    }
    return m;
  }();
  return *module;
}

}  // namespace

void install_builtins(Scope& scope) {
  for (const Builtin& b : builtins()) {
    scope.set(b.name, builtin_value(b));
  }
  for (const Builtin* b : custom_builtins()) {
    scope.set(b->name, builtin_value(*b));
  }
  Value ops;
  ops.kind = K::Module;
  ops.module = &ops_module();
  scope.set("ops", std::move(ops));
  for (DType t : kAllDTypes) {
    scope.set(std::string(dtype_name(t)), Value::of_string(std::string(dtype_name(t))));
  }
}

}  // namespace iputrain::frontend
