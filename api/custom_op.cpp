// iputrain::register_op (include/iputrain/custom_op.hpp): checks a program's op before the op
// table's `custom` entry may dispatch to it, against every name a model file could mean instead.
#include "iputrain/custom_op.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "core/ops/custom_registry.hpp"
#include "core/ops/op_docs.hpp"
#include "frontend/builtins.hpp"
#include "iputrain/error.hpp"

namespace iputrain {

namespace {

bool identifier(const std::string& s) {
  return !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) != 0 || s[0] == '_') &&
         std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; });
}

// The words of grammar/IpuLang.g4 a name cannot be.
const std::set<std::string>& keywords() {
  static const std::set<std::string> words = {"and",      "assert",     "def",    "else",  "false",  "for",
                                              "from",     "if",         "import", "in",    "input",  "layer",
                                              "minimize", "model",      "not",    "or",    "output", "parallel",
                                              "param",    "per_sample", "return", "stage", "true"};
  return words;
}

[[noreturn]] void refuse(const std::string& what, const std::string& hint) {
  throw Error(ErrorKind::Usage, "register_op: " + what, {}, hint);
}

void check_names(const CustomOp& op) {
  if (!identifier(op.name) || keywords().count(op.name) > 0) {
    refuse(fmt::format("'{}' is not a name a model can call", op.name), "use letters, digits and _, not a keyword");
  }
  const auto& table = frontend::builtins();
  const bool builtin =
      std::any_of(table.begin(), table.end(), [&](const frontend::Builtin& b) { return b.name == op.name; });
  if (builtin || ir::op_by_name(op.name) != ir::OpKind::Count || op.name == "ops") {
    refuse(fmt::format("'{}' is a builtin already", op.name), "choose another name");
  }
  if (op.inputs.empty() || op.inputs.size() > ir::kMaxCustomInputs) {
    refuse(fmt::format("{} has {} operands", op.name, op.inputs.size()),
           fmt::format("an op takes 1 to {} operands", ir::kMaxCustomInputs));
  }
  std::set<std::string> seen;
  for (const std::string& n : op.inputs) {
    if (!identifier(n) || !seen.insert(n).second) {
      refuse(fmt::format("{}: operand name '{}' is malformed or repeated", op.name, n), "name each operand once");
    }
  }
  for (const auto& [n, value] : op.attributes) {
    if (!identifier(n) || !seen.insert(n).second || n == "op" || n == "input") {
      refuse(fmt::format("{}: attribute name '{}' is malformed, repeated or reserved", op.name, n),
             "`op` and `input` are iputrain's; name each operand and attribute once");
    }
  }
}

}  // namespace

void register_op(CustomOp op) {
  check_names(op);
  if (!op.shape || !op.forward) {
    refuse(fmt::format("{} needs a shape rule and a forward kernel", op.name), "set CustomOp::shape and ::forward");
  }
  if (std::any_of(op.version.begin(), op.version.end(),
                  [](char c) { return std::iscntrl(static_cast<unsigned char>(c)) != 0; })) {
    refuse(fmt::format("{}: its version is not one line of text", op.name),
           "a checkpoint records it on one line: leave out newlines and control characters");
  }
  ir::add_custom_op(std::move(op));
}

std::vector<std::string> registered_ops() { return ir::custom_op_names(); }

std::string registered_ops_reference() { return ir::registered_ops_markdown(ir::registered_custom_ops()); }

}  // namespace iputrain
