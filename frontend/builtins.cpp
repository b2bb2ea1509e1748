#include "frontend/builtins.hpp"

#include <fmt/format.h>

namespace iputrain::frontend {

namespace {

using ir::OpKind;
using K = Value::Kind;

std::string arg_what(const CallArgs& c, const std::string& param) {
  return fmt::format("argument '{}' of {}", param, c.name);
}

ir::ValueId tensor(CallArgs& c, size_t k, const std::string& param) {
  return expect_tensor(c.args[k], c.graph, c.spans[k], arg_what(c, param));
}

Value unary_op(CallArgs& c, OpKind op) {
  return Value::of_tensor(c.graph.add(op, {tensor(c, 0, "x")}, {}, c.span));
}

Value b_relu(CallArgs& c) {
  return unary_op(c, OpKind::Relu);
}

Value b_identity(CallArgs& c) {
  return c.args[0];
}

Value b_flatten(CallArgs& c) {
  const ir::ValueId x = tensor(c, 0, "x");
  const Shape& s = c.graph.type(x).shape;
  if (s.empty()) {
    throw Error(ErrorKind::Semantic, "flatten: a scalar has no batch dimension to keep", c.spans[0],
                "flatten keeps the first dimension and merges the others");
  }
  const Shape target{s[0], numel(Shape(s.begin() + 1, s.end()))};
  return Value::of_tensor(c.graph.add(OpKind::Reshape, {x}, ir::Attrs{{"shape", target}}, c.span));
}

Value b_reshape(CallArgs& c) {
  const ir::ValueId x = tensor(c, 0, "x");
  const std::vector<int64_t> shape = expect_ints(c.args[1], c.graph, c.spans[1], arg_what(c, "shape"));
  return Value::of_tensor(c.graph.add(OpKind::Reshape, {x}, ir::Attrs{{"shape", shape}}, c.span));
}

Value b_softmax_cross_entropy(CallArgs& c) {
  const ir::ValueId logits = tensor(c, 0, "logits");
  const ir::ValueId labels = tensor(c, 1, "labels");
  return Value::of_tensor(c.graph.add(OpKind::SoftmaxCrossEntropy, {logits, labels}, {}, c.span));
}

// Reductions take `axis` as nothing (all axes), an int or a list of ints. A bool tensor is cast
// first so `mean(pred == label)` is the accuracy, as users expect.
Value reduce(CallArgs& c, OpKind op, DType bool_as) {
  ir::ValueId x = tensor(c, 0, "x");
  if (c.graph.type(x).dtype == DType::Bool) {
    x = c.graph.add(OpKind::Cast, {x}, ir::Attrs{{"dtype", std::string(dtype_name(bool_as))}}, c.spans[0]);
  }
  std::vector<int64_t> axes;
  if (c.args[1].kind != K::None) {
    axes = expect_ints(c.args[1], c.graph, c.spans[1], arg_what(c, "axis"));
  }
  if (c.args[2].kind != K::Bool) {
    throw Error(
        ErrorKind::Semantic,
        fmt::format("{} must be a bool, got {}", arg_what(c, "keepdims"), describe(c.args[2], c.graph)),
        c.spans[2]);
  }
  ir::Attrs attrs{{"axes", axes}, {"keepdims", int64_t{c.args[2].b ? 1 : 0}}};
  return Value::of_tensor(c.graph.add(op, {x}, std::move(attrs), c.span));
}

Value b_mean(CallArgs& c) {
  return reduce(c, OpKind::Mean, DType::F32);
}
Value b_sum(CallArgs& c) {
  return reduce(c, OpKind::Sum, DType::I32);
}

Value b_argmax(CallArgs& c) {
  const ir::ValueId x = tensor(c, 0, "x");
  const int64_t axis = expect_int(c.args[1], c.graph, c.spans[1], arg_what(c, "axis"));
  return Value::of_tensor(c.graph.add(OpKind::Argmax, {x}, ir::Attrs{{"axis", axis}}, c.span));
}

Value b_cast(CallArgs& c) {
  const ir::ValueId x = tensor(c, 0, "x");
  const std::string name = expect_string(c.args[1], c.graph, c.spans[1], arg_what(c, "dtype"));
  auto dtype = parse_dtype(name);
  if (!dtype || *dtype == DType::F16 || *dtype == DType::BF16) {
    throw Error(ErrorKind::Semantic, fmt::format("cast: unsupported dtype \"{}\"", name), c.spans[1],
                "cast supports \"f32\", \"i32\" and \"bool\"");
  }
  if (c.graph.type(x).dtype == *dtype) {
    return c.args[0];
  }
  return Value::of_tensor(c.graph.add(OpKind::Cast, {x}, ir::Attrs{{"dtype", name}}, c.span));
}

Value b_matmul(CallArgs& c) {
  const ir::ValueId a = tensor(c, 0, "a");
  const ir::ValueId b = tensor(c, 1, "b");
  return Value::of_tensor(c.graph.add(OpKind::MatMul, {a, b}, {}, c.span));
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

BuiltinParam req(std::string name) {
  return {std::move(name), true, {}};
}
BuiltinParam opt(std::string name, Value def) {
  return {std::move(name), false, std::move(def)};
}

std::vector<Builtin> make_table() {
  const Value none = Value::none();
  std::vector<Builtin> t = {
      {"identity", {req("x")}, b_identity},
      {"relu", {req("x")}, b_relu},
      {"flatten", {req("x")}, b_flatten},
      {"reshape", {req("x"), req("shape")}, b_reshape},
      {"softmax_cross_entropy", {req("logits"), req("labels")}, b_softmax_cross_entropy},
      {"mean", {req("x"), opt("axis", none), opt("keepdims", Value::of_bool(false))}, b_mean},
      {"sum", {req("x"), opt("axis", none), opt("keepdims", Value::of_bool(false))}, b_sum},
      {"argmax", {req("x"), opt("axis", Value::of_int(-1))}, b_argmax},
      {"cast", {req("x"), opt("dtype", Value::of_string("f32"))}, b_cast},
      {"matmul", {req("a"), req("b")}, b_matmul},
      {"len", {req("x")}, b_len},
      {"zeros", {}, b_zeros, true},
      {"ones", {}, b_ones, true},
      {"constant", {req("value")}, b_constant, true},
      {"glorot_uniform", {}, b_glorot_uniform, true},
      {"glorot_normal", {}, b_glorot_normal, true},
      {"he_normal", {}, b_he_normal, true},
      {"normal", {opt("mean", Value::of_float(0.0)), opt("stddev", Value::of_float(0.05))}, b_normal, true},
      {"uniform",
       {opt("minval", Value::of_float(-0.05)), opt("maxval", Value::of_float(0.05))},
       b_uniform,
       true},
  };
  return t;
}

}  // namespace

const std::vector<Builtin>& builtins() {
  static const std::vector<Builtin> table = make_table();
  return table;
}

void install_builtins(Scope& scope) {
  for (const Builtin& b : builtins()) {
    auto fn = std::make_shared<Callable>();
    fn->name = b.name;
    fn->builtin = &b;
    scope.set(b.name, Value::of_function(std::move(fn)));
  }
  for (DType t : {DType::F32, DType::F16, DType::BF16, DType::I32, DType::Bool}) {
    scope.set(std::string(dtype_name(t)), Value::of_string(std::string(dtype_name(t))));
  }
}

}  // namespace iputrain::frontend
