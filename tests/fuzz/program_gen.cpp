// The structure of a generated program: inputs, stage and parallel blocks, control flow (`for`,
// `if`, `def`, `layer`, `assert`) and the loss. The ops themselves are in program_gen_ops.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "program_gen_impl.hpp"

namespace iputrain::fuzz {

std::string dims_text(const std::vector<int64_t>& dims) { return fmt::format("[{}]", fmt::join(dims, ", ")); }

int64_t numel(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (const int64_t d : dims) {
    n *= d;
  }
  return n;
}

Value ProgramGen::emit(const std::string& expr, std::vector<int64_t> shape, const std::string& dtype, int64_t bound) {
  Value v;
  v.name = fresh("t");
  v.dtype = dtype;
  v.shape = std::move(shape);
  v.stage = stage_;
  v.bound = bound;
  line(v.name + " = " + expr);
  values_.push_back(v);
  ++ops_;
  return v;
}

void ProgramGen::line(const std::string& text) {
  body_ += std::string(static_cast<size_t>(2 * indent_), ' ') + text + "\n";
}

bool ProgramGen::visible(const Value& v) const {
  if (v.stage == stage_) {
    return true;
  }
  const int group = stage_group_.empty() ? -1 : stage_group_[static_cast<size_t>(v.stage)];
  return v.stage < stage_ && (group < 0 || group != stage_group_[static_cast<size_t>(stage_)]);
}

std::optional<Value> ProgramGen::pick_f32(size_t lo, size_t hi) {
  std::vector<const Value*> fits;
  for (const Value& v : values_) {
    if (v.dtype == "f32" && v.shape.size() >= lo && v.shape.size() <= hi && visible(v)) {
      fits.push_back(&v);
    }
  }
  if (fits.empty()) {
    return std::nullopt;
  }
  // Mostly the newest, so the graph grows deep, sometimes an older value, so it branches.
  const Value v = in_.byte() % 4 != 0 ? *fits.back() : *fits[in_.pick(fits.size())];
  use(v.name);
  return v;
}

std::optional<Value> ProgramGen::pick_i32_index() {
  for (const Value& v : values_) {
    if (v.dtype == "i32" && v.bound > 0 && v.shape.size() >= 2 && visible(v)) {
      Value r = v;
      use(v.name);
      return r;
    }
  }
  return std::nullopt;
}

void ProgramGen::use(const std::string& name) {
  for (auto it = values_.rbegin(); it != values_.rend(); ++it) {
    if (it->name == name) {
      it->used = true;
      return;
    }
  }
}

void ProgramGen::declare_inputs() {
  // The main input: an image (NHWC), a sequence or a matrix of features, always f32.
  Value x;
  x.name = "x";
  const size_t kind = in_.pick(3);
  if (kind == 0) {
    x.shape = {batch_, in_.range(3, 7), in_.range(3, 7), in_.range(1, 4)};
  } else if (kind == 1) {
    x.shape = {batch_, in_.range(2, 6), in_.range(2, 8)};
  } else {
    x.shape = {batch_, in_.range(1, 8)};
  }
  note(kind == 0 ? "input image" : kind == 1 ? "input sequence" : "input matrix");
  std::vector<Value> inputs{x};
  if (in_.coin()) {  // token ids for an embedding or one_hot
    Value ids;
    ids.name = "ids";
    ids.dtype = "i32";
    ids.shape = {batch_, in_.range(1, 5)};
    ids.bound = in_.range(2, 9);
    inputs.push_back(ids);
    note("input ids");
  }
  if (in_.coin()) {  // a second f32 input of another shape
    Value z;
    z.name = "z";
    z.shape = {batch_, in_.range(1, 4), in_.range(1, 6)};
    inputs.push_back(z);
  }
  Value label;
  label.name = "label";
  label.dtype = "i32";
  label.shape = {batch_};
  label.bound = in_.range(2, 5);
  inputs.push_back(label);
  for (Value& v : inputs) {
    const std::vector<int64_t> sample(v.shape.begin() + 1, v.shape.end());
    std::string dims = "batch";
    for (const int64_t d : sample) {
      dims += ", " + std::to_string(d);
    }
    line(fmt::format("input {}: {}[{}]", v.name, v.dtype, dims));
    inputs_.push_back({v.name, v.dtype, sample, v.bound});
    v.stage = 0;
    v.used = v.name == "label";
    values_.push_back(v);
  }
}

void ProgramGen::statements(int ops) {
  for (int i = 0; i < ops; ++i) {
    if (in_.range(0, 9) < 2) {
      control_flow();
    } else {
      emit_op();
    }
  }
}

void ProgramGen::control_flow() {
  switch (in_.pick(5)) {
    case 0:
      loop();
      break;
    case 1:
      conditional();
      break;
    case 2:
      helper_def();
      break;
    case 3:
      helper_layer();
      break;
    default: {
      const auto v = pick_f32(2, 4);
      line(fmt::format("assert {}.shape[0] == batch and {}.rank == {}, \"shape of {}\"", v->name, v->name,
                       v->shape.size(), v->name));
      note("assert");
    }
  }
}

// A loop that keeps the shape, applied n times: unrolled (`for`) or lowered once (`loop`, with or
// without a `while` and a collected stack).
void ProgramGen::loop() {
  const auto v = pick_f32(2, 4);
  const Value h = emit(v->name, v->shape);
  const bool runtime = in_.coin();
  const int64_t n = in_.range(1, 3);
  if (!runtime) {
    line(fmt::format("for i in 0..{} {{", n));
  } else {
    line(fmt::format("loop ({}) over i in 0..{}{} {{", h.name, n,
                     in_.coin() ? fmt::format(" while max({}) < {}.0", h.name, in_.range(1, 100)) : ""));
  }
  indent(1);
  const std::string step = runtime ? "cast(i + 1, \"f32\")" : "(i + 1)";
  switch (in_.pick(3)) {
    case 0:
      line(fmt::format("{} = nn.dense({}, {}, activation = relu)", h.name, h.name, h.shape.back()));
      break;
    case 1:
      line(fmt::format("{} = {} * 0.5 + tanh({}) * {}", h.name, h.name, h.name, step));
      break;
    default:
      line(fmt::format("{} = {} + nn.layer_norm({})", h.name, h.name, h.name));
  }
  if (runtime && in_.coin()) {
    line(fmt::format("collect {}_steps = {}", h.name, h.name));
  }
  indent(-1);
  line("}");
  note(runtime ? "loop" : "for");
}

// A compile-time choice on a shape or a model parameter; both branches bind the same name.
void ProgramGen::conditional() {
  const auto v = pick_f32(1, 4);
  const std::string name = fresh("t");
  const std::string cond = in_.coin() ? fmt::format("{}.shape[-1] > {}", v->name, in_.range(1, 5)) : "wide";
  line(fmt::format("if {} {{", cond));
  line(fmt::format("  {} = relu({})", name, v->name));
  if (in_.coin()) {
    line(fmt::format("}} else if {}.rank == {} {{", v->name, in_.range(1, 4)));
    line(fmt::format("  {} = {} * 2", name, v->name));
  }
  line("} else {");
  line(fmt::format("  {} = tanh({})", name, v->name));
  line("}");
  Value r = *v;
  r.name = name;
  r.stage = stage_;
  r.used = false;
  values_.push_back(r);
  note("if");
}

// A `def` (pure function) at the top level, called on a value; it keeps the shape.
void ProgramGen::helper_def() {
  const std::string name = fmt::format("gen_f{}", helpers_++);
  if (in_.coin()) {
    add_toplevel(fmt::format("def {}(x, s: float = 0.5) = x * s + relu(x)\n\n", name));
  } else {
    add_toplevel(
        fmt::format("def {}(x: f32[b, ...], k: int = 2) {{\n  y = x\n  for i in 0..k {{\n"
                    "    y = y * 0.5 + sigmoid(y)\n  }}\n  if kind(k) == \"int\" and k > 2 {{\n"
                    "    y = y + 1\n  }}\n  assert x.rank >= 1, \"rank\"\n  return y\n}}\n\n",
                    name));
  }
  const auto v = pick_f32(1, 4);
  emit(in_.coin() ? fmt::format("{}({})", name, v->name) : fmt::format("{}({}, {})", name, v->name, in_.range(1, 3)),
       v->shape);
  note("def");
}

// A `layer` of its own with params under a random initializer (some non-trainable state too).
void ProgramGen::helper_layer() {
  static const char* const kInits[] = {"glorot_uniform()",
                                       "glorot_normal()",
                                       "he_normal()",
                                       "he_uniform()",
                                       "lecun_normal()",
                                       "lecun_uniform()",
                                       "orthogonal()",
                                       "orthogonal(gain = 0.5)",
                                       "truncated_normal(stddev = 0.1)",
                                       "normal(stddev = 0.1)",
                                       "uniform()",
                                       "constant(0.1)",
                                       "zeros()",
                                       "ones()"};
  const std::string name = fmt::format("gen_l{}", helpers_++);
  const std::string init = kInits[in_.pick(std::size(kInits))];
  std::string text =
      fmt::format("layer {}(x: f32[..., n], scale: float = 1.0) {{\n  param w: f32[n, n] = {}\n", name, init);
  if (in_.coin()) {
    text += "  param s: f32[n] = ones(), trainable = false\n  return (x @ w) * scale * s\n}\n\n";
  } else {
    text += "  y = nn.dense(x @ w, n, use_bias = false)\n  return y * scale\n}\n\n";
  }
  add_toplevel(text);
  const auto v = pick_f32(2, 4);
  emit(fmt::format("{}({}, scale = {})", name, v->name, in_.coin() ? "0.5" : "1"), v->shape);
  note("layer " + init);
}

void ProgramGen::stage_block(const std::string& name, int group, int ops) {
  stages_.push_back(name);
  stage_group_.push_back(group);
  stage_ = static_cast<int>(stages_.size()) - 1;
  line(fmt::format("stage {} {{", name));
  indent(1);
  statements(ops);
  indent(-1);
  line("}");
}

void ProgramGen::parallel_block(int ops) {
  line("parallel {");
  indent(1);
  const int group = static_cast<int>(stages_.size());
  stage_block(fmt::format("p{}a", group), group, ops);
  if (want_wrong() && in_.coin()) {
    stage_rule_violation();
    return;
  }
  stage_block(fmt::format("p{}b", group), group, std::max(1, ops - 1));
  indent(-1);
  line("}");
  note("parallel");
}

// The one wrong thing: the second stage of a parallel block reads a value of the first.
void ProgramGen::stage_rule_violation() {
  const std::string sibling = values_.back().name;
  stages_.push_back(fmt::format("p{}b", stage_group_.back()));
  stage_group_.push_back(stage_group_.back());
  stage_ = static_cast<int>(stages_.size()) - 1;
  line(fmt::format("stage {} {{", stages_.back()));
  line(fmt::format("  q = nn.dense(reshape({}, [batch, -1]), 2)", sibling));
  line("}");
  indent(-1);
  line("}");
  mutated("a parallel stage uses its sibling's value");
}

// The objective: a classifier head on the newest value, plus every value nothing used, so each
// param is trained; then `minimize` and the outputs.
void ProgramGen::finish() {
  if (near_valid_ && mutation_.empty()) {
    emit_wrong_fallback();
  }
  const auto last = pick_f32(1, 4);
  int64_t label_bound = 2;
  for (const GeneratedInput& i : inputs_) {
    label_bound = i.name == "label" ? i.bound : label_bound;
  }
  const Value head =
      emit(fmt::format("nn.dense(reshape({}, [batch, -1]), {})", last->name, label_bound), {batch_, label_bound});
  std::string loss = in_.coin() ? fmt::format("mean(softmax_cross_entropy({}, label))", head.name)
                                : fmt::format("losses.sparse_softmax_cross_entropy({}, label)", head.name);
  for (const Value& v : values_) {
    if (!v.used && v.dtype == "f32" && v.name != head.name && visible(v)) {
      loss += fmt::format(" + 0.01 * mean({})", v.name);
    }
  }
  line("loss = " + loss);
}

GeneratedProgram ProgramGen::run() {
  batch_ = in_.range(1, 3);
  mutate_at_ = near_valid_ ? static_cast<size_t>(in_.range(0, 10)) : 0;
  width_ = in_.range(1, 6);
  const bool wide = in_.coin();
  declare_inputs();
  const int64_t blocks = in_.range(0, 4);
  const bool parallel = blocks >= 3 && in_.coin();  // a stage before the block and one after it
  if (blocks == 0) {
    statements(static_cast<int>(in_.range(1, 5)));
    finish();
  }
  for (int64_t b = 0; b < blocks && mutation_.find("sibling") == std::string::npos; ++b) {
    const int ops = static_cast<int>(in_.range(1, 4));
    if (parallel && b == 1) {
      parallel_block(ops);
      continue;
    }
    stages_.push_back(fmt::format("s{}", b));
    stage_group_.push_back(-1);
    stage_ = static_cast<int>(stages_.size()) - 1;
    line(fmt::format("stage s{} {{", b));
    indent(1);
    statements(ops);
    if (b == blocks - 1) {
      finish();
    }
    indent(-1);
    line("}");
  }
  if (mutation_.find("sibling") != std::string::npos) {
    finish();
  }
  line("minimize loss");
  line("output loss");
  if (in_.coin()) {
    line(fmt::format("output accuracy = mean(argmax({}, axis = -1) == label)", values_.back().name));
  }
  GeneratedProgram p;
  p.config_variant = in_.byte();
  p.text = fmt::format(
      "import nn\nimport losses\nimport activations\n\n{}model gen(batch: int = {}, width: int = {}, "
      "wide: bool = {}) {{\n{}}}\n",
      toplevel_, batch_, width_, wide ? "true" : "false", body_);
  p.batch = batch_;
  p.inputs = inputs_;
  p.stages = stages_;
  for (size_t s = 0; s < stages_.size(); ++s) {
    const bool joins = s > 0 && stage_group_[s] >= 0 && stage_group_[s] == stage_group_[s - 1];
    joins ? p.positions.back().push_back(stages_[s]) : p.positions.push_back({stages_[s]});
  }
  p.mutation = mutation_;
  p.used = used_;
  return p;
}

GeneratedProgram generate_program(ByteReader& in, bool near_valid) { return ProgramGen(in, near_valid).run(); }

std::string program_config(const GeneratedProgram& p, int ipus) {
  static const char* const kOptimizers[] = {"sgd", "adam", "momentum", "adamw"};
  static const char* const kSchedules[] = {"grouped", "interleaved", "sequential"};
  const uint8_t v = p.config_variant;
  std::string text = fmt::format(
      "[ipu]\nauto_select_ipus = {}\nallow_recompute = {}\n[optimizer]\ntype = \"{}\"\nlearning_rate = 0.01\n"
      "[data]\nbatch_size = {}\n[training]\nsteps = 1\nsteps_per_execution = 1\nseed = 1\n",
      ipus, ipus == 2 && (v & 4) != 0 ? "true" : "false", kOptimizers[v % 4], p.batch);
  if (ipus == 2 && p.stages.size() >= 2) {
    // In order: the first half of the positions on IPU 0, the rest on IPU 1; a parallel block's
    // stages on the IPU of its position.
    std::vector<std::string> mapping;
    const size_t n = p.positions.size();
    for (size_t s = 0; s < n; ++s) {
      const std::string ipu = 2 * s < n ? "0" : "1";
      mapping.push_back(p.positions[s].size() == 1 ? ipu : fmt::format("[{}, {}]", ipu, ipu));
    }
    // interleaved trains one stage per IPU: only a two-stage model has that on two IPUs.
    const size_t schedule = (v >> 3) % 3 == 1 && p.stages.size() != 2 ? 0 : (v >> 3) % 3;
    text += fmt::format("[pipeline]\ndevice_mapping = [{}]\nschedule = \"{}\"\n", fmt::join(mapping, ", "),
                        kSchedules[schedule]);
  }
  return text;
}

}  // namespace iputrain::fuzz
