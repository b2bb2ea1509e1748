// iputrain_gen_ops_doc: prints docs/ops.md, the reference of every primitive, from the op table
// (core/ops/op_docs.hpp).
//
//   iputrain_gen_ops_doc                 writes the markdown to stdout
//   iputrain_gen_ops_doc --check FILE    exits 1 (naming the fix) when FILE differs from it
//   iputrain_gen_ops_doc --list          one line per op: name, then leaf | differentiable | no-gradient
//                                        (what tests/diff/diff_suite.py covers)
//
// The --check form is a CTest test, so the committed docs cannot drift from the table.
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/ops/op.hpp"
#include "core/ops/op_docs.hpp"

namespace {

using iputrain::ir::OpDef;
using iputrain::ir::OpKind;

}  // namespace

int main(int argc, char** argv) try {
  if (argc == 2 && std::string(argv[1]) == "--list") {
    for (int k = 0; k < static_cast<int>(OpKind::Count); ++k) {
      const OpDef& def = iputrain::ir::op_def(static_cast<OpKind>(k));
      const char* kind = def.forward == nullptr ? "leaf" : (def.backward != nullptr ? "differentiable" : "no-gradient");
      std::cout << def.name << " " << kind << "\n";
    }
    return 0;
  }
  // The ops registered in C++ by this program: none, so the reference is the op table's alone.
  const std::string md = iputrain::ir::ops_reference_markdown(iputrain::ir::registered_custom_ops());
  if (argc == 1) {
    std::cout << md;
    return 0;
  }
  if (argc == 3 && std::string(argv[1]) == "--check") {
    std::ifstream in(argv[2], std::ios::binary);
    std::stringstream file;
    file << in.rdbuf();
    if (!in || file.str() != md) {
      std::cerr << argv[2] << " is out of date with the op table; regenerate it with\n"
                << "  iputrain_gen_ops_doc > docs/ops.md\n";
      return 1;
    }
    return 0;
  }
  std::cerr << "usage: iputrain_gen_ops_doc [--check FILE | --list]\n";
  return 2;
} catch (const std::exception& e) {
  std::cerr << "iputrain_gen_ops_doc: " << e.what() << "\n";
  return 1;
}
