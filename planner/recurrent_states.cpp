#include "planner/recurrent_states.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "iputrain/error.hpp"

namespace iputrain::planner {

std::vector<ir::ValueId> state_writes(const ir::Graph& g) {
  std::vector<ir::ValueId> out;
  for (ir::ValueId id = 0; id < g.size(); ++id) {
    if (op_has(g.node(id).op, ir::op_flags::state_write)) {
      out.push_back(id);
    }
  }
  return out;
}

std::vector<ir::ValueId> recurrent_states(const ir::Graph& g) {
  std::vector<ir::ValueId> out;
  for (const ir::Node& n : g.nodes()) {
    if (ir::op_has(n.op, ir::op_flags::state_read)) {
      out.push_back(n.inputs[0]);
    }
  }
  return out;
}

namespace {

// The one run-wide reason a model with stateful layers cannot plan, or "".
std::string run_conflict(const Settings& settings, int32_t replicas) {
  if (replicas > 1) {
    return fmt::format(
        "a stateful recurrent layer needs one replica, but the plan has {}: replica r reads batches "
        "(u R + r) A + m of the data, so a replica's next micro-batch does not continue its last one",
        replicas);
  }
  if (settings.plain.pipeline_batch_serialization_iterations > 1) {
    return fmt::format(
        "a stateful recurrent layer cannot run under pipeline.batch_serialization_iterations = {}: its states hold the "
        "rows of a whole micro-batch, and the slices would each continue the one before",
        settings.plain.pipeline_batch_serialization_iterations);
  }
  return {};
}

}  // namespace

void check_recurrent_states(const ir::Graph& g, const Settings& settings, int32_t replicas, bool training) {
  const std::vector<ir::ValueId> states = recurrent_states(g);
  if (states.empty()) {
    return;
  }
  const ir::Node* first = nullptr;
  for (const ir::Node& n : g.nodes()) {
    first = first == nullptr && ir::op_has(n.op, ir::op_flags::state_read) ? &n : first;
  }
  if (const std::string why = run_conflict(settings, replicas); !why.empty()) {
    throw Error(ErrorKind::Plan, why, first->span,
                replicas > 1 ? "train on one replica and reach the same global batch with "
                               "pipeline.gradient_accumulation_count, or drop `stateful`"
                             : "leave pipeline.batch_serialization_iterations at 1, or drop `stateful`");
  }
  if (training && settings.plain.data_shuffle) {
    const std::string why =
        "a stateful recurrent layer continues sample i of each batch in sample i of the next, which shuffled "
        "training data breaks";
    const std::string hint =
        "set data.shuffle = false and lay the data out so that consecutive batches continue "
        "each other's sequences";
    if (settings.keys.is_set("data.shuffle")) {
      settings.keys.fail_at("data.shuffle", why, hint, ErrorKind::Plan);
    }
    throw Error(ErrorKind::Plan, why + " (data.shuffle is true by default)", first->span, hint);
  }
  for (ir::ValueId state : states) {
    int32_t stage = -1;
    for (const ir::Node& n : g.nodes()) {
      const auto& in = n.inputs;
      if (std::find(in.begin(), in.end(), state) == in.end()) {
        continue;
      }
      const bool own =
          ir::op_has(n.op, ir::op_flags::state_read) || (ir::op_has(n.op, ir::op_flags::state_write) && in[1] == state);
      if (!own || (stage >= 0 && n.stage != stage)) {
        throw Error(
            ErrorKind::Plan,
            fmt::format("the state '{}' is {}", g.node(state).name,
                        own ? "read and written on different stages" : "read by another op than its state_read"),
            n.span, own ? "keep the stateful layer within one stage" : "read a state only through state_read");
      }
      stage = n.stage;
    }
  }
}

}  // namespace iputrain::planner
