// The builtins that lower to IR ops but are more than the op itself: binary ops that take a
// number on either side, reductions with their axis forms, shape helpers composed from ops,
// options turned into attributes. A builtin that is just its op is generated instead
// (plain_builtins.cpp); options checked here are those the ops do not declare as attributes.
#include <fmt/format.h>

#include <algorithm>

#include "frontend/builtins.hpp"

namespace iputrain::frontend {

namespace {

using ir::OpKind;
using K = Value::Kind;
using namespace builtin_args;

Value out(CallArgs& c, OpKind op, std::vector<ir::ValueId> inputs, ir::Attrs attrs = {}) {
  return Value::of_tensor(c.graph.add(op, std::move(inputs), std::move(attrs), c.span));
}

const TensorType& type_of(CallArgs& c, ir::ValueId id) {
  return c.graph.type(id);
}

// ---- elementwise ----------------------------------------------------------------------------

// Binary builtins accept a number on one side, like the operators do.
template <OpKind Op>
Value binary(CallArgs& c) {
  if (c.args[0].kind != K::Tensor && c.args[1].kind != K::Tensor) {
    throw Error(ErrorKind::Semantic, fmt::format("{} needs at least one tensor argument", c.name), c.span,
                "for compile-time numbers use the operators (+ - * / ** < …)");
  }
  const DType like =
      c.args[0].kind == K::Tensor ? type_of(c, c.args[0].tensor).dtype : type_of(c, c.args[1].tensor).dtype;
  const ir::ValueId a = tensor_or_scalar(c, 0, "a", like);
  const ir::ValueId b = tensor_or_scalar(c, 1, "b", like);
  return out(c, Op, {a, b});
}

Value b_where(CallArgs& c) {
  const ir::ValueId cond = tensor(c, 0, "cond");
  if (type_of(c, cond).dtype != DType::Bool) {
    throw Error(ErrorKind::Semantic,
                fmt::format("{} must be a bool tensor, got {}", what(c, "cond"), type_of(c, cond).str()),
                c.spans[0], "compare first, e.g. where(x > 0, x, 0.0)");
  }
  if (c.args[1].kind != K::Tensor && c.args[2].kind != K::Tensor) {
    throw Error(ErrorKind::Semantic, "where needs a tensor for 'a' or 'b'", c.span,
                "e.g. where(mask, x, 0.0)");
  }
  const DType like =
      c.args[1].kind == K::Tensor ? type_of(c, c.args[1].tensor).dtype : type_of(c, c.args[2].tensor).dtype;
  const ir::ValueId a = tensor_or_scalar(c, 1, "a", like);
  const ir::ValueId b = tensor_or_scalar(c, 2, "b", like);
  return out(c, OpKind::Where, {cond, a, b});
}

Value b_cast(CallArgs& c) {
  const ir::ValueId x = tensor(c, 0, "x");
  const std::string name = choice(c, 1, "dtype", {"f32", "i32", "bool", "f16", "bf16"});
  if (std::string(dtype_name(type_of(c, x).dtype)) == name) {
    return c.args[0];
  }
  return out(c, OpKind::Cast, {x}, ir::Attrs{{"dtype", name}});
}

// ---- reductions -----------------------------------------------------------------------------

// `axis` is nothing (all axes), an int or a list of ints. A bool tensor is cast first so that
// `mean(pred == label)` is the accuracy, as users expect.
Value reduce(CallArgs& c, OpKind op, DType bool_as) {
  ir::ValueId x = tensor(c, 0, "x");
  if (type_of(c, x).dtype == DType::Bool) {
    x = c.graph.add(OpKind::Cast, {x}, ir::Attrs{{"dtype", std::string(dtype_name(bool_as))}}, c.spans[0]);
  }
  std::vector<int64_t> axes;
  if (c.args[1].kind != K::None) {
    axes = expect_ints(c.args[1], c.graph, c.spans[1], what(c, "axis"));
  }
  const bool keepdims = boolean(c, 2, "keepdims");
  return out(c, op, {x}, ir::Attrs{{"axes", axes}, {"keepdims", int64_t{keepdims ? 1 : 0}}});
}

Value b_mean(CallArgs& c) {
  return reduce(c, OpKind::Mean, DType::F32);
}
Value b_sum(CallArgs& c) {
  return reduce(c, OpKind::Sum, DType::I32);
}
Value b_max(CallArgs& c) {
  return reduce(c, OpKind::Max, DType::I32);
}
// min(x) = -max(-x): no primitive of its own.
Value b_min(CallArgs& c) {
  const ir::ValueId x = tensor(c, 0, "x");
  if (!is_float(type_of(c, x).dtype)) {
    throw Error(ErrorKind::Semantic, fmt::format("min needs a float tensor, got {}", type_of(c, x).str()),
                c.spans[0], "cast it first: min(cast(x, dtype = \"f32\"))");
  }
  c.args[0] = Value::of_tensor(c.graph.add(OpKind::Neg, {x}, {}, c.span));
  const Value m = reduce(c, OpKind::Max, DType::F32);
  return out(c, OpKind::Neg, {m.tensor});
}

template <OpKind Op>
Value b_arg_extreme(CallArgs& c) {
  const ir::ValueId x = tensor(c, 0, "x");
  return out(c, Op, {x}, ir::Attrs{{"axis", integer(c, 1, "axis")}});
}

// ---- shape ----------------------------------------------------------------------------------

Value b_reshape(CallArgs& c) {
  const ir::ValueId x = tensor(c, 0, "x");
  const std::vector<int64_t> shape = expect_ints(c.args[1], c.graph, c.spans[1], what(c, "shape"));
  return out(c, OpKind::Reshape, {x}, ir::Attrs{{"shape", shape}});
}

Value b_flatten(CallArgs& c) {
  const ir::ValueId x = tensor(c, 0, "x");
  const Shape& s = type_of(c, x).shape;
  if (s.empty()) {
    throw Error(ErrorKind::Semantic, "flatten: a scalar has no batch dimension to keep", c.spans[0],
                "flatten keeps the first dimension and merges the others");
  }
  const Shape target{s[0], numel(Shape(s.begin() + 1, s.end()))};
  return out(c, OpKind::Reshape, {x}, ir::Attrs{{"shape", target}});
}

int64_t axis_of(CallArgs& c, size_t k, const std::string& param, int64_t rank, bool one_past = false) {
  const int64_t a = integer(c, k, param);
  auto n = normalize_axis(a, rank + (one_past ? 1 : 0));
  if (!n) {
    throw Error(
        ErrorKind::Semantic,
        fmt::format("{} is {}, out of range for a tensor of rank {}", what(c, param), a, rank), c.spans[k],
        fmt::format("valid axes are {}..{}", -(rank + (one_past ? 1 : 0)), rank - (one_past ? 0 : 1)));
  }
  return *n;
}

Value b_expand_dims(CallArgs& c) {
  const ir::ValueId x = tensor(c, 0, "x");
  Shape s = type_of(c, x).shape;
  const int64_t axis = axis_of(c, 1, "axis", static_cast<int64_t>(s.size()), true);
  s.insert(s.begin() + axis, 1);
  return out(c, OpKind::Reshape, {x}, ir::Attrs{{"shape", s}});
}

Value b_squeeze(CallArgs& c) {
  const ir::ValueId x = tensor(c, 0, "x");
  const Shape& s = type_of(c, x).shape;
  Shape target;
  if (c.args[1].kind == K::None) {
    std::copy_if(s.begin(), s.end(), std::back_inserter(target), [](int64_t d) { return d != 1; });
  } else {
    const int64_t axis = axis_of(c, 1, "axis", static_cast<int64_t>(s.size()));
    if (s[static_cast<size_t>(axis)] != 1) {
      throw Error(ErrorKind::Semantic,
                  fmt::format("squeeze: dimension {} of {} is {}, not 1", axis, type_of(c, x).str(),
                              s[static_cast<size_t>(axis)]),
                  c.spans[1], "only dimensions of size 1 can be removed");
    }
    target = s;
    target.erase(target.begin() + axis);
  }
  return out(c, OpKind::Reshape, {x}, ir::Attrs{{"shape", target}});
}

Value b_broadcast_to(CallArgs& c) {
  const ir::ValueId x = tensor(c, 0, "x");
  const std::vector<int64_t> shape = expect_ints(c.args[1], c.graph, c.spans[1], what(c, "shape"));
  return out(c, OpKind::BroadcastTo, {x}, ir::Attrs{{"shape", shape}});
}

Value b_transpose(CallArgs& c) {
  const ir::ValueId x = tensor(c, 0, "x");
  ir::Attrs attrs;
  if (c.args[1].kind != K::None) {
    attrs.set("perm", expect_ints(c.args[1], c.graph, c.spans[1], what(c, "perm")));
  }
  return out(c, OpKind::Transpose, {x}, std::move(attrs));
}

Value b_concat(CallArgs& c) {
  const Value& xs = c.args[0];
  if (xs.kind != K::List || xs.list.empty()) {
    throw Error(
        ErrorKind::Semantic,
        fmt::format("{} must be a non-empty list of tensors, got {}", what(c, "xs"), describe(xs, c.graph)),
        c.spans[0], "write concat([a, b], axis = -1)");
  }
  std::vector<ir::ValueId> inputs;
  for (const Value& v : xs.list) {
    inputs.push_back(expect_tensor(v, c.graph, c.spans[0], "an item of " + what(c, "xs")));
  }
  return out(c, OpKind::Concat, std::move(inputs), ir::Attrs{{"axis", integer(c, 1, "axis")}});
}

// split(x, 3) cuts into three equal parts; split(x, [2, 5]) into parts of those sizes. Each part
// is a slice, so the list can be unpacked by indexing.
Value b_split(CallArgs& c) {
  const ir::ValueId x = tensor(c, 0, "x");
  // A copy: each slice below adds a value to the graph, which may move the types it holds.
  const Shape s = type_of(c, x).shape;
  const std::string x_type = type_of(c, x).str();
  const int64_t axis = axis_of(c, 2, "axis", static_cast<int64_t>(s.size()));
  const int64_t dim = s[static_cast<size_t>(axis)];
  std::vector<int64_t> sizes;
  if (c.args[1].kind == K::Int) {
    const int64_t n = c.args[1].i;
    if (n <= 0 || dim % n != 0) {
      throw Error(
          ErrorKind::Semantic,
          fmt::format("split: dimension {} of {} ({}) does not divide into {} equal parts", axis, x_type, dim, n),
          c.spans[1], "give the part sizes as a list, e.g. split(x, [2, 3], axis = -1)");
    }
    sizes.assign(static_cast<size_t>(n), dim / n);
  } else {
    sizes = expect_ints(c.args[1], c.graph, c.spans[1], what(c, "sections"));
    int64_t total = 0;
    for (int64_t v : sizes) {
      if (v <= 0) {
        throw Error(ErrorKind::Semantic, "split: part sizes must be positive", c.spans[1]);
      }
      total += v;
    }
    if (total != dim) {
      throw Error(
          ErrorKind::Semantic,
          fmt::format("split: the part sizes add up to {}, but dimension {} of {} is {}", total, axis, x_type, dim),
          c.spans[1], "the sizes must cover the dimension exactly");
    }
  }
  std::vector<Value> parts;
  int64_t at = 0;
  for (int64_t size : sizes) {
    std::vector<int64_t> begin(s.size(), 0);
    std::vector<int64_t> end(s.begin(), s.end());
    begin[static_cast<size_t>(axis)] = at;
    end[static_cast<size_t>(axis)] = at + size;
    at += size;
    parts.push_back(out(c, OpKind::Slice, {x}, ir::Attrs{{"begin", begin}, {"end", end}}));
  }
  return Value::of_list(std::move(parts));
}

Value b_slice(CallArgs& c) {
  const ir::ValueId x = tensor(c, 0, "x");
  ir::Attrs attrs{{"begin", expect_ints(c.args[1], c.graph, c.spans[1], what(c, "begin"))},
                  {"end", expect_ints(c.args[2], c.graph, c.spans[2], what(c, "end"))}};
  if (c.args[3].kind != K::None) {
    attrs.set("strides", expect_ints(c.args[3], c.graph, c.spans[3], what(c, "strides")));
  }
  return out(c, OpKind::Slice, {x}, std::move(attrs));
}

// full([2, 3], 0.5): a constant tensor. The value must fit the dtype.
Value b_full(CallArgs& c) {
  const std::vector<int64_t> shape = expect_ints(c.args[0], c.graph, c.spans[0], what(c, "shape"));
  for (int64_t d : shape) {
    if (d <= 0) {
      throw Error(ErrorKind::Semantic, fmt::format("full: dimensions must be positive, got {}", d),
                  c.spans[0]);
    }
  }
  const std::string dtype = choice(c, 2, "dtype", {"f32", "i32", "bool"});
  const Value& v = c.args[1];
  if (!v.is_number() && v.kind != K::Bool) {
    throw Error(ErrorKind::Semantic,
                fmt::format("{} must be a number, got {}", what(c, "value"), describe(v, c.graph)),
                c.spans[1]);
  }
  if (v.kind == K::Float && dtype != "f32") {
    throw Error(ErrorKind::Semantic, fmt::format("full: a {} tensor cannot hold {}", dtype, v.f), c.spans[1],
                "use an integer value or dtype = \"f32\"");
  }
  const double value = v.kind == K::Bool ? (v.b ? 1.0 : 0.0) : v.as_double();
  return Value::of_tensor(c.graph.add_constant(value, TensorType{*parse_dtype(dtype), shape}, c.span));
}

// ---- linear algebra, convolution, pooling ---------------------------------------------------

// An int n means [n, n]; a list must have two positive entries.
std::vector<int64_t> pair_of(CallArgs& c, size_t k, const std::string& param) {
  std::vector<int64_t> v = expect_ints(c.args[k], c.graph, c.spans[k], what(c, param));
  if (c.args[k].kind == K::Int) {
    v = {v[0], v[0]};
  }
  if (v.size() != 2 || v[0] < 1 || v[1] < 1) {
    throw Error(ErrorKind::Semantic,
                fmt::format("{} must be a positive int or a list of two, got {}", what(c, param),
                            describe(c.args[k], c.graph)),
                c.spans[k], fmt::format("e.g. {} = 2 or {} = [2, 1] (height, width)", param, param));
  }
  return v;
}

// groups > 1 (ResNeXt's grouped and Keras' depthwise convolutions): the channels of x and the
// filters split into `groups` equal parts, part g of the input convolved with part g of the
// filters (as PyTorch's groups and Keras' Conv2D(groups)); the filter is [kh, kw, c / groups, f].
// One conv2d op with the groups attribute (its kernels, conv_grouped.hpp, run every group).
Value b_conv2d(CallArgs& c) {
  ir::Attrs attrs{{"strides", pair_of(c, 2, "strides")},
                  {"dilations", pair_of(c, 3, "dilations")},
                  {"padding", choice(c, 4, "padding", {"valid", "same"})}};
  const ir::ValueId x = tensor(c, 0, "x");
  const ir::ValueId filter = tensor(c, 1, "filter");
  const int64_t groups = integer(c, 5, "groups");
  if (groups == 1) {
    return out(c, OpKind::Conv2D, {x, filter}, std::move(attrs));
  }
  const TensorType& xt = type_of(c, x);
  const TensorType& ft = type_of(c, filter);
  const int64_t channels = xt.rank() == 4 ? xt.shape[3] : 0;
  const int64_t filters = ft.rank() == 4 ? ft.shape[3] : 0;
  if (groups < 1 || channels % groups != 0 || filters % groups != 0 || ft.rank() != 4 ||
      ft.shape[2] * groups != channels) {
    throw Error(ErrorKind::Semantic,
                fmt::format("conv2d: {} groups do not fit x {} and filter {}", groups, xt.str(), ft.str()), c.spans[5],
                "groups must divide the input channels and the filters, and the filter is [kh, kw, channels / "
                "groups, filters]");
  }
  attrs.set("groups", groups);
  return out(c, OpKind::Conv2D, {x, filter}, std::move(attrs));
}

template <OpKind Op>
Value pool(CallArgs& c) {
  const std::vector<int64_t> ksize = pair_of(c, 1, "ksize");
  ir::Attrs attrs{{"ksize", ksize},
                  {"strides", c.args[2].kind == K::None ? ksize : pair_of(c, 2, "strides")},
                  {"padding", choice(c, 3, "padding", {"valid", "same"})}};
  return out(c, Op, {tensor(c, 0, "x")}, std::move(attrs));
}

// ---- softmax, losses, random ----------------------------------------------------------------

Value b_sigmoid_cross_entropy(CallArgs& c) {
  return out(c, OpKind::SigmoidCrossEntropyWithLogits, {tensor(c, 0, "logits"), tensor(c, 1, "labels")});
}

// The mask's random stream is keyed by its scope path, so two dropouts never share a mask and a
// mask does not change when unrelated parts of the model change.
Value b_dropout_mask(CallArgs& c) {
  const ir::ValueId x = tensor(c, 0, "x");
  const double rate = expect_number(c.args[1], c.graph, c.spans[1], what(c, "rate"));
  if (rate < 0.0 || rate >= 1.0) {
    throw Error(ErrorKind::Semantic, fmt::format("dropout rate must be in [0, 1), got {}", rate), c.spans[1],
                "rate is the fraction of elements set to zero");
  }
  const std::string base = c.unique_name ? c.unique_name("mask") : std::string("mask");
  const std::string name = c.scope_path.empty() ? base : c.scope_path + "/" + base;
  if (c.args[2].kind == K::None || (c.args[2].kind == K::List && c.args[2].list.empty())) {
    return out(c, OpKind::DropoutMask, {x}, ir::Attrs{{"rate", rate}, {"name", name}});
  }
  // Keras' noise_shape: one entry per dimension of x, each x's size (or -1 for it) or 1, where one
  // draw is shared along the dimension (the mask broadcasts when multiplied into x).
  const Shape& xs = type_of(c, x).shape;
  std::vector<int64_t> shape = expect_ints(c.args[2], c.graph, c.spans[2], what(c, "noise_shape"));
  bool fits = shape.size() == xs.size();
  for (size_t d = 0; fits && d < shape.size(); ++d) {
    shape[d] = shape[d] == -1 ? xs[d] : shape[d];
    fits = shape[d] == xs[d] || shape[d] == 1;
  }
  if (!fits) {
    throw Error(ErrorKind::Semantic,
                fmt::format("noise_shape {} does not fit {}", describe(c.args[2], c.graph), type_of(c, x).str()),
                c.spans[2], "give one entry per dimension: its size (or -1) to draw along it, 1 to share a draw");
  }
  return out(c, OpKind::DropoutMask, {}, ir::Attrs{{"rate", rate}, {"name", name}, {"shape", shape}});
}

// The state must be a param the optimizer leaves alone, and follows one statistic only: two
// updates of one state per weight update would have no order to agree on.
Value b_moving_average(CallArgs& c) {
  const ir::ValueId x = tensor(c, 0, "x");
  const ir::ValueId state = tensor(c, 1, "state");
  const ir::Node& s = c.graph.node(state);
  if (!ir::is_weight(s) || ir::trainable(s)) {
    throw Error(ErrorKind::Semantic,
                fmt::format("{} must be a non-trainable param, got {}", what(c, "state"),
                            ir::is_weight(s) ? fmt::format("the trainable parameter '{}'", s.name)
                                             : std::string("a computed value")),
                c.spans[1], "declare it with `param NAME: f32[...] = zeros(), trainable = false`");
  }
  for (const ir::Node& n : c.graph.nodes()) {
    if (n.op == OpKind::MovingAverage && n.inputs[1] == state) {
      throw Error(ErrorKind::Semantic,
                  fmt::format("parameter '{}' already follows another moving average", s.name), c.spans[1],
                  "give each statistic its own state");
    }
  }
  const double momentum = expect_number(c.args[2], c.graph, c.spans[2], what(c, "momentum"));
  if (momentum < 0.0 || momentum > 1.0) {
    throw Error(ErrorKind::Semantic, fmt::format("momentum must be in [0, 1], got {}", momentum), c.spans[2],
                "the state keeps this share of its value at every weight update, e.g. 0.99");
  }
  return out(c, OpKind::MovingAverage, {x, state}, ir::Attrs{{"momentum", momentum}});
}

// A stateful layer's state: a non-trainable param that one state_read starts each micro-batch
// from and one state_write sets after it (planner/recurrent_states.hpp); a second reader or writer
// would see or set it at no order the plans agree on.
ir::ValueId state_param(CallArgs& c, size_t arg, OpKind op) {
  const ir::ValueId state = tensor(c, arg, "state");
  const ir::Node& s = c.graph.node(state);
  if (!ir::is_weight(s) || ir::trainable(s)) {
    throw Error(ErrorKind::Semantic,
                fmt::format("{} must be a non-trainable param, got {}", what(c, "state"),
                            ir::is_weight(s) ? fmt::format("the trainable parameter '{}'", s.name)
                                             : std::string("a computed value")),
                c.spans[arg], "declare it with `param NAME: f32[batch, units] = zeros(), trainable = false`");
  }
  bool read = false;
  for (const ir::Node& n : c.graph.nodes()) {
    const bool reads = n.op == OpKind::StateRead && n.inputs[0] == state;
    read = read || reads;
    if (n.op == op && (reads || (n.op == OpKind::StateWrite && n.inputs[1] == state))) {
      throw Error(ErrorKind::Semantic,
                  fmt::format("parameter '{}' is already {} by another {}", s.name,
                              op == OpKind::StateRead ? "read" : "written", ir::op_name(op)),
                  c.spans[arg], "give each state one state_read and one state_write");
    }
  }
  if (op == OpKind::StateWrite && !read) {
    throw Error(ErrorKind::Semantic, fmt::format("parameter '{}' is written before it is read", s.name), c.spans[arg],
                "read the state with state_read(state) first, then write the new one");
  }
  return state;
}

Value b_state_read(CallArgs& c) { return out(c, OpKind::StateRead, {state_param(c, 0, OpKind::StateRead)}); }

Value b_state_write(CallArgs& c) {
  const ir::ValueId x = tensor(c, 0, "x");
  return out(c, OpKind::StateWrite, {x, state_param(c, 1, OpKind::StateWrite)});
}

}  // namespace

void add_tensor_builtins(std::vector<Builtin>& t) {
  const Value none = Value::none();
  const Value no = Value::of_bool(false);
  const Value last = Value::of_int(-1);
  const Value valid = Value::of_string("valid");
  const std::vector<BuiltinParam> x{req("x")};
  const std::vector<BuiltinParam> ab{req("a"), req("b")};
  const std::vector<BuiltinParam> reduction{req("x"), opt("axis", none), opt("keepdims", no)};
  std::vector<Builtin> more = {
      // elementwise
      {"add", ab, binary<OpKind::Add>},
      {"sub", ab, binary<OpKind::Sub>},
      {"mul", ab, binary<OpKind::Mul>},
      {"div", ab, binary<OpKind::Div>},
      {"pow", ab, binary<OpKind::Pow>},
      {"maximum", ab, binary<OpKind::Maximum>},
      {"minimum", ab, binary<OpKind::Minimum>},
      {"equal", ab, binary<OpKind::Equal>},
      {"not_equal", ab, binary<OpKind::NotEqual>},
      {"less", ab, binary<OpKind::Less>},
      {"less_equal", ab, binary<OpKind::LessEqual>},
      {"greater", ab, binary<OpKind::Greater>},
      {"greater_equal", ab, binary<OpKind::GreaterEqual>},
      {"where", {req("cond"), req("a"), req("b")}, b_where},
      {"cast", {req("x"), opt("dtype", Value::of_string("f32"))}, b_cast},
      // reductions
      {"sum", reduction, b_sum},
      {"mean", reduction, b_mean},
      {"max", reduction, b_max},
      {"min", reduction, b_min},
      {"argmax", {req("x"), opt("axis", last)}, b_arg_extreme<OpKind::Argmax>},
      {"argmin", {req("x"), opt("axis", last)}, b_arg_extreme<OpKind::Argmin>},
      // shape
      {"reshape", {req("x"), req("shape")}, b_reshape},
      {"flatten", x, b_flatten},
      {"expand_dims", {req("x"), req("axis")}, b_expand_dims},
      {"squeeze", {req("x"), opt("axis", none)}, b_squeeze},
      {"broadcast_to", {req("x"), req("shape")}, b_broadcast_to},
      {"transpose", {req("x"), opt("perm", none)}, b_transpose},
      {"concat", {req("xs"), opt("axis", Value::of_int(0))}, b_concat},
      {"split", {req("x"), req("sections"), opt("axis", last)}, b_split},
      {"slice", {req("x"), req("begin"), req("end"), opt("strides", none)}, b_slice},
      {"full", {req("shape"), req("value"), opt("dtype", Value::of_string("f32"))}, b_full},
      // linear algebra, convolution, pooling
      {"conv2d",
       {req("x"), req("filter"), opt("strides", Value::of_int(1)), opt("dilations", Value::of_int(1)),
        opt("padding", valid), opt("groups", Value::of_int(1))},
       b_conv2d},
      {"max_pool", {req("x"), req("ksize"), opt("strides", none), opt("padding", valid)}, pool<OpKind::MaxPool>},
      {"avg_pool", {req("x"), req("ksize"), opt("strides", none), opt("padding", valid)}, pool<OpKind::AvgPool>},
      // softmax, losses, random
      {"sigmoid_cross_entropy", {req("logits"), req("labels")}, b_sigmoid_cross_entropy},
      {"dropout_mask", {req("x"), req("rate"), opt("noise_shape", Value::of_list({}))}, b_dropout_mask},
      // non-trainable state
      {"moving_average", {req("x"), req("state"), opt("momentum", Value::of_float(0.99))}, b_moving_average},
      {"state_read", {req("state")}, b_state_read},
      {"state_write", {req("x"), req("state")}, b_state_write},
  };
  for (auto& b : more) {
    t.push_back(std::move(b));
  }
}

}  // namespace iputrain::frontend
