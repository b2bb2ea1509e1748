// What a checkpoint records of the registered ops its model calls (CustomOp, iputrain/custom_op.hpp)
// and the check of a resume against it: the declared registration of each op (operands, attributes
// with their defaults, whether it has a gradient, its version), since its functions cannot be
// compared.
#include <fmt/format.h>

#include <map>

#include "core/toml_string.hpp"
#include "engine/checkpoint.hpp"

namespace iputrain::engine {

namespace {
namespace impl_checkpoint_ops {

// What each line of an op's record is, for the user: "`op`: its version was "1", is "2"".
std::string aspect_change(const std::string& op, const std::string& aspect, const std::string& was,
                          const std::string& is) {
  struct Label {
    const char* what;
    bool plural;
  };
  static const std::map<std::string, Label> labels = {
      {"inputs", {"its operands (inputs)", true}},
      {"attributes", {"its attributes with their defaults", true}},
      {"differentiable", {"whether it has a gradient (backward)", false}},
      {"version", {"its version", false}},
  };
  const auto it = labels.find(aspect);
  if (it == labels.end()) {  // a line a later iputrain records
    return fmt::format("`{}`: its `{}` was {}, is {}", op, aspect, was, is);
  }
  const bool plural = it->second.plural;
  return fmt::format("`{}`: {} {} {}, {} {}", op, it->second.what, plural ? "were" : "was", was, plural ? "are" : "is",
                     is);
}

// A record's lines by op, then by aspect ("scaled_softplus.version" is op scaled_softplus, aspect
// version: an op's name has no '.').
std::map<std::string, std::map<std::string, std::string>> by_op(const std::string& text) {
  std::map<std::string, std::map<std::string, std::string>> out;
  for (const auto& [key, value] : parse_record(text)) {
    const size_t dot = key.find('.');
    if (dot != std::string::npos) {
      out[key.substr(0, dot)][key.substr(dot + 1)] = value;
    }
  }
  return out;
}

std::string names(const std::vector<std::string>& ops) {
  std::string out;
  for (const std::string& op : ops) {
    out += fmt::format("{}`{}`", out.empty() ? "" : ", ", op);
  }
  return out;
}

}  // namespace impl_checkpoint_ops
}  // namespace

std::string registered_ops_text(const std::vector<const CustomOp*>& ops) {
  using namespace impl_checkpoint_ops;
  std::string out;
  for (const CustomOp* op : ops) {
    std::string inputs;
    for (const std::string& in : op->inputs) {
      inputs += (inputs.empty() ? "" : ", ") + toml_string(in);
    }
    std::string attributes;
    for (const auto& [name, value] : op->attributes) {
      // The shortest text that reads back to the same double.
      attributes += fmt::format("{}{} = {}", attributes.empty() ? "" : ", ", name, value);
    }
    out += fmt::format("{0}.inputs = [{1}]\n{0}.attributes = {{{2}}}\n{0}.differentiable = {3}\n{0}.version = {4}\n",
                       op->name, inputs, attributes, op->backward ? "true" : "false", toml_string(op->version));
  }
  return out;
}

OpsCheck check_registered_ops(const CheckpointMeta& recorded, const std::string& now_text) {
  using namespace impl_checkpoint_ops;
  const auto was = by_op(recorded.registered_ops);
  const auto now = by_op(now_text);
  OpsCheck out;
  std::vector<std::string> only_now;
  for (const auto& [op, aspects] : now) {
    const auto it = was.find(op);
    if (it == was.end()) {
      only_now.push_back(op);
      continue;
    }
    for (const RecordDifference& d : record_differences(it->second, aspects, "not recorded", "not declared")) {
      out.refusals.push_back(aspect_change(op, d.key, d.was, d.now));
    }
  }
  if (!recorded.ops_recorded && !only_now.empty()) {
    out.notes.push_back(fmt::format(
        "the checkpoint records no registered op (it was written before iputrain recorded them, or by a model "
        "that calls none), so the registration of {} is not checked against the one it was trained under",
        names(only_now)));
  } else if (!only_now.empty()) {
    out.notes.push_back(fmt::format("the checkpoint's model did not call the registered op{} {}",
                                    only_now.size() == 1 ? "" : "s", names(only_now)));
  }
  std::vector<std::string> only_was;
  for (const auto& [op, aspects] : was) {
    if (now.count(op) == 0) {
      only_was.push_back(op);
    }
  }
  if (!only_was.empty()) {
    out.notes.push_back(fmt::format("the checkpoint's model called the registered op{} {}, which this model does not",
                                    only_was.size() == 1 ? "" : "s", names(only_was)));
  }
  return out;
}

}  // namespace iputrain::engine
