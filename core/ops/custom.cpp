// custom: an op a program registered in C++ (include/iputrain/custom_op.hpp), named by the string
// attribute `op`; its other attributes are the op's numeric ones as the model passed them. Shape,
// kernel, gradient, FLOPs and scratch all come from the registered op; its gradient is one
// custom_grad node per operand. The operands and the result are f32.
#include <fmt/format.h>

#include <array>
#include <set>

#include "core/ops/custom_registry.hpp"
#include "core/ops/op_util.hpp"
#include "iputrain/error.hpp"

namespace iputrain::ir {

namespace {
namespace impl_custom {

const CustomOp& registered(const Attrs& attrs) {
  const std::string& name = attrs.get_str("op");
  const CustomOp* op = find_custom_op(name);
  if (op == nullptr) {
    throw OpError{fmt::format("no op named '{}' is registered", name),
                  "register it with iputrain::register_op before loading the model"};
  }
  return *op;
}

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const CustomOp& op = registered(attrs);
  if (in.size() != op.inputs.size()) {
    throw OpError{fmt::format("{} takes {} operand(s), got {}", op.name, op.inputs.size(), in.size())};
  }
  CustomShapes shapes;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i]->dtype != DType::F32) {
      throw OpError{fmt::format("{}: operand '{}' must be f32, got {}", op.name, op.inputs[i], in[i]->str()),
                    "cast it first"};
    }
    shapes.push_back(in[i]->shape);
  }
  Shape out;
  try {
    out = op.shape(shapes, custom_attributes(attrs, op));
  } catch (const std::exception& e) {
    throw OpError{fmt::format("{}: {}", op.name, e.what()), "the op's shape rule refused its operands"};
  }
  for (int64_t d : out) {
    if (d < 0) {
      throw OpError{fmt::format("{}: its shape rule gave {}", op.name, shape_str(out)), "dimensions are >= 0"};
    }
  }
  TensorType t{DType::F32, std::move(out)};
  check_rank(t);
  return t;
}

void forward(const KernelArgs& args) {
  const CustomOp& op = registered(args.node.attrs);
  const auto ins = custom_inputs(args, args.inputs.size());
  const CustomAttributes attributes = custom_attributes(args.node.attrs, op);
  const CustomCall call{std::span<const CustomInput>(ins.data(), args.inputs.size()),
                        {args.output.f32(), args.output.shape(), args.output.numel()},
                        attributes,
                        args.workspace};
  try {
    op.forward(call);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(ErrorKind::Runtime, fmt::format("{}: {}", op.name, e.what()), args.node.span,
                "the registered op's kernel failed");
  }
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);  // a copy: the nodes added below may move the graph's nodes
  const CustomOp& op = registered(n.attrs);
  std::vector<ValueId> grads(n.inputs.size(), kNoValue);
  if (!op.backward) {
    return grads;
  }
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    std::vector<ValueId> operands = n.inputs;
    operands.push_back(id);
    operands.push_back(dy);
    Attrs attrs = n.attrs;
    attrs.set("input", static_cast<int64_t>(k));
    grads[k] = g.add(OpKind::CustomGrad, std::move(operands), std::move(attrs));
  }
  return grads;
}

CustomShapes shapes_of(const Graph& g, const Node& node) {
  CustomShapes shapes;
  for (ValueId in : node.inputs) {
    shapes.push_back(g.type(in).shape);
  }
  return shapes;
}

Cost cost(const Graph& g, const Node& node) {
  const CustomOp& op = registered(node.attrs);
  Cost c = elementwise_cost(g, node, 1.0);
  if (op.flops) {
    c.flops = op.flops(shapes_of(g, node), custom_attributes(node.attrs, op));
  }
  return c;
}

size_t workspace(const Graph& g, const Node& node) {
  const CustomOp& op = registered(node.attrs);
  return op.temporary_bytes ? static_cast<size_t>(std::max<int64_t>(
                                  0, op.temporary_bytes(shapes_of(g, node), custom_attributes(node.attrs, op))))
                            : 0;
}

constexpr AttrSpec kAttrs[] = {{.name = "op", .type = AttrType::String, .required = true}};

}  // namespace impl_custom
}  // namespace

const OpDef kCustomOp{
    .kind = OpKind::Custom,
    .name = "custom",
    .arity = -1,
    .infer = impl_custom::infer,
    .forward = impl_custom::forward,
    .backward = impl_custom::backward,
    .cost = impl_custom::cost,
    .doc =
        "custom(x...; op, its attributes): an op registered in C++ (iputrain::register_op), called by its name "
        "in model files; f32 operands and result.",
    .workspace = impl_custom::workspace,
    .attrs = impl_custom::kAttrs,
    .edges = "what the registered kernel computes: iputrain passes every value to it unchanged.",
    .temporaries = impl_custom::workspace,
};

namespace {
namespace impl_custom {

// The names of the registered ops `g` and its loop bodies call.
void custom_called_names(const Graph& g, std::set<std::string>& names) {
  for (const Node& n : g.nodes()) {
    if (n.op == OpKind::Custom) {
      names.insert(n.attrs.get_str("op"));
    }
    if (n.body) {
      custom_called_names(*n.body, names);
    }
  }
}

}  // namespace impl_custom
}  // namespace

std::vector<const CustomOp*> custom_ops_called(const Graph& g) {
  std::set<std::string> names;
  impl_custom::custom_called_names(g, names);
  std::vector<const CustomOp*> out;
  for (const std::string& name : names) {
    if (const CustomOp* op = find_custom_op(name)) {
      out.push_back(op);
    }
  }
  return out;
}

}  // namespace iputrain::ir
