#include "core/ir/graph.hpp"

#include <fmt/format.h>

namespace iputrain::ir {

// No value holds more elements than this (4 TiB of f32, past any IPU cluster's memory): so that
// its byte size, and the planner's sums of them, stay far from int64's range (model parameters
// such as `hidden = 9223372036854775807` made the sizes wrap; config_values fuzz, issue 30).
constexpr int64_t kMaxElements = int64_t{1} << 40;

namespace {
// u8 is a dtype for 8-bit inputs (core/types.hpp): only the ops flagged takes_u8 accept it.
void refuse_u8(const OpDef& def, const std::vector<const TensorType*>& in_types, SourceSpan span) {
  if (op_has(def.kind, op_flags::takes_u8)) {
    return;
  }
  for (size_t i = 0; i < in_types.size(); ++i) {
    if (in_types[i]->dtype != DType::U8) {
      continue;
    }
    const std::string operand = i < def.inputs.size() ? fmt::format("'{}'", def.inputs[i]) : fmt::format("{}", i + 1);
    throw Error(ErrorKind::Semantic,
                fmt::format("{}: operand {} is {}, and u8 tensors are only cast, reshaped, transposed or "
                            "sliced",
                            def.name, operand, in_types[i]->str()),
                span,
                "u8 holds 8-bit inputs as the host sends them; cast it first: cast(image, \"f32\") (then "
                "normalise it on the device, e.g. (cast(image, \"f32\") - 127.5) / 127.5)");
  }
}
}  // namespace

ValueId Graph::push(Node n) {
  if (!n.span.valid()) {
    n.span = default_span_;
  }
  if (n.type.numel() > kMaxElements) {
    throw Error(ErrorKind::Semantic,
                fmt::format("{} is too large: {} elements, more than 2^40", n.type.str(), n.type.numel()), n.span,
                "check the sizes that made this shape (a model parameter set in `[model]`?)");
  }
  n.stage = cur_stage_;
  n.phase = cur_phase_;
  nodes_.push_back(std::move(n));
  return static_cast<ValueId>(nodes_.size() - 1);
}

ValueId Graph::add(OpKind op, std::vector<ValueId> inputs, Attrs attrs, SourceSpan span,
                   std::span<const SourceSpan> attr_spans) {
  const OpDef& def = op_def(op);
  if (!span.valid()) {
    span = default_span_;
  }
  if (def.arity >= 0 && static_cast<int>(inputs.size()) != def.arity) {
    throw Error(ErrorKind::Semantic,
                fmt::format("{} takes {} argument(s), got {}", def.name, def.arity, inputs.size()), span);
  }
  std::vector<const TensorType*> in_types;
  in_types.reserve(inputs.size());
  for (ValueId v : inputs) {
    if (v < 0 || v >= size()) {
      throw Error(ErrorKind::Internal, fmt::format("{}: input %{} does not exist", def.name, v), span);
    }
    in_types.push_back(&type(v));
  }
  refuse_u8(def, in_types, span);
  Node n;
  n.op = op;
  n.inputs = std::move(inputs);
  n.attrs = std::move(attrs);
  n.span = span;
  try {
    check_attrs(def, n.attrs);
    n.type = def.infer(in_types, n.attrs);
  } catch (const OpError& e) {
    if (e.attr.empty()) {
      throw Error(ErrorKind::Semantic, fmt::format("{}: {}", def.name, e.message), span, e.hint);
    }
    // Where the caller says where the attribute was written (a builtin's keyword argument), the
    // error reads as the language's; otherwise it names the op first, like the others.
    const auto& items = n.attrs.items();
    for (size_t i = 0; i < items.size() && i < attr_spans.size(); ++i) {
      if (items[i].first == e.attr && attr_spans[i].valid()) {
        throw Error(ErrorKind::Semantic, fmt::format("argument '{}' of {} {}", e.attr, def.name, e.message),
                    attr_spans[i], e.hint);
      }
    }
    throw Error(ErrorKind::Semantic, fmt::format("{}: argument '{}' {}", def.name, e.attr, e.message), span, e.hint);
  }
  return push(std::move(n));
}

ValueId Graph::add_input(std::string name, TensorType type, SourceSpan span) {
  Node n;
  n.op = OpKind::Input;
  n.type = std::move(type);
  n.name = std::move(name);
  n.span = span;
  ValueId id = push(std::move(n));
  inputs.push_back(id);
  return id;
}

ValueId Graph::add_param(std::string name, TensorType type, Attrs init, SourceSpan span) {
  Node n;
  n.op = OpKind::Param;
  n.type = std::move(type);
  n.name = std::move(name);
  n.attrs = std::move(init);
  n.span = span;
  ValueId id = push(std::move(n));
  params.push_back(id);
  return id;
}

ValueId Graph::add_constant(double value, TensorType type, SourceSpan span) {
  Node n;
  n.op = OpKind::Constant;
  n.type = std::move(type);
  n.attrs.set("value", value);
  n.span = span;
  return push(std::move(n));
}

ValueId Graph::add_loop_arg(int64_t index, TensorType type, SourceSpan span) {
  Node n;
  n.op = OpKind::LoopArg;
  n.type = std::move(type);
  n.attrs.set("index", index);
  n.span = span;
  const ValueId id = push(std::move(n));
  if (inputs.size() <= static_cast<size_t>(index)) {
    inputs.resize(static_cast<size_t>(index) + 1, kNoValue);
  }
  inputs[static_cast<size_t>(index)] = id;
  return id;
}

void Graph::verify() const {
  for (ValueId id = 0; id < size(); ++id) {
    const Node& n = node(id);
    auto fail = [&](const std::string& why) {
      throw Error(ErrorKind::Internal, fmt::format("IR invalid at {}: {}", node_str(id), why), n.span);
    };
    if (n.op >= OpKind::Count) {
      fail("unknown op");
    }
    if (n.stage < 0 || n.stage >= static_cast<int32_t>(stages.size())) {
      fail("stage out of range");
    }
    for (ValueId in : n.inputs) {
      if (in < 0 || in >= id) {
        fail(fmt::format("input %{} does not precede its user", in));
      }
    }
    const OpDef& def = op_def(n.op);
    if (def.forward != nullptr) {
      std::vector<const TensorType*> in_types;
      for (ValueId in : n.inputs) {
        in_types.push_back(&type(in));
      }
      TensorType expect;
      try {
        check_attrs(def, n.attrs);
        expect = def.infer(in_types, n.attrs);
      } catch (const OpError& e) {
        fail(e.attr.empty() ? e.message : fmt::format("argument '{}' {}", e.attr, e.message));
      }
      if (!(expect == n.type)) {
        fail(fmt::format("type {} but the op table says {}", n.type.str(), expect.str()));
      }
    }
    if (n.body != nullptr) {
      n.body->verify();
    }
  }
  if (loss != kNoValue && (loss < 0 || loss >= size())) {
    throw Error(ErrorKind::Internal, "IR invalid: loss value out of range");
  }
}

std::string Graph::node_str(ValueId id) const {
  const Node& n = node(id);
  std::string args;
  for (ValueId in : n.inputs) {
    args += (args.empty() ? "%" : ", %") + std::to_string(in);
  }
  if (!n.attrs.empty()) {
    args += (args.empty() ? "" : ", ") + n.attrs.str();
  }
  std::string out = fmt::format("%{} = {}({}) : {}", id, op_name(n.op), args, n.type.str());
  if (stages.size() > 1) {
    out += " @" + stages[static_cast<size_t>(n.stage)].name;
  }
  if (n.phase == Phase::Backward) {
    out += " [bwd]";
  }
  if (!n.name.empty()) {
    out += "  # " + n.name;
  }
  return out;
}

std::string Graph::str() const {
  std::string out;
  for (ValueId id = 0; id < size(); ++id) {
    out += node_str(id) + "\n";
    if (const Graph* body = node(id).body.get()) {
      std::string inner = body->str();
      for (size_t at = 0; at < inner.size(); at = inner.find('\n', at) + 1) {
        out += "    " + inner.substr(at, inner.find('\n', at) - at + 1);
      }
    }
  }
  for (const Output& o : outputs) {
    out += fmt::format("output {} = %{}\n", o.name, o.value);
  }
  if (loss != kNoValue) {
    out += fmt::format("minimize %{}\n", loss);
  }
  return out;
}

bool depends_on_replica(const Graph& g) {
  for (const Node& n : g.nodes()) {
    if (op_has(n.op, op_flags::per_replica)) {
      return true;
    }
  }
  return false;
}

}  // namespace iputrain::ir
