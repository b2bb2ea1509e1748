// The op table, generated from op_list.hpp in OpKind order.
#include <iterator>

#include "core/ops/ops.hpp"

namespace iputrain::ir {

namespace {

enum class Surface : uint8_t { internal, builtin };

struct Entry {
  const OpDef* def;
  Surface surface;
  OpFlags flags;
};

using namespace op_flags;  // NOLINT(google-build-using-namespace): op_list.hpp names the flags bare
const Entry kTable[] = {
#define IPUTRAIN_OP(kind, surface, flags) {&k##kind##Op, Surface::surface, flags},
#include "core/ops/op_list.hpp"
#undef IPUTRAIN_OP
};
// Both come from one list, so they cannot disagree; each entry's kind is checked against its
// position by tests/core/op_table_test.cpp (an op file could name the wrong OpKind).
static_assert(std::size(kTable) == static_cast<size_t>(OpKind::Count), "op_list.hpp builds both");
}  // namespace

const OpDef& op_def(OpKind kind) { return *kTable[static_cast<size_t>(kind)].def; }

std::string_view op_name(OpKind kind) {
  return kind < OpKind::Count ? op_def(kind).name : std::string_view("?");
}

OpKind op_by_name(std::string_view name) {
  for (size_t i = 0; i < std::size(kTable); ++i) {
    if (kTable[i].def->name == name) {
      return static_cast<OpKind>(i);
    }
  }
  return OpKind::Count;
}

bool is_plain_builtin(OpKind kind) {
  return kind < OpKind::Count && kTable[static_cast<size_t>(kind)].surface == Surface::builtin;
}

OpFlags op_flags_of(OpKind kind) { return kind < OpKind::Count ? kTable[static_cast<size_t>(kind)].flags : 0; }

}  // namespace iputrain::ir
