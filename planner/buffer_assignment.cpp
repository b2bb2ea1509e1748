#include "planner/buffer_assignment.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "iputrain/error.hpp"
#include "planner/arena_placement.hpp"
#include "planner/deadline.hpp"
#include "planner/host_tables.hpp"
#include "planner/liveness.hpp"
#include "planner/memory_model.hpp"
#include "planner/plan.hpp"
#include "planner/precision.hpp"

namespace iputrain::planner {

namespace {

int64_t aligned(int64_t bytes) { return (std::max<int64_t>(bytes, 1) + kArenaAlign - 1) / kArenaAlign * kArenaAlign; }

// Walks one IPU's program and records the lives of the values it makes, receives and reads.
class LifeWalk {
 public:
  LifeWalk(const Plan& plan, int32_t ipu)
      : plan_(plan),
        g_(plan.graph),
        ranges_(static_cast<size_t>(plan.graph.size())),
        bytes_(static_cast<size_t>(plan.graph.size()), -1),
        accumulates_(accumulator_buffers(plan) > 0) {
    for (size_t k = 0; k < g_.params.size() && k < plan.grads.size(); ++k) {
      if (plan.placement.param_ipu[k] == ipu && is_host_table(g_.node(g_.params[k]))) {
        host_.insert(plan.grads[k].begin(), plan.grads[k].end());  // in host memory, not in the arena
      } else if (plan.placement.param_ipu[k] == ipu && !plan.grads[k].empty()) {
        grad_of_.emplace(g_.params[k], plan.grads[k]);
        local_grads_.insert(plan.grads[k].begin(), plan.grads[k].end());
      }
    }
  }

  Arena run(const std::vector<Instr>& program) {
    arena_.instr_ticks.reserve(program.size() + 1);
    for (size_t pos = 0; pos < program.size(); ++pos) {
      arena_.instr_ticks.push_back(tick_);
      visit(program[pos], static_cast<int32_t>(pos));
    }
    arena_.instr_ticks.push_back(tick_);
    // The lives end where the liveness walk saw their last reads.
    for (size_t r = 0; r < life_of_.size(); ++r) {
      const int32_t i = life_of_[r];
      Life& life = i >= 0 ? arena_.lives[static_cast<size_t>(i)] : constants_[static_cast<size_t>(-2 - i)];
      life.last_tick = ranges_[static_cast<int32_t>(r)].last.tick;
      life.last_instr = ranges_[static_cast<int32_t>(r)].last.instr;
    }
    // Constants are read from the first instruction to the last; every other life was recorded in
    // order of its first tick, so putting the constants first keeps the lives in that order.
    for (Life& life : constants_) {
      life.first_tick = 0;
      life.first_instr = 0;
      life.last_tick = std::max<int64_t>(0, tick_ - 1);
      life.last_instr = std::max<int32_t>(0, static_cast<int32_t>(program.size()) - 1);
    }
    const auto shift = static_cast<int32_t>(constants_.size());
    for (Life& life : arena_.lives) {
      life.view_of += life.view_of >= 0 ? shift : 0;
    }
    constants_.insert(constants_.end(), arena_.lives.begin(), arena_.lives.end());
    arena_.lives = std::move(constants_);
    return std::move(arena_);
  }

 private:
  void visit(const Instr& in, int32_t pos) {
    const DevicePrograms& p = plan_.programs;
    const int64_t m = in.micro_batch;
    switch (in.kind) {
      case InstrKind::Forward:
      case InstrKind::Recompute:
      case InstrKind::Backward:
      case InstrKind::BackwardWeights: {
        const std::vector<ir::ValueId>& nodes = p.stages[static_cast<size_t>(in.stage)].nodes(in.kind);
        if (nodes.empty()) {
          break;
        }
        for (ir::ValueId id : nodes) {
          for (ir::ValueId v : g_.node(id).inputs) {
            read(v, m, pos, in.stage);
          }
          make(id, m, pos, false);
          temporaries(id, m, pos);
          // Added to its accumulator right after its kernel: nothing later needs this copy.
          if (is_backward(in.kind) && accumulates_ && local_grads_.count(id) != 0) {
            arena_.lives[static_cast<size_t>(open_life(id, m))].to_accumulator = true;
          }
          ++tick_;
        }
        --tick_;  // the task's last tick
        if (in.kind == InstrKind::Forward) {
          // The outfeed takes the loss and the outputs once the task has run.
          for (ir::ValueId id : nodes) {
            if (id == g_.loss || is_output(id)) {
              read(id, m, pos, -1);
            }
          }
        }
        break;
      }
      case InstrKind::Infeed:
        for (ir::ValueId v : in.values) {
          make(v, m, pos, true);
        }
        break;
      case InstrKind::Recv:
        for (ir::ValueId v : p.messages[static_cast<size_t>(in.message)].values) {
          make(v, m, pos, true);
        }
        break;
      case InstrKind::Send:
        for (ir::ValueId v : p.messages[static_cast<size_t>(in.message)].values) {
          read(v, m, pos, -1);
        }
        break;
      case InstrKind::Outfeed:
        for (ir::ValueId v : in.values) {
          read(v, m, pos, -1);
        }
        break;
      case InstrKind::Accumulate:
        // Gradients that were not added as they were made (none today) are added here.
        for (ir::ValueId param : in.values) {
          const auto parts = grad_of_.find(param);
          if (parts == grad_of_.end()) {
            continue;
          }
          for (ir::ValueId grad : parts->second) {
            if (g_.node(grad).stage != in.stage) {
              continue;  // a part another stage makes, added by that stage's Accumulate
            }
            const int32_t life = open_life(grad, m);
            if (life < 0 || !arena_.lives[static_cast<size_t>(life)].to_accumulator) {
              read(grad, m, pos, in.stage);
            }
          }
        }
        break;
      case InstrKind::UpdateWeights:
        // Without accumulators the optimizer reads micro-batch 0's gradient buffers.
        if (!accumulates_) {
          for (ir::ValueId grad : local_grads_) {
            if (open_life(grad, 0) >= 0) {
              read(grad, 0, pos, -1);
            }
          }
        }
        break;
      case InstrKind::ReduceReplicas: break;
    }
    ++tick_;
  }

  // A matmul's or convolution's working memory, for the tick it runs.
  void temporaries(ir::ValueId id, int64_t m, int32_t pos) {
    if (host_.count(id) != 0) {
      return;  // the host's scatter works in host memory
    }
    const ir::Node& n = g_.node(id);
    const OpTemporaries t = op_temporaries(g_, id, plan_.limits(n.stage, n.phase), plan_.decided.device);
    if (t.bytes <= 0) {
      return;
    }
    Life life;
    life.value = id;
    life.micro_batch = m;
    life.first_instr = life.last_instr = pos;
    life.first_tick = life.last_tick = tick_;
    life.bytes = t.bytes;
    life.size = aligned(t.bytes);
    life.stage = n.stage;
    life.temporary = true;
    arena_.lives.push_back(life);
  }

  bool is_output(ir::ValueId v) const {
    return std::any_of(g_.outputs.begin(), g_.outputs.end(), [&](const auto& o) { return o.value == v; });
  }

  // The life of `v` for micro-batch `m` begun last, or -1 (-2 - k: the constant k).
  int32_t open_life(ir::ValueId v, int64_t m) const {
    const int32_t r = ranges_.open(v, m);
    return r < 0 ? -1 : life_of_[static_cast<size_t>(r)];
  }

  // Begins the liveness of life `index` (-2 - k: the constant k) of `v` for micro-batch `m`.
  void begin(ir::ValueId v, int64_t m, int32_t pos, int32_t index) {
    const int32_t r = ranges_.begin(v, m, Step{tick_, pos});
    life_of_.push_back(index);
    if (index >= 0) {
      range_of_.resize(static_cast<size_t>(index) + 1, -1);
      range_of_[static_cast<size_t>(index)] = r;
    }
  }

  // A value made again (by a recompute) starts a second life; the first one stays as it was.
  void make(ir::ValueId v, int64_t m, int32_t pos, bool from_outside) {
    const ir::Node& n = g_.node(v);
    if (ir::is_weight(n) || host_.count(v) != 0) {
      return;
    }
    int64_t& bytes = bytes_[static_cast<size_t>(v)];
    if (bytes < 0) {
      bytes = device_bytes(g_, v, plan_.decided.device.compute);
    }
    Life life;
    life.value = v;
    life.micro_batch = m;
    life.first_instr = life.last_instr = pos;
    life.first_tick = life.last_tick = tick_;
    life.bytes = bytes;
    life.size = aligned(bytes);
    life.stage = n.stage;
    life.from_outside = from_outside;
    if (m < 0) {
      begin(v, m, pos, -2 - static_cast<int32_t>(constants_.size()));
      constants_.push_back(life);
      return;
    }
    if (!from_outside) {
      life.view_of = view_target(v, m);
      if (life.view_of >= 0) {
        life.bytes = 0;
        life.size = 0;
      }
    }
    begin(v, m, pos, static_cast<int32_t>(arena_.lives.size()));
    arena_.lives.push_back(life);
  }

  // The life a reshape `v` of micro-batch `m` can be a view of (the root of a chain of views), or
  // -1: its input must have an arena life here (not a parameter or a constant), and neither may be
  // a weight gradient added to an accumulator as it is made.
  int32_t view_target(ir::ValueId v, int64_t m) const {
    const ir::Node& n = g_.node(v);
    if (!op_has(n.op, ir::op_flags::view) || local_grads_.count(v) != 0) {
      return -1;
    }
    const int32_t x = open_life(n.inputs[0], m);
    if (x < 0) {
      return -1;
    }
    const Life& life = arena_.lives[static_cast<size_t>(x)];
    if (life.micro_batch != m || life.to_accumulator || life.temporary) {
      return -1;
    }
    return life.view_of >= 0 ? life.view_of : x;
  }

  void read(ir::ValueId v, int64_t m, int32_t pos, int32_t stage) {
    const ir::Node& n = g_.node(v);
    if (ir::is_weight(n) || host_.count(v) != 0) {
      return;
    }
    if (op_has(n.op, ir::op_flags::constant)) {
      if (open_life(v, -1) == -1) {
        make(v, -1, pos, false);
      }
      return;  // a whole-cycle life, set in run()
    }
    int32_t index = open_life(v, m);
    if (index < 0) {
      make(v, m, pos, true);  // read without a maker here (should not happen): live at the read only
      index = open_life(v, m);
    }
    Life& life = arena_.lives[static_cast<size_t>(index)];
    ranges_.read(range_of_[static_cast<size_t>(index)], Step{tick_, pos});
    if (stage >= 0) {
      life.stage = stage;
    }
    if (life.view_of >= 0) {
      // The bytes a view reads are its root's: the root lives on while the view is read.
      Life& root = arena_.lives[static_cast<size_t>(life.view_of)];
      ranges_.read(range_of_[static_cast<size_t>(life.view_of)], Step{tick_, pos});
      if (stage >= 0) {
        root.stage = stage;
      }
    }
  }

  const Plan& plan_;
  const ir::Graph& g_;
  std::unordered_map<ir::ValueId, GradParts> grad_of_;  // this IPU's trained parameters -> gradient parts
  std::unordered_set<ir::ValueId> local_grads_;
  std::unordered_set<ir::ValueId> host_;  // the gradients of this IPU's host tables (host memory)
  // The lives' liveness (planner/liveness.hpp), keyed by micro-batch: per range the life it
  // times (-2 - k: the constant k) and per life in the arena its range (-1: a temporary).
  LiveRanges ranges_;
  std::vector<int32_t> life_of_;
  std::vector<int32_t> range_of_;
  std::vector<int64_t> bytes_;     // per value: device bytes, -1 until needed
  std::vector<Life> constants_;
  bool accumulates_;  // gradients go into accumulators (else the optimizer reads them)
  int64_t tick_ = 0;
  Arena arena_;
};

// ---- folding the steady state -------------------------------------------------------------------

// Below this many instructions an IPU's program is walked whole.
constexpr size_t kFoldInstructions = 1024;

// A stretch of the program that repeats: `blocks` blocks of `block` instructions from `lo`, each
// the one before it `micro_batches` micro-batches and `timesteps` timesteps later.
struct Period {
  int32_t lo = 0;
  int32_t block = 0;
  int32_t blocks = 0;
  int64_t micro_batches = 0;
  int32_t timesteps = 0;
};

// `b` is `a` again, `dm` micro-batches and `dt` timesteps later.
bool repeats(const DevicePrograms& p, const Instr& a, const Instr& b, int64_t dm, int32_t dt) {
  if (a.kind != b.kind || a.stage != b.stage || a.bucket != b.bucket || b.timestep != a.timestep + dt ||
      (a.micro_batch < 0 ? b.micro_batch != a.micro_batch : b.micro_batch != a.micro_batch + dm) ||
      (a.message < 0) != (b.message < 0) || a.values != b.values) {
    return false;
  }
  if (a.message >= 0) {
    const Message& x = p.messages[static_cast<size_t>(a.message)];
    const Message& y = p.messages[static_cast<size_t>(b.message)];
    return x.from == y.from && x.to == y.to && x.values == y.values;
  }
  return true;
}

// The repeating stretch around the middle of `program`, if there is one.
std::optional<Period> find_period(const DevicePrograms& p, const std::vector<Instr>& program) {
  const auto n = static_cast<int32_t>(program.size());
  const int32_t mid = n / 2;
  const Instr& first = program[static_cast<size_t>(mid)];
  if (first.micro_batch < 0) {
    return std::nullopt;
  }
  for (int32_t j = mid + 1; j < n && j - mid <= n / 8; ++j) {
    const Instr& again = program[static_cast<size_t>(j)];
    if (again.kind != first.kind || again.stage != first.stage || again.micro_batch <= first.micro_batch) {
      continue;
    }
    const int64_t dm = again.micro_batch - first.micro_batch;
    const int32_t dt = again.timestep - first.timestep;
    const int32_t len = j - mid;
    auto same = [&](int32_t i) {
      return repeats(p, program[static_cast<size_t>(i)], program[static_cast<size_t>(i + len)], dm, dt);
    };
    bool block = true;
    for (int32_t i = mid; i < j && block; ++i) {
      block = i + len < n && same(i);
    }
    if (!block) {
      continue;
    }
    int32_t lo = mid;
    while (lo > 0 && same(lo - 1)) {
      --lo;
    }
    int32_t end = j;  // program[i + len] repeats program[i] for every i in [lo, end)
    while (end + len < n && same(end)) {
      ++end;
    }
    return Period{lo, len, (end + len - lo) / len, dm, dt};
  }
  return std::nullopt;
}

// `program` with only `kept` of the period's blocks: the blocks after them are cut and what
// follows moves back by as many micro-batches and timesteps.
std::vector<Instr> shortened(const std::vector<Instr>& program, const Period& period, int32_t kept) {
  const int64_t cut = period.blocks - kept;
  const auto keep_end = static_cast<size_t>(period.lo + kept * period.block);
  const auto tail = static_cast<size_t>(period.lo + period.blocks * period.block);
  std::vector<Instr> out(program.begin(), program.begin() + static_cast<std::ptrdiff_t>(keep_end));
  out.reserve(keep_end + program.size() - tail);
  for (size_t i = tail; i < program.size(); ++i) {
    Instr in = program[i];
    if (in.micro_batch >= 0) {
      in.micro_batch -= cut * period.micro_batches;
    }
    in.timestep -= static_cast<int32_t>(cut) * period.timesteps;
    out.push_back(std::move(in));
  }
  return out;
}

// The lives begun in the kept blocks, grouped by what they are relative to their block: one unit
// per life of the block pattern, placed at one offset in every block. Other lives are units alone.
std::vector<std::vector<int32_t>> block_units(const Arena& arena, const Period& period, int32_t kept) {
  using Key = std::tuple<ir::ValueId, int64_t, int32_t, int32_t, bool>;
  std::map<Key, int32_t> unit_of;
  std::vector<std::vector<int32_t>> units;
  const int32_t end = period.lo + kept * period.block;
  for (size_t i = 0; i < arena.lives.size(); ++i) {
    const Life& life = arena.lives[i];
    if (life.micro_batch < 0 || life.first_instr < period.lo || life.first_instr >= end) {
      units.push_back({static_cast<int32_t>(i)});
      continue;
    }
    const int32_t j = (life.first_instr - period.lo) / period.block;
    const Key key{life.value, life.micro_batch - j * period.micro_batches, life.first_instr - j * period.block,
                  life.last_instr - j * period.block, life.temporary};
    const auto [it, fresh] = unit_of.try_emplace(key, static_cast<int32_t>(units.size()));
    if (fresh) {
      units.emplace_back();
    }
    units[static_cast<size_t>(it->second)].push_back(static_cast<int32_t>(i));
  }
  return units;
}

}  // namespace

void Arena::index() {
  ir::ValueId most = -1;
  for (const Life& life : lives) {
    most = std::max(most, life.value);
  }
  by_value_.assign(static_cast<size_t>(most + 1), {});
  for (size_t i = 0; i < lives.size(); ++i) {
    by_value_[static_cast<size_t>(lives[i].value)].push_back(static_cast<int32_t>(i));
  }
}

int32_t Arena::find(ir::ValueId v, int64_t m, int32_t instr, bool temporary) const {
  if (!holds(v)) {
    return -1;
  }
  const WalkedPosition at = walked(instr);
  instr = at.instr;
  m = m >= 0 ? m - at.shift : m;
  int32_t found = -1;
  for (int32_t i : by_value_[static_cast<size_t>(v)]) {
    const Life& life = lives[static_cast<size_t>(i)];
    if (life.temporary != temporary) {
      continue;
    }
    if (life.micro_batch < 0) {
      return i;
    }
    if (life.micro_batch == m && life.first_instr <= instr) {
      found = i;  // lives are in order: the last one begun is the one in use
    }
  }
  return found;
}

namespace {

// The arena of a long program whose steady state repeats, walked on a shorter program (see
// ArenaFold). The fold's block is a whole number of the program's repeating blocks, longer than
// any life, so a life never overlaps its own copy one block later and every copy can take the same
// offset. The walked program keeps four such blocks and the inserted copies repeat the second:
// a life that overlaps a copy begins in the copy, the block before it or the block after it, and
// the walked program holds those three with every life they begin whole (the fourth block holds
// the ends of the third's lives), so any two overlapping lives of the full program overlap the
// same way in the walked one, at the same offsets.
std::optional<Arena> assign_folded(const Plan& plan, int32_t ipu, const std::vector<Instr>& program) {
  if (program.size() < kFoldInstructions) {
    return std::nullopt;
  }
  const std::optional<Period> base = find_period(plan.programs, program);
  constexpr int32_t kKept = 4;
  if (!base || base->blocks < 2 * kKept) {
    return std::nullopt;
  }
  // How far lives reach, from a walk keeping a few repeating blocks. A life that outlasts the
  // walked blocks ends in the drain after them, where timesteps hold fewer instructions, so it
  // looks shorter than it is; but it still reaches over all but one of the walked blocks. Below
  // that every life begun in the first walked block ends inside the walked ones, measured as in
  // the full program, and the steady state repeats them; otherwise walk twice as many blocks.
  int64_t span = 0;
  for (int32_t walked = std::min(base->blocks, 12);; walked = std::min(base->blocks, 2 * walked)) {
    span = 0;
    for (const Life& life : LifeWalk(plan, ipu).run(shortened(program, *base, walked)).lives) {
      span = life.micro_batch >= 0 ? std::max<int64_t>(span, life.last_instr - life.first_instr) : span;
    }
    if (span < static_cast<int64_t>(walked - 1) * base->block || walked == base->blocks) {
      break;
    }
  }
  const int32_t per = static_cast<int32_t>(span / base->block) + 1;  // base blocks per fold block
  const Period period{base->lo, base->block * per, base->blocks / per, base->micro_batches * per,
                      base->timesteps * per};
  if (period.blocks <= kKept) {
    return std::nullopt;
  }
  Arena arena = LifeWalk(plan, ipu).run(shortened(program, period, kKept));
  for (const Life& life : arena.lives) {
    if (life.micro_batch >= 0 && life.last_instr - life.first_instr >= period.block) {
      return std::nullopt;  // a life longer than the block (the short walk did not see it): walk it all
    }
  }
  place_offline(arena, block_units(arena, period, kKept));
  settle_views(arena);
  arena.fold = ArenaFold{period.lo + 2 * period.block, period.block, period.blocks - kKept, period.micro_batches,
                         period.timesteps};
  arena.index();
  return arena;
}

}  // namespace

Arena assign_buffers(const Plan& plan, int32_t ipu) {
  const auto& program = plan.programs.ipus.at(static_cast<size_t>(ipu));
  if (std::optional<Arena> folded = assign_folded(plan, ipu, program)) {
    return std::move(*folded);
  }
  Arena arena = LifeWalk(plan, ipu).run(program);
  check_plan_deadline();
  // The offline placement packs tighter; past this many lives (long accumulations of big
  // models) its cost grows too fast and the online one takes over.
  constexpr size_t kOfflineLives = 5000;
  if (arena.lives.size() <= kOfflineLives) {
    place_offline(arena);
  } else {
    place_online(arena);
  }
  settle_views(arena);
  arena.index();
  return arena;
}


Arena walk_lives(const Plan& plan, int32_t ipu) {
  Arena arena = LifeWalk(plan, ipu).run(plan.programs.ipus.at(static_cast<size_t>(ipu)));
  arena.index();
  return arena;
}

int64_t host_scale(const Plan& plan) { return is_half(plan.decided.device.compute) ? 2 : 1; }

}  // namespace iputrain::planner
