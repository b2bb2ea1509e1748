// One emitter per op or stdlib layer of the generated programs: each picks a value it can take,
// attributes in range, and binds the result with the shape the language gives it. An emitter that
// has a wrong form emits it instead when the near-valid program's turn has come (want_wrong()).
#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "program_gen_impl.hpp"

namespace iputrain::fuzz {

namespace {

using Dims = std::vector<int64_t>;

int64_t conv_out(int64_t size, int64_t k, int64_t s, int64_t d, bool valid) {
  return valid ? (size - (k - 1) * d - 1) / s + 1 : (size + s - 1) / s;
}

const char* activation(ByteReader& in) {
  static const char* const kActs[] = {"identity",
                                      "relu",
                                      "tanh",
                                      "sigmoid",
                                      "activations.relu6",
                                      "activations.leaky_relu",
                                      "activations.elu",
                                      "activations.selu",
                                      "activations.gelu_tanh",
                                      "activations.silu",
                                      "activations.softplus",
                                      "activations.softsign",
                                      "activations.mish",
                                      "activations.hard_sigmoid",
                                      "swish",
                                      "gelu"};
  return kActs[in.pick(std::size(kActs))];
}

//! A divisor of n chosen by the bytes.
int64_t divisor(ByteReader& in, int64_t n) {
  Dims ds;
  for (int64_t d = 1; d <= n; ++d) {
    if (n % d == 0) {
      ds.push_back(d);
    }
  }
  return ds[in.pick(ds.size())];
}

bool unary(ProgramGen& g) {
  static const char* const kForms[] = {"relu({})",
                                       "neg({})",
                                       "abs({})",
                                       "square({})",
                                       "tanh({})",
                                       "sigmoid({})",
                                       "swish({})",
                                       "hard_sigmoid({})",
                                       "erf({})",
                                       "sin({})",
                                       "cos({})",
                                       "floor({})",
                                       "ceil({})",
                                       "round({})",
                                       "sign({})",
                                       "exp(tanh({}))",
                                       "log(abs({}) + 1)",
                                       "sqrt(abs({}) + 1)",
                                       "rsqrt(abs({}) + 1)",
                                       "gelu({}, approximate = \"tanh\")",
                                       "gelu({})",
                                       "activations.softplus({})",
                                       "activations.mish({})",
                                       "activations.elu({}, alpha = 0.5)",
                                       "activations.leaky_relu({})",
                                       "identity({})",
                                       "recomputation_checkpoint({})",
                                       "-{} ** 2",
                                       "+{}"};
  const auto v = g.pick_f32(1, 4);
  if (g.want_wrong() && g.in().coin()) {
    g.emit(fmt::format("relu({}, 2)", v->name), v->shape);
    g.mutated("relu with two arguments");
    return true;
  }
  const size_t form = g.in().pick(std::size(kForms));
  g.emit(fmt::format(fmt::runtime(kForms[form]), v->name), v->shape);
  g.note(kForms[form]);
  return true;
}

bool binary(ProgramGen& g) {
  const auto v = g.pick_f32(1, 4);
  if (g.want_wrong()) {
    g.emit(fmt::format("{} + cast({}, dtype = \"i32\")", v->name, v->name), v->shape);
    g.mutated("f32 + i32");
    return true;
  }
  const auto w = g.pick_f32(v->shape.size(), v->shape.size());
  const std::string other = w && w->shape == v->shape ? w->name : v->name;
  const std::string a = v->name;
  const std::string forms[] = {
      a + " * 0.5",
      a + " + " + other,
      a + " - " + other + " * 2",
      "maximum(" + a + ", " + other + ")",
      "minimum(" + a + ", 0.25)",
      "div(" + a + ", abs(" + other + ") + 1)",
      "pow(abs(" + a + ") + 1, 0.5)",
      "where(" + a + " > 0, " + a + ", " + a + " * 0.1)",
      "where(greater_equal(" + a + ", " + other + "), " + a + ", " + other + ")",
      a + " - mean(" + a + ", axis = -1, keepdims = true)",
      a + " / (1 + " + a + " * " + a + ")",
      "cast(" + a + " > " + other + ", dtype = \"f32\") * " + a,
  };
  const size_t form = g.in().pick(std::size(forms));
  g.emit(forms[form], v->shape);
  g.note(fmt::format("binary {}", form));
  return true;
}

bool dense(ProgramGen& g) {
  const auto v = g.pick_f32(2, 4);
  Dims shape = v->shape;
  const int64_t units = g.in().range(1, 6);
  if (g.want_wrong()) {
    const bool keyword = g.in().coin();
    g.emit(keyword ? fmt::format("nn.dense({}, {}, activaton = relu)", v->name, units)
                   : fmt::format("nn.dense(cast({}, dtype = \"i32\"), {})", v->name, units),
           shape);
    g.mutated(keyword ? "dense with a misspelt keyword" : "dense of an i32 tensor");
    return true;
  }
  const bool by_param = g.in().coin();
  shape.back() = by_param ? g.width() : units;
  std::string expr = fmt::format("nn.dense({}, {}, activation = {}", v->name,
                                 by_param ? "width" : std::to_string(units), activation(g.in()));
  expr += g.in().coin() ? ", use_bias = false)" : ")";
  g.emit(expr, shape);
  g.note("nn.dense");
  return true;
}

bool conv2d(ProgramGen& g) {
  const auto v = g.pick_f32(4, 4);
  if (!v) {
    return false;
  }
  ByteReader& in = g.in();
  const int64_t h = v->shape[1], w = v->shape[2], c = v->shape[3];
  const int64_t groups = divisor(in, c), filters = groups * in.range(1, 3);
  int64_t k = in.range(1, 3), s = in.range(1, 2), d = in.range(1, 2);
  bool valid = in.coin();
  if (valid && std::min(h, w) < (k - 1) * d + 1) {
    valid = false;
  }
  if (g.want_wrong()) {
    const size_t which = in.pick(3);
    const std::string why[] = {"groups that do not divide the channels", "padding \"smae\"",
                               "a kernel larger than the input"};
    const std::string args[] = {fmt::format("groups = {}", c + 1), "padding = \"smae\"",
                                fmt::format("kernel_size = {}, padding = \"valid\"", std::max(h, w) + 1)};
    g.emit(fmt::format("nn.conv2d({}, {}, {})", v->name, filters, args[which]), v->shape);
    g.mutated("conv2d with " + why[which]);
    return true;
  }
  const bool builtin = in.range(0, 4) == 0;
  Dims shape{v->shape[0], conv_out(h, k, s, d, valid), conv_out(w, k, s, d, valid), filters};
  if (builtin) {
    g.emit(fmt::format(
               "conv2d({}, full([{}, {}, {}, {}], 0.1), strides = {}, dilations = {}, padding = \"{}\", groups = {})",
               v->name, k, k, c / groups, filters, s, d, valid ? "valid" : "same", groups),
           shape);
    g.note("conv2d builtin");
    return true;
  }
  g.emit(fmt::format("nn.conv2d({}, {}, kernel_size = {}, strides = {}, padding = \"{}\", dilations = {}, groups = {}, "
                     "activation = {}, use_bias = {})",
                     v->name, filters, k, s, valid ? "valid" : "same", d, groups, activation(in),
                     in.coin() ? "true" : "false"),
         shape);
  g.note(groups > 1 ? "nn.conv2d groups" : "nn.conv2d");
  return true;
}

bool depthwise(ProgramGen& g) {
  const auto v = g.pick_f32(4, 4);
  if (!v) {
    return false;
  }
  ByteReader& in = g.in();
  const int64_t h = v->shape[1], w = v->shape[2], c = v->shape[3];
  const int64_t k = in.range(1, 3), s = in.range(1, 2), d = in.range(1, 2), m = in.range(1, 2);
  bool valid = in.coin() && std::min(h, w) >= (k - 1) * d + 1;
  if (g.want_wrong()) {
    g.emit(fmt::format("nn.depthwise_conv2d({}, kernel_size = {}, padding = \"full\")", v->name, k), v->shape);
    g.mutated("depthwise_conv2d with padding \"full\"");
    return true;
  }
  g.emit(fmt::format("nn.depthwise_conv2d({}, kernel_size = {}, strides = {}, padding = \"{}\", depth_multiplier = {}, "
                     "dilations = {}, activation = {})",
                     v->name, k, s, valid ? "valid" : "same", m, d, activation(in)),
         {v->shape[0], conv_out(h, k, s, d, valid), conv_out(w, k, s, d, valid), c * m});
  g.note("nn.depthwise_conv2d");
  return true;
}

bool conv1d(ProgramGen& g) {
  const auto v = g.pick_f32(3, 3);
  if (!v) {
    return false;
  }
  ByteReader& in = g.in();
  const int64_t t = v->shape[1], c = v->shape[2];
  const int64_t groups = divisor(in, c), filters = groups * in.range(1, 2);
  const int64_t k = in.range(1, 3), s = in.range(1, 2), d = in.range(1, 2);
  static const char* const kPads[] = {"valid", "same", "causal"};
  size_t pad = in.pick(3);
  if (pad == 0 && t < (k - 1) * d + 1) {
    pad = 2;
  }
  if (g.want_wrong()) {
    const bool groups_wrong = in.coin();
    g.emit(groups_wrong ? fmt::format("nn.conv1d({}, {}, {}, groups = {})", v->name, filters, k, c + 1)
                        : fmt::format("nn.conv1d({}, {}, {}, padding = \"caual\")", v->name, filters, k),
           v->shape);
    g.mutated(groups_wrong ? "conv1d with groups that do not divide the channels" : "conv1d with padding \"caual\"");
    return true;
  }
  g.emit(fmt::format("nn.conv1d({}, {}, {}, strides = {}, padding = \"{}\", dilations = {}, groups = {})", v->name,
                     filters, k, s, kPads[pad], d, groups),
         {v->shape[0], conv_out(t, k, s, d, pad == 0), filters});
  g.note(fmt::format("nn.conv1d {}", kPads[pad]));
  return true;
}

bool pooling(ProgramGen& g) {
  const auto v = g.pick_f32(4, 4);
  if (!v) {
    return false;
  }
  ByteReader& in = g.in();
  const int64_t h = v->shape[1], w = v->shape[2];
  const int64_t p = in.range(1, 3), s = in.range(1, p);
  const bool valid = in.coin() && std::min(h, w) >= p;
  const size_t kind = in.pick(4);
  if (kind == 3) {
    g.emit(fmt::format("nn.global_avg_pool({})", v->name), {v->shape[0], v->shape[3]});
    g.note("nn.global_avg_pool");
    return true;
  }
  const char* fn = kind == 0 ? "nn.max_pool" : kind == 1 ? "nn.avg_pool" : "ops.max_pool";
  const std::string args = kind == 2 ? fmt::format("{}, {}, strides = {}", v->name, p, s)
                                     : fmt::format("{}, pool_size = {}, strides = {}", v->name, p, s);
  g.emit(fmt::format("{}({}, padding = \"{}\")", fn, args, valid ? "valid" : "same"),
         {v->shape[0], conv_out(h, p, s, 1, valid), conv_out(w, p, s, 1, valid), v->shape[3]});
  g.note(fn);
  return true;
}

bool norm(ProgramGen& g) {
  const auto v = g.pick_f32(2, 4);
  ByteReader& in = g.in();
  const int64_t c = v->shape.back();
  if (g.want_wrong() && v->shape.size() >= 3) {
    g.emit(fmt::format("nn.group_norm({}, groups = {})", v->name, c + 1), v->shape);
    g.mutated("group_norm with groups that do not divide the channels");
    return true;
  }
  const size_t kind = v->shape.size() >= 3 ? in.pick(4) : in.pick(2);
  const std::string forms[] = {fmt::format("nn.layer_norm({}, center = {})", v->name, in.coin() ? "true" : "false"),
                               fmt::format("nn.batch_norm({}, momentum = 0.9)", v->name),
                               fmt::format("nn.group_norm({}, groups = {}, strided = {})", v->name, divisor(in, c),
                                           in.coin() ? "true" : "false"),
                               fmt::format("nn.instance_norm({})", v->name)};
  g.emit(forms[kind], v->shape);
  g.note(fmt::format("norm {}", kind));
  return true;
}

bool dropout(ProgramGen& g) {
  const auto v = g.pick_f32(1, 4);
  ByteReader& in = g.in();
  if (g.want_wrong()) {
    g.emit(fmt::format("nn.dropout({}, rate = 1.5)", v->name), v->shape);
    g.mutated("dropout rate 1.5");
    return true;
  }
  static const char* const kRates[] = {"0.0", "0.1", "0.25", "0.5"};
  std::string noise;
  if (in.coin()) {
    std::vector<std::string> dims;
    for (const int64_t d : v->shape) {
      const size_t c = in.pick(3);
      dims.push_back(c == 0 ? "1" : c == 1 ? "-1" : std::to_string(d));
    }
    noise = fmt::format(", noise_shape = [{}]", fmt::join(dims, ", "));
  }
  g.emit(fmt::format("nn.dropout({}, rate = {}{})", v->name, kRates[in.pick(4)], noise), v->shape);
  g.note(noise.empty() ? "nn.dropout" : "nn.dropout noise_shape");
  return true;
}

}  // namespace

bool axis_ops(ProgramGen& g);
bool shape_ops(ProgramGen& g);
bool sequence_ops(ProgramGen& g);

void ProgramGen::emit_op() {
  using Emitter = bool (*)(ProgramGen&);
  static const Emitter kEmitters[] = {unary, binary,  dense,    conv2d,    depthwise,    conv1d,       pooling,
                                      norm,  dropout, axis_ops, shape_ops, sequence_ops, sequence_ops, axis_ops};
  const size_t first = in_.pick(std::size(kEmitters));
  for (size_t i = 0; i < std::size(kEmitters); ++i) {
    if (kEmitters[(first + i) % std::size(kEmitters)](*this)) {
      return;
    }
  }
}

void ProgramGen::emit_wrong_fallback() {
  const auto v = pick_f32(1, 4);
  emit(fmt::format("reshape({}, [batch, {}])", v->name, numel(v->shape) / batch() + 1), v->shape);
  mutated("reshape to the wrong number of elements");
}

}  // namespace iputrain::fuzz
