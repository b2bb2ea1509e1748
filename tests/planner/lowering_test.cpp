// Golden per-IPU programs for every schedule, and the properties every lowering must have:
// each message sent once and received once, later; tasks once each, in dependency order; the
// weight update last; and no deadlock with the planned channel capacities under any interleaving.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "frontend/model_access.hpp"
#include "iputrain/config_loader.hpp"
#include "iputrain/model.hpp"
#include "planner/plan.hpp"
#include "tests/planner/plan_from_config.hpp"

using namespace iputrain;
using namespace iputrain::planner;

namespace {

// An MLP of `stages` stages (one dense layer each, the loss in the last).
std::string chain_model(int stages) {
  std::string body;
  std::string prev = "x";
  for (int s = 0; s < stages; ++s) {
    if (s + 1 < stages) {
      body += fmt::format("  stage s{} {{ h{} = nn.dense({}, 8, activation = relu) }}\n", s, s, prev);
      prev = fmt::format("h{}", s);
    } else {
      body += fmt::format(
          "  stage s{} {{\n    logits = nn.dense({}, 4)\n    loss = mean(softmax_cross_entropy(logits, y))\n  }}\n", s,
          prev);
    }
  }
  return fmt::format(
      "import nn\nmodel chain(batch: int = 2) {{\n  input x: f32[batch, 8]\n  input y: i32[batch]\n{}  minimize loss\n  "
      "output loss\n}}\n",
      body);
}

// Stage a, then b1 and b2 in parallel, then c (the seed's concurrent stages).
const char* kParallelModel = R"(import nn
model branches(batch: int = 2) {
  input x: f32[batch, 8]
  input y: i32[batch]
  stage a { h = nn.dense(x, 8, activation = relu) }
  parallel {
    stage b1 { p = nn.dense(h, 4) }
    stage b2 { q = nn.dense(h, 4) }
  }
  stage c {
    logits = nn.dense(concat([p, q], axis = -1), 4)
    loss = mean(softmax_cross_entropy(logits, y))
  }
  minimize loss
  output loss
}
)";

Plan plan_for(const std::string& model, const std::string& config) {
  const Model m = Model::parse(model);
  return make_plan(graph_of(m), config::parse(config));
}

std::string programs_text(const Plan& plan) {
  std::string out;
  for (size_t ipu = 0; ipu < plan.programs.ipus.size(); ++ipu) {
    out += fmt::format("ipu {}:", ipu);
    int32_t step = -1;
    for (const Instr& in : plan.programs.ipus[ipu]) {
      if (in.timestep != step) {
        step = in.timestep;
        out += fmt::format("\n  t{}:", step);
      }
      out += " " + in.str(plan.programs) + ";";
    }
    out += "\n";
  }
  for (const Channel& c : plan.programs.channels) {
    out += fmt::format("channel {}->{} capacity {}\n", c.from, c.to, c.capacity);
  }
  return out;
}

// Every message has one Send (on its sender, earlier) and one Recv (on its receiver, later); every
// task runs once; a stage's backward follows its forward; accumulation goes in micro-batch order;
// the update closes every program.
void check_properties(const Plan& plan) {
  const auto& p = plan.programs;
  std::vector<int> sends(p.messages.size(), 0), recvs(p.messages.size(), 0);
  std::vector<int32_t> sent_at(p.messages.size(), -1), received_at(p.messages.size(), -1);
  const int64_t A = plan.decided.accumulation_count;
  for (size_t ipu = 0; ipu < p.ipus.size(); ++ipu) {
    std::map<std::pair<int, int64_t>, int> forward, backward;
    std::map<int, int64_t> last_acc;
    int32_t step = 0;
    const auto& prog = p.ipus[ipu];
    REQUIRE(!prog.empty());
    CHECK(prog.back().kind == InstrKind::UpdateWeights);
    for (size_t i = 0; i < prog.size(); ++i) {
      const Instr& in = prog[i];
      CHECK(in.timestep >= step);
      step = in.timestep;
      switch (in.kind) {
        case InstrKind::Send:
          CHECK(p.messages[static_cast<size_t>(in.message)].from == static_cast<int32_t>(ipu));
          ++sends[static_cast<size_t>(in.message)];
          sent_at[static_cast<size_t>(in.message)] = in.timestep;
          break;
        case InstrKind::Recv:
          CHECK(p.messages[static_cast<size_t>(in.message)].to == static_cast<int32_t>(ipu));
          ++recvs[static_cast<size_t>(in.message)];
          received_at[static_cast<size_t>(in.message)] = in.timestep;
          break;
        case InstrKind::Forward: ++forward[{in.stage, in.micro_batch}]; break;
        case InstrKind::Backward:
          CHECK(forward.count({in.stage, in.micro_batch}) == 1);
          ++backward[{in.stage, in.micro_batch}];
          break;
        case InstrKind::Accumulate:
          if (last_acc.count(in.stage) != 0) {
            CHECK(in.micro_batch == last_acc[in.stage] + 1);
          }
          last_acc[in.stage] = in.micro_batch;
          break;
        default: break;
      }
    }
    for (const auto& [key, n] : forward) {
      CHECK(n == 1);
      CHECK(backward[key] == 1);
      CHECK(key.second < A);
    }
  }
  for (size_t k = 0; k < p.messages.size(); ++k) {
    CHECK(sends[k] == 1);
    CHECK(recvs[k] == 1);
    CHECK(sent_at[k] < received_at[k]);
  }
}

// Runs the programs of one replica with blocking channels of the planned capacities, choosing
// which IPU steps next with `seed` (0 = round robin); true if every program finishes.
bool runs_without_deadlock(const Plan& plan, unsigned seed) {
  const auto& p = plan.programs;
  std::map<std::pair<int32_t, int32_t>, int32_t> capacity;
  for (const Channel& c : p.channels) {
    capacity[{c.from, c.to}] = c.capacity;
  }
  std::map<std::pair<int32_t, int32_t>, std::set<int32_t>> in_flight;
  std::vector<size_t> pc(p.ipus.size(), 0);
  std::mt19937 rng(seed);
  size_t turn = 0;
  while (true) {
    std::vector<size_t> ready;
    bool all_done = true;
    for (size_t ipu = 0; ipu < p.ipus.size(); ++ipu) {
      if (pc[ipu] >= p.ipus[ipu].size()) {
        continue;
      }
      all_done = false;
      const Instr& in = p.ipus[ipu][pc[ipu]];
      if (in.kind == InstrKind::Send) {
        const Message& msg = p.messages[static_cast<size_t>(in.message)];
        if (static_cast<int32_t>(in_flight[{msg.from, msg.to}].size()) >= capacity[{msg.from, msg.to}]) {
          continue;
        }
      } else if (in.kind == InstrKind::Recv) {
        const Message& msg = p.messages[static_cast<size_t>(in.message)];
        if (in_flight[{msg.from, msg.to}].count(in.message) == 0) {
          continue;
        }
      }
      ready.push_back(ipu);
    }
    if (all_done) {
      return true;
    }
    if (ready.empty()) {
      return false;
    }
    const size_t ipu = seed == 0 ? ready[turn++ % ready.size()] : ready[rng() % ready.size()];
    const Instr& in = p.ipus[ipu][pc[ipu]++];
    if (in.kind == InstrKind::Send || in.kind == InstrKind::Recv) {
      const Message& msg = p.messages[static_cast<size_t>(in.message)];
      auto& flight = in_flight[{msg.from, msg.to}];
      if (in.kind == InstrKind::Send) {
        flight.insert(in.message);
      } else {
        flight.erase(in.message);
      }
    }
  }
}

struct Case {
  std::string name;
  std::string model;
  std::string config;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (int stages : {2, 3, 4}) {
    for (const char* schedule : {"grouped", "interleaved", "sequential", "zero_bubble"}) {
      const int64_t unit = std::string(schedule) == "grouped"      ? 2 * stages
                           : std::string(schedule) == "sequential" ? 1
                                                                   : stages;  // interleaved, zero_bubble
      for (int64_t times : {1, 2}) {
        const int64_t count = std::string(schedule) == "sequential" ? 2 * times : unit * times;
        out.push_back({fmt::format("{} stages, {}, accumulation {}", stages, schedule, count), chain_model(stages),
                       fmt::format("[ipu]\nauto_select_ipus = {}\n[pipeline]\nschedule = \"{}\"\n"
                                   "gradient_accumulation_count = {}\n",
                                   stages, schedule, count)});
      }
    }
  }
  out.push_back({"concurrent stages, grouped, accumulation 6", kParallelModel,
                 "[ipu]\nauto_select_ipus = 4\n[pipeline]\ndevice_mapping = [0, [1, 2], 3]\n"
                 "gradient_accumulation_count = 6\n"});
  out.push_back({"two stages on one IPU, grouped, accumulation 6", chain_model(3),
                 "[ipu]\nauto_select_ipus = 2\n[pipeline]\ndevice_mapping = [0, 1, 0]\n"
                 "gradient_accumulation_count = 6\n"});
  out.push_back({"two stages per IPU, grouped, accumulation 8", chain_model(4),
                 "[ipu]\nauto_select_ipus = 2\n[pipeline]\ndevice_mapping = [0, 0, 1, 1]\n"
                 "gradient_accumulation_count = 8\n"});
  out.push_back({"recomputation, grouped, accumulation 4", chain_model(2),
                 "[ipu]\nauto_select_ipus = 2\nallow_recompute = true\n[pipeline]\ngradient_accumulation_count = 4\n"});
  out.push_back({"recomputation, sequential, accumulation 2", chain_model(2),
                 "[ipu]\nauto_select_ipus = 2\nallow_recompute = true\n[pipeline]\nschedule = \"sequential\"\n"
                 "gradient_accumulation_count = 2\n"});
  out.push_back(
      {"3 stages, zero_bubble, accumulation 4", chain_model(3),
       "[ipu]\nauto_select_ipus = 3\n[pipeline]\nschedule = \"zero_bubble\"\ngradient_accumulation_count = 4\n"});
  out.push_back({"recomputation, zero_bubble, accumulation 2", chain_model(2),
                 "[ipu]\nauto_select_ipus = 2\nallow_recompute = true\n[pipeline]\nschedule = \"zero_bubble\"\n"
                 "gradient_accumulation_count = 2\n"});
  out.push_back({"2 stages x 2 replicas, grouped, accumulation 4", chain_model(2),
                 "[ipu]\nauto_select_ipus = 4\n[pipeline]\ngradient_accumulation_count = 4\n"});
  out.push_back({"data parallel, 2 replicas, accumulation 2", chain_model(1),
                 "[ipu]\nauto_select_ipus = 2\n[pipeline]\ngradient_accumulation_count = 2\n"});
  return out;
}

}  // namespace

TEST_CASE("lowering: golden per-IPU programs") {
  std::string actual;
  for (const Case& c : cases()) {
    const Plan plan = plan_for(c.model, c.config);
    actual += fmt::format("## {}\n{}\n", c.name, programs_text(plan));
  }
  const char* path = "golden/lowering.txt";
  if (std::getenv("IPUTRAIN_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << actual;
  }
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "missing ", path, " (run with IPUTRAIN_UPDATE_GOLDEN=1 to create it)");
  std::stringstream expected;
  expected << in.rdbuf();
  CHECK(actual == expected.str());
}

TEST_CASE("lowering: every case keeps the program properties and never deadlocks") {
  for (const Case& c : cases()) {
    CAPTURE(c.name);
    const Plan plan = plan_for(c.model, c.config);
    check_properties(plan);
    for (unsigned seed = 0; seed < 20; ++seed) {
      CHECK(runs_without_deadlock(plan, seed));
    }
  }
}

TEST_CASE("lowering: grouped keeps more micro-batches of activations than interleaved") {
  // The most micro-batches' copies of one value alive at one tick of IPU 0.
  auto most_slots = [](const Plan& plan) {
    std::map<ir::ValueId, std::map<int64_t, int32_t>> change;  // value -> tick -> lives begun - ended
    for (const Life& life : plan.programs.arenas[0].lives) {
      change[life.value][life.first_tick] += 1;
      change[life.value][life.last_tick + 1] -= 1;
    }
    int32_t most = 0;
    for (const auto& [value, deltas] : change) {
      int32_t live = 0;
      for (const auto& [tick, delta] : deltas) {
        live += delta;
        most = std::max(most, live);
      }
    }
    return most;
  };
  const std::string model = chain_model(4);
  const Plan grouped = plan_for(model, "[ipu]\nauto_select_ipus = 4\n[pipeline]\ngradient_accumulation_count = 8\n");
  const Plan interleaved = plan_for(
      model, "[ipu]\nauto_select_ipus = 4\n[pipeline]\nschedule = \"interleaved\"\ngradient_accumulation_count = 8\n");
  // The first stage's backward comes 2S - 1 = 7 timesteps after its forward under grouped (the
  // oldest micro-batch's backward runs before the newest's forward in that timestep, so 7 copies),
  // and every other timestep holds a forward under interleaved: S = 4 copies.
  CHECK(most_slots(grouped) == 7);
  CHECK(most_slots(interleaved) == 4);
}

TEST_CASE("lowering: recomputation stashes the stage inputs only and re-runs the rest") {
  const std::string model = chain_model(2);
  const Plan plain = plan_for(model, "[ipu]\nauto_select_ipus = 2\n[pipeline]\ngradient_accumulation_count = 4\n");
  const Plan recompute =
      plan_for(model, "[ipu]\nauto_select_ipus = 2\nallow_recompute = true\n[pipeline]\ngradient_accumulation_count = 4\n");
  const auto& s0 = recompute.programs.stages[0];
  CHECK(plain.programs.stages[0].recompute.empty());
  CHECK(!s0.recompute.empty());
  CHECK(s0.stash.size() < plain.programs.stages[0].stash.size());
  CHECK(recompute.memory[0].activations_live < plain.memory[0].activations_live);
}

TEST_CASE("lowering: the canonical tree's partial sums") {
  CHECK(tree_stack_depth(0, 1) == 1);
  CHECK(tree_stack_depth(0, 2) == 1);
  CHECK(tree_stack_depth(0, 3) == 2);
  CHECK(tree_stack_depth(0, 8) == 3);  // after 7 leaves: blocks of 4, 2, 1
  CHECK(tree_stack_depth(0, 16) == 4);
  CHECK(tree_stack_depth(2, 4) == 2);  // leaves 2..5: [2,4) then 4, 5 -> [2,4) [4,6)
}

TEST_CASE("lowering: recomputation checkpoints are stashed under recompute_and_backpropagate_interleaved only") {
  const char* model = R"(import nn
model ck(batch: int = 2) {
  input x: f32[batch, 8]
  input y: i32[batch]
  stage a {
    h = recomputation_checkpoint(nn.dense(x, 8, activation = relu))
    k = nn.dense(h, 8, activation = relu)
  }
  stage b {
    logits = nn.dense(k, 4)
    loss = mean(softmax_cross_entropy(logits, y))
  }
  minimize loss
}
)";
  auto checkpoint_of = [](const Plan& plan) {
    for (ir::ValueId id : plan.programs.stages[0].forward) {
      if (plan.graph.node(id).op == ir::OpKind::RecomputationCheckpoint) {
        return id;
      }
    }
    return ir::kNoValue;
  };
  auto contains = [](const std::vector<ir::ValueId>& list, ir::ValueId v) {
    return std::find(list.begin(), list.end(), v) != list.end();
  };
  const Plan interleaved = plan_for(model,
                                    "[ipu]\nauto_select_ipus = 2\nallow_recompute = true\n[pipeline]\n"
                                    "recomputation_mode = \"recompute_and_backpropagate_interleaved\"\n");
  const ir::ValueId ck = checkpoint_of(interleaved);
  REQUIRE(ck != ir::kNoValue);
  CHECK(contains(interleaved.programs.stages[0].stash, ck));
  CHECK(!contains(interleaved.programs.stages[0].recompute, ck));
  const Plan then = plan_for(model, "[ipu]\nauto_select_ipus = 2\nallow_recompute = true\n");
  CHECK(contains(then.programs.stages[0].recompute, checkpoint_of(then)));
  CHECK(then.programs.stages[0].recompute.size() > interleaved.programs.stages[0].recompute.size());
}

TEST_CASE("lowering: interleaved recomputation rebuilds one checkpoint segment at a time") {
  // Stage a: four blocks widening to 512 with dropout and back to 64, a checkpoint after each;
  // stage b: the loss. The wide values inside a block outweigh the narrow checkpoints.
  std::string layers;
  for (int i = 0; i < 4; ++i) {
    layers += "    h = recomputation_checkpoint(nn.dense(nn.dropout(nn.dense(h, 512, activation = relu), 0.1), 64))\n";
  }
  const std::string model = "import nn\nmodel deep(batch: int = 16) {\n  input x: f32[batch, 64]\n  input y: i32[batch]\n"
                            "  stage a {\n    h = x\n" + layers +
                            "  }\n  stage b {\n    loss = mean(softmax_cross_entropy(nn.dense(h, 4), y))\n  }\n"
                            "  minimize loss\n  output loss\n}\n";
  const std::string base = "[ipu]\nauto_select_ipus = 2\nallow_recompute = true\n[pipeline]\ngradient_accumulation_count = 4\n";
  const Plan whole = plan_for(model, base + "recomputation_mode = \"recompute_then_backpropagate\"\n");
  const Plan segments = plan_for(model, base + "recomputation_mode = \"recompute_and_backpropagate_interleaved\"\n");
  const auto& s0 = segments.programs.stages[0];
  // No separate Recompute task: the backward list rebuilds what it needs as it goes.
  CHECK(s0.recompute.empty());
  CHECK(!whole.programs.stages[0].recompute.empty());
  CHECK(s0.backward.size() > whole.programs.stages[0].backward.size());
  // Neither keeps a dropout mask from the forward to the backward: masks are rebuilt from the seed.
  for (const Plan* p : {&whole, &segments}) {
    for (ir::ValueId v : p->programs.stages[0].stash) {
      CHECK(p->graph.node(v).op != ir::OpKind::DropoutMask);
    }
  }
  // Only one segment's rebuilt values are live at a time.
  CHECK(segments.memory[0].activations_live < whole.memory[0].activations_live);
}

namespace {

// Every life of the whole program, at the offset the folded arena gives it: none may overlap
// another in time and memory, and each keeps one offset from its first instruction to its last.
void check_fold_valid(const Plan& plan, int32_t ipu) {
  const Arena& arena = plan.programs.arenas.at(static_cast<size_t>(ipu));
  const Arena full = walk_lives(plan, ipu);
  struct Placed {
    int64_t first, last, offset, size;
    const Life* life;
    int32_t walked;
  };
  std::vector<Placed> placed;
  for (const Life& life : full.lives) {
    const int32_t at_first = arena.find(life.value, life.micro_batch, life.first_instr, life.temporary);
    const int32_t at_last = arena.find(life.value, life.micro_batch, life.last_instr, life.temporary);
    REQUIRE(at_first >= 0);
    REQUIRE(at_last >= 0);
    const Life& a = arena.lives[static_cast<size_t>(at_first)];
    CHECK(a.size == life.size);
    CHECK(arena.lives[static_cast<size_t>(at_last)].offset == a.offset);
    CHECK(a.offset + a.size <= arena.bytes);
    placed.push_back({life.first_tick, life.last_tick, a.offset, a.size, &life, at_first});
  }
  std::sort(placed.begin(), placed.end(), [](const Placed& x, const Placed& y) { return x.first < y.first; });
  std::multimap<int64_t, const Placed*> active;  // by offset
  int64_t conflicts = 0;
  for (const Placed& p : placed) {
    for (auto it = active.begin(); it != active.end();) {
      it = it->second->last < p.first ? active.erase(it) : std::next(it);
    }
    for (const auto& [offset, q] : active) {
      const bool clash = q->offset < p.offset + p.size && p.offset < q->offset + q->size;
      if (clash && conflicts == 0) {
        auto str = [&](const Placed& x) {
          const Life& r = arena.lives[static_cast<size_t>(x.walked)];
          return fmt::format("%{} m{} [{}..{}] walked m{} [{}..{}] at {} size {}", x.life->value, x.life->micro_batch,
                             x.life->first_instr, x.life->last_instr, r.micro_batch, r.first_instr, r.last_instr,
                             x.offset, x.size);
        };
        MESSAGE(fmt::format("split {} block {} copies {}: {} clashes with {}", arena.fold.split, arena.fold.block,
                            arena.fold.copies, str(p), str(*q)));
      }
      conflicts += clash ? 1 : 0;
    }
    active.emplace(p.offset, &p);
  }
  CHECK(conflicts == 0);
}

}  // namespace

TEST_CASE("buffers: a long steady state is walked once, folded, and valid for the whole program") {
  const std::string model = chain_model(4);
  for (const char* schedule : {"grouped", "interleaved", "sequential"}) {
    for (const char* recompute : {"", "allow_recompute = true\n"}) {
      const std::string name = std::string(schedule) + (recompute[0] != 0 ? " with recomputation" : "");
      CAPTURE(name);
      const Plan plan = plan_for(model, fmt::format("[ipu]\nauto_select_ipus = 4\n{}[pipeline]\nschedule = \"{}\"\n"
                                                    "gradient_accumulation_count = 400\n",
                                                    recompute, schedule));
      int folded = 0;
      for (int32_t ipu = 0; ipu < 4; ++ipu) {
        const Arena& arena = plan.programs.arenas[static_cast<size_t>(ipu)];
        CHECK(arena.instructions() == plan.programs.ipus[static_cast<size_t>(ipu)].size());
        if (arena.fold.block > 0) {
          ++folded;
          CAPTURE(ipu);
          CHECK(arena.fold.copies * arena.fold.micro_batches > 300);  // most of the 400 micro-batches are not walked
          check_fold_valid(plan, ipu);
        }
      }
      CHECK(folded == 4);
    }
  }
}

