// One liveness (planner/liveness.hpp): the helper's lives by hand on a small sequence; the op
// scheduler's live bytes, the buffer assignment's lives and the arena sweep the memory model and
// the engine read all agree with it; and the passes that need lives take them from it, with no
// last-use scan of their own.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "frontend/model_access.hpp"
#include "iputrain/config_loader.hpp"
#include "iputrain/model.hpp"
#include "planner/liveness.hpp"
#include "planner/op_order.hpp"
#include "planner/plan.hpp"
#include "planner/program.hpp"
#include "tests/planner/plan_from_config.hpp"
#include "tests/regex_util.hpp"

using namespace iputrain;
using namespace iputrain::planner;

namespace {

// Reshapes (views), a value read twice by one node, a value read by the next stage.
const char* kModel = R"(import nn
model m(batch: int = 4) {
  input x: f32[batch, 8]
  input y: i32[batch]
  stage a {
    h = nn.dense(x, 16, activation = relu)
    r = reshape(h, [batch, 4, 4])
    f = reshape(r * r, [batch, 16])
  }
  stage b {
    logits = nn.dense(f + h, 4)
    loss = mean(softmax_cross_entropy(logits, y))
  }
  minimize loss
  output loss
}
)";

Plan plan_for(const std::string& config) {
  const Model m = Model::parse(kModel);
  return make_plan(graph_of(m), config::parse(config));
}

const char* kConfigs[] = {
    "",
    "[ipu]\nauto_select_ipus = 2\n[pipeline]\ndevice_mapping = [0, 1]\ngradient_accumulation_count = 4\n",
    "[ipu]\nauto_select_ipus = 2\nallow_recompute = true\n[pipeline]\ndevice_mapping = [0, 1]\n"
    "schedule = \"interleaved\"\ngradient_accumulation_count = 4\n",
    "[ipu]\nauto_select_ipus = 2\n[pipeline]\ndevice_mapping = [0, 1]\nschedule = \"zero_bubble\"\n"
    "gradient_accumulation_count = 4\n",
};

std::string source(const std::string& path) {
  std::ifstream in(std::string(IPUTRAIN_SOURCE_DIR) + "/" + path);
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("liveness of a sequence: where each value is made, who reads it, its life") {
  using namespace ir;
  Graph g;
  g.stages = {{"s", {}, -1}};
  g.set_cursor(0, Phase::Forward);
  const ValueId x = g.add_input("x", {DType::F32, {4}});
  const ValueId a = g.add(OpKind::Exp, {x});
  const ValueId b = g.add(OpKind::Mul, {a, a});  // reads `a` twice: one reader
  const ValueId c = g.add(OpKind::Add, {a, x});
  const ValueId d = g.add(OpKind::Neg, {b});
  const Liveness live = liveness(g, {a, b, c, d});
  CHECK(live.made[static_cast<size_t>(a)] == 0);
  CHECK(live.made[static_cast<size_t>(x)] == -1);
  CHECK(live.readers[static_cast<size_t>(a)] == std::vector<int32_t>{1, 2});
  CHECK(live.readers[static_cast<size_t>(x)] == std::vector<int32_t>{0, 2});
  CHECK(live.span(a) == std::pair<int32_t, int32_t>{0, 2});
  CHECK(live.span(x) == std::pair<int32_t, int32_t>{0, 2});  // made elsewhere: from its first reader
  CHECK(live.span(b) == std::pair<int32_t, int32_t>{1, 3});
  CHECK(live.span(c) == std::pair<int32_t, int32_t>{2, 2});  // read by nobody: lives where it is made
  CHECK(live.last_reader(c) == -1);
  CHECK(live.first_reader(x) == 0);
  CHECK(live.last_reader(b) == 3);
}

TEST_CASE("the op scheduler's live bytes are the sum of the helper's lives at each step") {
  const Model m = Model::parse(kModel);
  const ir::Graph& g = graph_of(m);
  std::vector<ir::ValueId> roots;
  for (const auto& o : g.outputs) {
    roots.push_back(o.value);
  }
  const std::vector<ir::ValueId> program = live_program(g, roots);
  const Liveness whole = liveness(g, program);
  for (SchedulerAlgorithm alg : {SchedulerAlgorithm::PostOrder, SchedulerAlgorithm::Clustering,
                                 SchedulerAlgorithm::ShortestPath, SchedulerAlgorithm::LookAhead}) {
    const std::vector<ir::ValueId> ordered = order_ops(g, program, {alg, 3, 8, {}});
    std::map<std::pair<int32_t, int32_t>, std::vector<ir::ValueId>> groups;
    for (ir::ValueId id : ordered) {
      const ir::Node& n = g.node(id);
      if (!is_leaf(n)) {
        groups[{n.stage, static_cast<int32_t>(n.phase)}].push_back(id);
      }
    }
    for (const auto& [key, order] : groups) {
      CAPTURE(key.first);
      CAPTURE(key.second);
      // A value made in the group lives from its node to its last reader there; to the group's
      // end if a node of another group reads it or it is an output.
      const Liveness live = liveness(g, order);
      const std::set<ir::ValueId> members(order.begin(), order.end());
      std::vector<int64_t> bytes(order.size() + 1, 0);
      for (size_t k = 0; k < order.size(); ++k) {
        const ir::ValueId v = order[k];
        bool escapes = std::any_of(g.outputs.begin(), g.outputs.end(), [&](const auto& o) { return o.value == v; });
        for (int32_t pos : whole.readers[static_cast<size_t>(v)]) {
          escapes = escapes || members.count(program[static_cast<size_t>(pos)]) == 0;
        }
        const auto [first, last] = live.span(v);
        const int64_t size = static_cast<int64_t>(g.node(v).type.bytes());
        bytes[static_cast<size_t>(first)] += size;
        bytes[escapes ? order.size() : static_cast<size_t>(last) + 1] -= size;
      }
      int64_t now = 0;
      int64_t peak = 0;
      for (size_t k = 0; k < order.size(); ++k) {
        now += bytes[k];
        peak = std::max(peak, now);
      }
      CHECK(group_peak_bytes(g, order, program) == peak);
    }
  }
}

TEST_CASE("the buffer assignment's lives inside a task end at the helper's last readers") {
  for (const char* config : kConfigs) {
    CAPTURE(config);
    const Plan plan = plan_for(config);
    const ir::Graph& g = plan.graph;
    int32_t checked = 0;
    for (size_t ipu = 0; ipu < plan.programs.ipus.size(); ++ipu) {
      const Arena arena = walk_lives(plan, static_cast<int32_t>(ipu));
      const std::vector<Instr>& program = plan.programs.ipus[ipu];
      // The last tick of every life's reads through a view of it.
      std::map<int32_t, int64_t> viewed_to;
      for (const Life& life : arena.lives) {
        if (life.view_of >= 0) {
          int64_t& to = viewed_to[life.view_of];
          to = std::max(to, life.last_tick);
        }
      }
      for (const Life& life : arena.lives) {
        const Instr& in = program[static_cast<size_t>(life.first_instr)];
        if (life.temporary || life.from_outside || life.micro_batch < 0 || life.last_instr != life.first_instr ||
            in.kind == InstrKind::Send || in.kind == InstrKind::Recv || in.stage < 0 || life.value == g.loss) {
          continue;
        }
        const std::vector<ir::ValueId>& nodes = plan.programs.stages[static_cast<size_t>(in.stage)].nodes(in.kind);
        const Liveness live = liveness(g, nodes);
        const int32_t made = live.made[static_cast<size_t>(life.value)];
        if (made < 0 || life.to_accumulator) {
          continue;
        }
        const int64_t base = arena.instr_ticks[static_cast<size_t>(life.first_instr)];
        CHECK(life.first_tick == base + made);
        const auto index = static_cast<int32_t>(&life - arena.lives.data());
        const int64_t through_views = viewed_to.count(index) != 0 ? viewed_to[index] : 0;
        CHECK(life.last_tick == std::max(base + live.span(life.value).second, through_views));
        ++checked;
      }
    }
    CHECK(checked > 10);
  }
}

TEST_CASE("the arena sweep: bytes in use per instruction, the same for the memory model and the engine") {
  for (const char* config : kConfigs) {
    CAPTURE(config);
    const Plan plan = plan_for(config);
    for (size_t ipu = 0; ipu < plan.programs.arenas.size(); ++ipu) {
      const Arena& arena = plan.programs.arenas[ipu];
      const ArenaUse use = arena_use(arena);
      REQUIRE(use.rows.size() + 1 == arena.instr_ticks.size());
      int64_t peak = 0;
      for (size_t r = 0; r < use.rows.size(); ++r) {
        // By brute force: the lives that hold bytes at each tick of the instruction.
        int64_t most = -1;
        for (int64_t tick = arena.instr_ticks[r]; tick < arena.instr_ticks[r + 1]; ++tick) {
          int64_t live = 0;
          for (const Life& life : arena.lives) {
            live += life.first_tick <= tick && tick <= life.last_tick ? life.size : 0;
          }
          most = std::max(most, live);
        }
        CHECK(use.rows[r].most == most);
        int64_t acquire = 0;
        int64_t release = 0;
        for (const Life& life : arena.lives) {
          acquire += life.first_instr == static_cast<int32_t>(r) ? life.size : 0;
          release += life.last_instr == static_cast<int32_t>(r) ? life.size : 0;
        }
        CHECK(use.rows[r].acquire == acquire);
        CHECK(use.rows[r].release == release);
        peak = std::max(peak, most);
      }
      CHECK(plan.memory[ipu].activations_live == peak);
    }
  }
}

TEST_CASE("one liveness: the passes take lives from the helper and scan for no last use of their own") {
  // Who reads what and when a life ends is derived in planner/liveness.cpp only.
  const std::map<std::string, std::vector<std::string>> users = {
      {"planner/op_order.cpp", {"liveness(g, program)", "LiveSet live(", "peak_live_bytes("}},
      {"planner/auto_stage.cpp", {"liveness(g, seq.nodes)"}},
      {"planner/buffer_assignment.cpp", {"LiveRanges ranges_", "ranges_.read(", "ranges_.begin("}},
      {"planner/memory_model.cpp", {"arena_use("}},
      {"engine/cluster/memory_account.cpp", {"planner::arena_use("}},
  };
  // A count-down of readers, a max over read positions, a sum of life sizes per tick or instruction.
  const std::string own_scan =
      R"(last_use|first_use|remaining_\[|class LiveBytes|_(tick|instr)\s*=\s*std::max\(\s*[\w.]*_(tick|instr)\b|)"
      R"(change\[[^\]]*(first|last)_tick|\]\s*[+-]=\s*life\.size)";
  for (const auto& [path, calls] : users) {
    CAPTURE(path);
    const std::string text = source(path);
    CHECK(text.find("#include \"planner/liveness.hpp\"") != std::string::npos);
    for (const std::string& call : calls) {
      CAPTURE(call);
      CHECK(text.find(call) != std::string::npos);
    }
    const std::vector<std::string> scan = test_regex::search(text, own_scan);
    CAPTURE(scan.empty() ? std::string() : scan[0]);
    CHECK(scan.empty());
  }
  // The lint itself finds the scans it forbids, as they were written before the helper.
  CHECK(test_regex::found("std::vector<int32_t> last_use(n, -1);", own_scan));
  CHECK(test_regex::found("life.last_tick = std::max(life.last_tick, tick_);", own_scan));
  CHECK(test_regex::found("change[static_cast<size_t>(life.first_tick)] += life.size;", own_scan));
  CHECK(test_regex::found("own.acquire[first] += life.size;", own_scan));
  CHECK(test_regex::found("if (--remaining_[i] == 0 && !g_.escapes[i]) {", own_scan));
}
