// ipu.scheduling: the order of the ops inside each task. Every algorithm gives a valid order of
// the same nodes, the orders that keep a value's readers close lower the live bytes where the
// written order does not, and choose_best never plans more memory than the written order.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "iputrain/config.hpp"
#include "iputrain/model.hpp"
#include "planner/op_order.hpp"
#include "planner/plan.hpp"
#include "planner/program.hpp"
#include "frontend/model_access.hpp"

using namespace iputrain;
using namespace iputrain::planner;

namespace {

// Two large values computed before either is reduced: in the written order both are alive at once.
const char* kTwoBranches = R"(model t(batch: int = 4) {
  input x: f32[batch, 256]
  stage s {
    a = x * 2.0
    b = x * 3.0
    sa = mean(a)
    sb = mean(b)
    total = sa + sb
  }
  output total
}
)";

std::vector<ir::ValueId> group(const ir::Graph& g, const std::vector<ir::ValueId>& program) {
  std::vector<ir::ValueId> out;
  for (ir::ValueId id : program) {
    if (ir::op_def(g.node(id).op).forward != nullptr) {
      out.push_back(id);
    }
  }
  return out;
}

// Each node after its inputs, and the same nodes as `program`.
void check_valid(const ir::Graph& g, const std::vector<ir::ValueId>& program, const std::vector<ir::ValueId>& order) {
  CHECK(std::multiset<ir::ValueId>(program.begin(), program.end()) ==
        std::multiset<ir::ValueId>(order.begin(), order.end()));
  std::map<ir::ValueId, size_t> at;
  for (size_t k = 0; k < order.size(); ++k) {
    at[order[k]] = k;
  }
  for (ir::ValueId id : order) {
    for (ir::ValueId in : g.node(id).inputs) {
      if (at.count(in) != 0) {
        CHECK(at[in] < at[id]);
      }
    }
  }
}

}  // namespace

TEST_CASE("every algorithm orders the same nodes validly, and the readers-first ones lower the peak") {
  const Model m = Model::parse(kTwoBranches);
  const ir::Graph& g = graph_of(m);
  std::vector<ir::ValueId> roots;
  for (const auto& o : g.outputs) {
    roots.push_back(o.value);
  }
  const std::vector<ir::ValueId> program = live_program(g, roots);
  const int64_t written = group_peak_bytes(g, group(g, program), program);
  std::map<SchedulerAlgorithm, int64_t> peaks;
  for (SchedulerAlgorithm a : {SchedulerAlgorithm::ChooseBest, SchedulerAlgorithm::Clustering, SchedulerAlgorithm::PostOrder,
                               SchedulerAlgorithm::LookAhead, SchedulerAlgorithm::ShortestPath}) {
    CAPTURE(static_cast<int>(a));
    const std::vector<ir::ValueId> order = order_ops(g, program, {a, 5, 64, {}});
    check_valid(g, program, order);
    peaks[a] = group_peak_bytes(g, group(g, order), program);
  }
  // x * 2 and x * 3 are 4 KiB each: written, both are alive before either is reduced.
  CHECK(written >= 2 * 4096);
  CHECK(peaks[SchedulerAlgorithm::PostOrder] < written);
  CHECK(peaks[SchedulerAlgorithm::Clustering] < written);
  CHECK(peaks[SchedulerAlgorithm::LookAhead] < written);
  CHECK(peaks[SchedulerAlgorithm::ChooseBest] <= peaks[SchedulerAlgorithm::PostOrder]);
  // Depth 1 and one candidate at a time is the written order's greedy: no better than written here.
  const std::vector<ir::ValueId> myopic = order_ops(g, program, {SchedulerAlgorithm::LookAhead, 1, 1, {}});
  CHECK(group_peak_bytes(g, group(g, myopic), program) == written);
}
