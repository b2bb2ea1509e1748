#include "engine/cluster/memory_account.hpp"

#include <map>

#include "planner/precision.hpp"

namespace iputrain::engine {

namespace {

// Walks one program and records, per (Carried buffer, micro-batch) lifetime, its first and last
// instruction.
class Lifetimes {
 public:
  Lifetimes(const planner::Plan& plan, int32_t ipu) : plan_(plan) {
    const auto& buffers = plan.programs.buffers.at(static_cast<size_t>(ipu));
    carried_bytes_.assign(static_cast<size_t>(plan.graph.size()), -1);
    for (const planner::Buffer& b : buffers) {
      if (b.cls == planner::BufferClass::Carried) {
        carried_bytes_[static_cast<size_t>(b.value)] =
            planner::device_bytes(plan.graph, b.value, plan.settings.device.compute);
      }
    }
    for (size_t k = 0; k < plan.graph.params.size() && k < plan.grads.size(); ++k) {
      grad_of_[plan.graph.params[k]] = plan.grads[k];
    }
  }

  MemoryDeltas run(const std::vector<planner::Instr>& program) {
    out_.acquire.assign(program.size(), 0);
    out_.release.assign(program.size(), 0);
    for (size_t i = 0; i < program.size(); ++i) {
      visit(program[i], static_cast<int32_t>(i));
    }
    for (const auto& [key, life] : open_) {
      close(life);
    }
    return std::move(out_);
  }

 private:
  struct Life {
    int64_t bytes;
    int32_t first;
    int32_t last;
  };

  void visit(const planner::Instr& in, int32_t pos) {
    const planner::DevicePrograms& p = plan_.programs;
    const int64_t m = in.micro_batch;
    switch (in.kind) {
      case planner::InstrKind::Forward: nodes(p.stages[static_cast<size_t>(in.stage)].forward, m, pos); break;
      case planner::InstrKind::Recompute: nodes(p.stages[static_cast<size_t>(in.stage)].recompute, m, pos); break;
      case planner::InstrKind::Backward: nodes(p.stages[static_cast<size_t>(in.stage)].backward, m, pos); break;
      case planner::InstrKind::Infeed:
        for (ir::ValueId v : in.values) {
          make(v, m, pos);
        }
        break;
      case planner::InstrKind::Recv:
        for (ir::ValueId v : p.messages[static_cast<size_t>(in.message)].values) {
          make(v, m, pos);
        }
        break;
      case planner::InstrKind::Send:
        for (ir::ValueId v : p.messages[static_cast<size_t>(in.message)].values) {
          read(v, m, pos);
        }
        break;
      case planner::InstrKind::Outfeed:
        for (ir::ValueId v : in.values) {
          read(v, m, pos);
        }
        break;
      case planner::InstrKind::Accumulate:
        for (ir::ValueId param : in.values) {
          const auto it = grad_of_.find(param);
          if (it != grad_of_.end() && it->second != ir::kNoValue) {
            read(it->second, m, pos);
          }
        }
        break;
      case planner::InstrKind::ReduceReplicas:
      case planner::InstrKind::UpdateWeights: break;
    }
  }

  void nodes(const std::vector<ir::ValueId>& ids, int64_t m, int32_t pos) {
    for (ir::ValueId id : ids) {
      for (ir::ValueId in : plan_.graph.node(id).inputs) {
        read(in, m, pos);
      }
      make(id, m, pos);
    }
  }

  void make(ir::ValueId v, int64_t m, int32_t pos) {
    const int64_t bytes = carried_bytes_[static_cast<size_t>(v)];
    if (bytes < 0) {
      return;
    }
    const auto key = std::make_pair(v, m);
    const auto it = open_.find(key);
    if (it != open_.end()) {
      close(it->second);  // a recompute starts a second life
      open_.erase(it);
    }
    open_.emplace(key, Life{bytes, pos, pos});
  }

  void read(ir::ValueId v, int64_t m, int32_t pos) {
    if (carried_bytes_[static_cast<size_t>(v)] < 0) {
      return;
    }
    auto it = open_.find(std::make_pair(v, m));
    if (it == open_.end()) {
      make(v, m, pos);
      it = open_.find(std::make_pair(v, m));
    }
    it->second.last = pos;
  }

  void close(const Life& life) {
    out_.acquire[static_cast<size_t>(life.first)] += life.bytes;
    out_.release[static_cast<size_t>(life.last)] += life.bytes;
  }

  const planner::Plan& plan_;
  std::vector<int64_t> carried_bytes_;
  std::map<ir::ValueId, ir::ValueId> grad_of_;
  std::map<std::pair<ir::ValueId, int64_t>, Life> open_;
  MemoryDeltas out_;
};

}  // namespace

MemoryDeltas carried_deltas(const planner::Plan& plan, int32_t ipu) {
  return Lifetimes(plan, ipu).run(plan.programs.ipus.at(static_cast<size_t>(ipu)));
}

}  // namespace iputrain::engine
