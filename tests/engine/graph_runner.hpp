// For kernel-level tests: runs node lists of a graph on buffers of its own (every value the lists
// touch, allocated once), calling the op table's forward kernels in order, with the same
// floating-point trap checks as the engine's tasks. The engine itself runs everything, training
// and inference, on the cluster of virtual IPUs (engine/cluster/).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/ir/graph.hpp"
#include "core/ops/op.hpp"
#include "engine/fp_trap.hpp"

namespace iputrain::test_support {

//! A program compiled against one VirtualIpu's buffers: a flat list of kernel calls whose operand
//! views are prepared once, so running it neither allocates nor looks anything up.
class Program {
 public:
  int64_t size() const { return static_cast<int64_t>(instrs_.size()); }

 private:
  friend class GraphRunner;
  struct Instr {
    ir::ValueId value;
    const ir::Node* node;
    void (*forward)(const ir::KernelArgs&);
    uint32_t first_operand;
    uint32_t operand_count;
    ir::Tensor output;
  };
  std::vector<Instr> instrs_;
  std::vector<ir::Tensor> operands_;
};

class GraphRunner {
 public:
  //! Allocates one buffer for every value that any of `programs` touches (64-byte aligned, in one
  //! block), fills constants, and compiles the programs.
  GraphRunner(const ir::Graph& graph, const std::vector<std::vector<ir::ValueId>>& programs);

  //! The compiled form of programs[i] given to the constructor.
  const Program& program(size_t i) const { return programs_.at(i); }
  //! Runs a program: each kernel in order on this device's buffers. With `traps`, each result is
  //! checked for a NaN or an infinity it made, and the first of a trapped class throws
  //! (engine/fp_trap.hpp).
  void run(const Program& program, const ir::ExecContext& ctx, const engine::FpTrapSite* traps = nullptr) const;

  //! The buffer of value `id`; throws Error(Internal) if the value has none on this device.
  ir::Tensor tensor(ir::ValueId id) const;
  bool has(ir::ValueId id) const;

 private:
  Program compile(const std::vector<ir::ValueId>& order) const;

  struct Free {
    void operator()(std::byte* p) const;
  };

  const ir::Graph& graph_;
  std::vector<int64_t> offset_;  // per value id; -1 = not on this device
  std::unique_ptr<std::byte, Free> memory_;
  size_t bytes_ = 0;
  // Kernel scratch (OpDef::workspace): one buffer of the largest size any instruction asks for,
  // shared by all of them since a device runs one kernel at a time.
  std::unique_ptr<std::byte, Free> workspace_;
  size_t workspace_bytes_ = 0;
  std::vector<Program> programs_;
};

}  // namespace iputrain::test_support
