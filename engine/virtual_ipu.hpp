// A virtual IPU: the memory of one device (every buffer its programs touch, allocated once) and
// the compiled programs it runs. Kernels are the op table's forward functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/ir/graph.hpp"
#include "core/ops/op.hpp"
#include "engine/fp_trap.hpp"

namespace iputrain::engine {

//! A program compiled against one VirtualIpu's buffers: a flat list of kernel calls whose operand
//! views are prepared once, so running it neither allocates nor looks anything up.
class Program {
 public:
  int64_t size() const { return static_cast<int64_t>(instrs_.size()); }

 private:
  friend class VirtualIpu;
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

class VirtualIpu {
 public:
  //! Allocates one buffer for every value that any of `programs` touches (64-byte aligned, in one
  //! block), fills constants, and compiles the programs. Throws Error(Plan) if the buffers exceed
  //! `capacity_bytes` (0 = unlimited).
  VirtualIpu(int32_t id, const ir::Graph& graph, const std::vector<std::vector<ir::ValueId>>& programs,
             int64_t capacity_bytes);

  int32_t id() const { return id_; }
  //! The compiled form of programs[i] given to the constructor.
  const Program& program(size_t i) const { return programs_.at(i); }
  //! Runs a program: each kernel in order on this device's buffers. With `traps`, each result is
  //! checked for a NaN or an infinity it made, and the first of a trapped class throws
  //! (engine/fp_trap.hpp).
  void run(const Program& program, const ir::ExecContext& ctx, const FpTrapSite* traps = nullptr) const;

  //! The buffer of value `id`; throws Error(Internal) if the value has none on this device.
  ir::Tensor tensor(ir::ValueId id) const;
  bool has(ir::ValueId id) const;
  //! Bytes of device memory in use (all buffers, including alignment padding; without the workspace).
  int64_t bytes_allocated() const { return static_cast<int64_t>(bytes_); }
  //! Bytes of the kernels' shared scratch buffer.
  int64_t workspace_bytes() const { return static_cast<int64_t>(workspace_bytes_); }

 private:
  Program compile(const std::vector<ir::ValueId>& order) const;

  struct Free {
    void operator()(std::byte* p) const;
  };

  int32_t id_;
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

}  // namespace iputrain::engine
