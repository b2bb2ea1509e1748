// state_read: the value a stateful recurrent layer starts a micro-batch from, read from its state
// (a non-trainable parameter that state_write sets after each micro-batch's forward), or zeros
// where the states are reset (ExecContext::reset_states; planner/recurrent_states.hpp). The read
// is stashed for the backward pass, never read again: by then the state holds the next start.
// No gradient flows into the state (truncated back-propagation through time, as Keras').
#include <fmt/format.h>

#include <cstring>

#include "core/ops/op_util.hpp"
#include "core/parallel.hpp"

namespace iputrain::ir {

namespace {
namespace impl_state_read {

TensorType infer(std::span<const TensorType* const> in, const Attrs&) {
  if (in[0]->dtype != DType::F32) {
    throw OpError{fmt::format("takes an f32 state, got {}", in[0]->str()),
                  "a recurrent layer's state: `param NAME: f32[batch, units] = zeros(), trainable = false`"};
  }
  return *in[0];
}

void forward(const KernelArgs& args) {
  const Tensor& state = args.inputs[0];
  if (args.ctx != nullptr && args.ctx->reset_states) {
    std::memset(args.output.data, 0, state.type->bytes());
    return;
  }
  par::copy(args.output.data, state.data, state.type->bytes());
}

std::vector<ValueId> backward(Graph&, ValueId, ValueId) { return {kNoValue}; }

Cost cost(const Graph& g, const Node& node) { return elementwise_cost(g, node); }

}  // namespace impl_state_read
}  // namespace

const OpDef kStateReadOp{
    .kind = OpKind::StateRead,
    .name = "state_read",
    .arity = 1,
    .infer = impl_state_read::infer,
    .forward = impl_state_read::forward,
    .backward = impl_state_read::backward,
    .cost = impl_state_read::cost,
    .doc =
        "state_read(state) -> the state as this micro-batch starts (zeros where the states are reset); no "
        "gradient flows into it.",
    .edges = "passes values unchanged.",
};

}  // namespace iputrain::ir
