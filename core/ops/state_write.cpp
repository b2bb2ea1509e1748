// state_write: x, which the engine copies into `state` (a non-trainable parameter) right after
// this kernel in a micro-batch's forward, so that the next micro-batch's state_read starts from
// it: a stateful recurrent layer's final states (planner/recurrent_states.hpp). Nothing needs its
// output; the programs keep it anyway (op_flags::state_write).
#include <fmt/format.h>

#include <cstring>

#include "core/ops/op_util.hpp"
#include "core/parallel.hpp"

namespace iputrain::ir {

namespace {
namespace impl_state_write {

TensorType infer(std::span<const TensorType* const> in, const Attrs&) {
  if (in[1]->dtype != DType::F32) {
    throw OpError{fmt::format("takes an f32 state, got {}", in[1]->str()),
                  "a recurrent layer's state: `param NAME: f32[batch, units] = zeros(), trainable = false`"};
  }
  if (*in[0] != *in[1]) {
    throw OpError{fmt::format("the value is {} but the state is {}", in[0]->str(), in[1]->str()),
                  "the state holds the value for the next micro-batch, so both have one type"};
  }
  return *in[0];
}

void forward(const KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  par::copy(args.output.data, x.data, x.type->bytes());
}

std::vector<ValueId> backward(Graph&, ValueId, ValueId dy) { return {dy, kNoValue}; }

Cost cost(const Graph& g, const Node& node) { return elementwise_cost(g, node); }

}  // namespace impl_state_write
}  // namespace

const OpDef kStateWriteOp{
    .kind = OpKind::StateWrite,
    .name = "state_write",
    .arity = 2,
    .infer = impl_state_write::infer,
    .forward = impl_state_write::forward,
    .backward = impl_state_write::backward,
    .cost = impl_state_write::cost,
    .doc =
        "state_write(x, state) -> x; after the kernel of a micro-batch's forward, the engine copies x into "
        "state (a non-trainable parameter), where the next micro-batch's state_read finds it.",
    .edges = "passes values unchanged.",
};

}  // namespace iputrain::ir
