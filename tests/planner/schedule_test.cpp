#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/pipeline_schedules/layout_rules.hpp"
#include "iputrain/error.hpp"
#include "planner/timeline.hpp"

using namespace iputrain;
using namespace iputrain::planner;

namespace {

// Busy (ipu, timestep) slots over all slots when every task costs one unit: 1 - bubble.
double occupancy(const Timeline& t) {
  int64_t work = 0;
  int64_t span = 0;
  size_t ipus = 0;
  for (const auto& step : t.steps) {
    size_t busiest = 0;
    ipus = std::max(ipus, step.size());
    for (const auto& tasks : step) {
      work += static_cast<int64_t>(tasks.size());
      busiest = std::max(busiest, tasks.size());
    }
    span += static_cast<int64_t>(busiest);
  }
  return static_cast<double>(work) / static_cast<double>(span * static_cast<int64_t>(ipus));
}

// A pipeline of `n` single-stage positions, stage i on IPU i.
Pipeline chain(int32_t n) {
  Pipeline p;
  for (int32_t i = 0; i < n; ++i) {
    p.positions.push_back({i});
    p.stage_ipu.push_back(i);
  }
  p.ipus_per_replica = n;
  return p;
}

// Timestep of every (position, phase, micro-batch); checks each runs exactly once.
std::map<std::tuple<int32_t, int, int64_t>, int64_t> when(const Timeline& t) {
  std::map<std::tuple<int32_t, int, int64_t>, int64_t> at;
  for (int64_t step = 0; step < t.timesteps(); ++step) {
    for (const auto& tasks : t.steps[static_cast<size_t>(step)]) {
      for (const Task& task : tasks) {
        auto key = std::make_tuple(task.position, static_cast<int>(task.phase), task.micro_batch);
        CHECK(at.count(key) == 0);
        at[key] = step;
      }
    }
  }
  return at;
}

constexpr int kF = static_cast<int>(Work::Forward);
constexpr int kB = static_cast<int>(Work::Backward);
constexpr int kW = static_cast<int>(Work::BackwardWeights);

// `phases` tasks per position and micro-batch: 2 (F, B), or 3 when the backward is split (F, B, W).
void check_dependencies(const Pipeline& p, const Timeline& t, int phases = 2) {
  const auto at = when(t);
  const auto n = static_cast<int32_t>(p.positions.size());
  CHECK(at.size() == static_cast<size_t>(phases * n * t.micro_batches));
  for (int64_t m = 0; m < t.micro_batches; ++m) {
    for (int32_t i = 0; i + 1 < n; ++i) {
      CHECK(at.at({i, kF, m}) < at.at({i + 1, kF, m}));  // forward flows down the pipeline
      CHECK(at.at({i + 1, kB, m}) < at.at({i, kB, m}));  // backward flows back up
    }
    CHECK(at.at({n - 1, kF, m}) < at.at({n - 1, kB, m}));
    for (int32_t i = 0; i < n && phases == 3; ++i) {
      CHECK(at.at({i, kB, m}) < at.at({i, kW, m}));  // a weight-gradient pass follows its backward
    }
  }
}

}  // namespace

TEST_CASE("grouped: every position busy each timestep once the pipeline is full") {
  const Pipeline p = chain(2);
  const Timeline t = make_timeline(p, ScheduleKind::Grouped, 4, true);
  CHECK(t.timesteps() == 4 - 1 + 4);
  check_dependencies(p, t);
  // Timestep 3: IPU 0 runs B0 of micro-batch 0 and F of micro-batch 3.
  CHECK(t.steps[3][0].size() == 2);
  CHECK(timeline_str(p, t) ==
        "IPU 0  |F0   |F1   |F2   |B0F3 |B1   |B2   |B3   |\n"
        "IPU 1  |.    |F0   |B0F1 |B1F2 |B2F3 |B3   |.    |\n");
}

TEST_CASE("interleaved: an IPU never runs forward and backward in the same timestep") {
  const Pipeline p = chain(3);
  const Timeline t = make_timeline(p, ScheduleKind::Interleaved, 6, true);
  check_dependencies(p, t);
  for (const auto& step : t.steps) {
    for (const auto& tasks : step) {
      CHECK(tasks.size() <= 1);
    }
  }
}

TEST_CASE("sequential: one task at a time") {
  const Pipeline p = chain(3);
  const Timeline t = make_timeline(p, ScheduleKind::Sequential, 2, true);
  check_dependencies(p, t);
  CHECK(t.timesteps() == 12);
  for (const auto& step : t.steps) {
    size_t busy = 0;
    for (const auto& tasks : step) {
      busy += tasks.size();
    }
    CHECK(busy == 1);
  }
  CHECK(analytic_bubble(p, ScheduleKind::Sequential, 2, true) == doctest::Approx(2.0 / 3.0));
}

TEST_CASE("exactly one schedule row is unpipelined, and it runs one task at a time") {
  int unpipelined = 0;
  for (const pipeline_schedules::ScheduleDef* def : pipeline_schedules::schedule_table()) {
    unpipelined += def->unpipelined ? 1 : 0;
  }
  CHECK(unpipelined == 1);
  const pipeline_schedules::ScheduleDef& none = pipeline_schedules::unpipelined_schedule();
  CHECK(none.unpipelined);
  CHECK(none.timesteps_in_turn);
  CHECK(none.name == "sequential");
}

TEST_CASE("accumulation counts follow each schedule's rule") {
  const Pipeline p = chain(2);
  CHECK(required_accumulation_multiple(p, ScheduleKind::Grouped, true) == 4);
  CHECK(required_accumulation_multiple(p, ScheduleKind::Grouped, false) == 2);
  CHECK(required_accumulation_multiple(p, ScheduleKind::Interleaved, true) == 2);
  CHECK(required_accumulation_multiple(p, ScheduleKind::Sequential, true) == 1);
  // The rule as the place pass checks it (core/pipeline_schedules/layout_rules.hpp).
  const auto grouped = pipeline_schedules::accumulation_breach(schedule_def(ScheduleKind::Grouped), 6, 2, 2, true);
  REQUIRE(grouped);
  CHECK(grouped->keys == std::vector<std::string>{"pipeline.gradient_accumulation_count"});
  CHECK(grouped->message.find("multiple of 4") != std::string::npos);
  CHECK(grouped->hint.find("use 8 (or another multiple of it)") != std::string::npos);
  CHECK_FALSE(pipeline_schedules::accumulation_breach(schedule_def(ScheduleKind::Sequential), 3, 2, 1, true));
  CHECK_FALSE(pipeline_schedules::accumulation_breach(schedule_def(ScheduleKind::Grouped), 0, 2, 2, true));  // unset
  CHECK_NOTHROW(make_timeline(p, ScheduleKind::Sequential, 3, true));
}

TEST_CASE("interleaved training refuses two positions on one IPU, a parallel block's stages may share it") {
  const std::vector<std::vector<int64_t>> shared = {{0}, {0}};
  CHECK(pipeline_schedules::sharing_breach(schedule_def(ScheduleKind::Interleaved), shared));
  CHECK_FALSE(pipeline_schedules::sharing_breach(schedule_def(ScheduleKind::Grouped), shared));
  CHECK_FALSE(pipeline_schedules::sharing_breach(schedule_def(ScheduleKind::Interleaved), {{0, 0}, {1}}));
  Pipeline p = chain(2);
  p.stage_ipu = {0, 0};
  p.ipus_per_replica = 1;
  CHECK_NOTHROW(make_timeline(p, ScheduleKind::Grouped, 4, true));
}

TEST_CASE("bubble shrinks as micro-batches grow") {
  const Pipeline p = chain(4);
  const double few = 1.0 - occupancy(make_timeline(p, ScheduleKind::Grouped, 8, true));
  const double many = 1.0 - occupancy(make_timeline(p, ScheduleKind::Grouped, 64, true));
  CHECK(many < few);
  CHECK(analytic_bubble(p, ScheduleKind::Grouped, 8, true) == doctest::Approx(3.0 / 11.0));
}

TEST_CASE("zero_bubble: the bubble of equal tasks is (P - 1) / (3M + P - 1), a third of 1F1B's") {
  for (int32_t positions : {1, 2, 3, 4, 6, 8}) {
    for (int64_t per : {1, 2, 3, 5}) {
      const int64_t m = positions * per + (per == 5 ? 1 : 0);  // at least P, any count
      CAPTURE(positions);
      CAPTURE(m);
      const Pipeline p = chain(positions);
      const Timeline t = make_timeline(p, ScheduleKind::ZeroBubble, m, true);
      check_dependencies(p, t, 3);
      for (const auto& step : t.steps) {
        for (const auto& tasks : step) {
          CHECK(tasks.size() <= 1);  // one task per IPU per timestep
        }
      }
      const double analytic = analytic_bubble(p, ScheduleKind::ZeroBubble, m, true);
      CHECK(analytic ==
            doctest::Approx(static_cast<double>(positions - 1) / static_cast<double>(3 * m + positions - 1)));
      CHECK(1.0 - occupancy(t) == doctest::Approx(analytic));
      CHECK(t.timesteps() == 3 * m + positions - 1);
      // The memory rule: no position holds more than P micro-batches (from F to W).
      for (int32_t i = 0; i < positions; ++i) {
        int64_t live = 0;
        int64_t most = 0;
        for (const auto& step : t.steps) {
          for (const Task& task : step[static_cast<size_t>(i)]) {
            live += task.phase == Work::Forward ? 1 : task.phase == Work::BackwardWeights ? -1 : 0;
            most = std::max(most, live);
          }
        }
        CHECK(most == std::min<int64_t>(m, positions));
        CHECK(schedule_def(ScheduleKind::ZeroBubble).in_flight(p, i, m) == most);
      }
    }
  }
}

TEST_CASE("zero_bubble: the ZB-H1 order of 4 positions and 8 micro-batches") {
  const Pipeline p = chain(4);
  const std::string expected =
      "IPU 0  |F0   |F1   |F2   |F3   |.    |.    |.    |B0   |W0   |F4   |B1   |W1   |F5   |B2   |W2   |F6   |B3   "
      "|W3   |F7   |B4   |W4   |B5   |W5   |B6   |W6   |B7   |W7   |\n"
      "IPU 1  |.    |F0   |F1   |F2   |.    |.    |B0   |F3   |B1   |W0   |F4   |B2   |W1   |F5   |B3   |W2   |F6   "
      "|B4   |W3   |F7   |B5   |W4   |B6   |W5   |B7   |W6   |W7   |\n"
      "IPU 2  |.    |.    |F0   |F1   |.    |B0   |F2   |B1   |F3   |B2   |W0   |F4   |B3   |W1   |F5   |B4   |W2   "
      "|F6   |B5   |W3   |F7   |B6   |W4   |B7   |W5   |W6   |W7   |\n"
      "IPU 3  |.    |.    |.    |F0   |B0   |F1   |B1   |F2   |B2   |F3   |B3   |W0   |F4   |B4   |W1   |F5   |B5   "
      "|W2   |F6   |B6   |W3   |F7   |B7   |W4   |W5   |W6   |W7   |\n";
  CHECK(timeline_str(p, make_timeline(p, ScheduleKind::ZeroBubble, 8, true)) == expected);
}

TEST_CASE("zero_bubble: its rules come from its definition") {
  const Pipeline p = chain(3);
  CHECK(schedule_def(ScheduleKind::ZeroBubble).splits_backward);
  CHECK(find_schedule("zero_bubble") == &schedule_def(ScheduleKind::ZeroBubble));
  CHECK(required_accumulation_multiple(p, ScheduleKind::ZeroBubble, true) == 3);
  const ScheduleDef& zb = schedule_def(ScheduleKind::ZeroBubble);
  CHECK_FALSE(pipeline_schedules::accumulation_breach(zb, 4, 3, 3, true));  // any count from P up
  CHECK_NOTHROW(make_timeline(p, ScheduleKind::ZeroBubble, 4, true));
  const auto few = pipeline_schedules::accumulation_breach(zb, 2, 3, 3, true);
  REQUIRE(few);
  CHECK(few->message.find("needs at least 3") != std::string::npos);
  CHECK(few->hint.find("use 3 or more") != std::string::npos);
  CHECK(pipeline_schedules::sharing_breach(zb, {{0}, {0}}));
  // Inference runs the forwards only, any count.
  const Timeline forwards = make_timeline(p, ScheduleKind::ZeroBubble, 2, false);
  CHECK(forwards.timesteps() == 2 + 3 - 1);
}

TEST_CASE("zero_bubble_h2: the same idle share as ZB-H1 with a longer warm-up, holding 2P - 1 - i at position i") {
  for (int32_t positions : {1, 2, 3, 4, 6, 8}) {
    for (int64_t per : {1, 2, 3, 5}) {
      const int64_t m = positions * per + (per == 5 ? 1 : 0);
      CAPTURE(positions);
      CAPTURE(m);
      const Pipeline p = chain(positions);
      const Timeline t = make_timeline(p, ScheduleKind::ZeroBubbleH2, m, true);
      check_dependencies(p, t, 3);
      const double analytic = analytic_bubble(p, ScheduleKind::ZeroBubbleH2, m, true);
      CHECK(1.0 - occupancy(t) == doctest::Approx(analytic));
      CHECK(t.timesteps() == 3 * m + positions - 1);
      for (int32_t i = 0; i < positions; ++i) {
        int64_t live = 0;
        int64_t most = 0;
        int64_t warm = 0;  // forwards before the first backward
        bool backward_seen = false;
        for (const auto& step : t.steps) {
          for (const Task& task : step[static_cast<size_t>(i)]) {
            backward_seen = backward_seen || task.phase == Work::Backward;
            warm += task.phase == Work::Forward && !backward_seen ? 1 : 0;
            live += task.phase == Work::Forward ? 1 : task.phase == Work::BackwardWeights ? -1 : 0;
            most = std::max(most, live);
          }
        }
        CHECK(warm == std::min<int64_t>(m, 2 * (positions - i) - 1));
        CHECK(most == std::min<int64_t>(m, 2 * positions - 1 - i));
        CHECK(schedule_def(ScheduleKind::ZeroBubbleH2).in_flight(p, i, m) == most);
      }
    }
  }
  CHECK(find_schedule("zero_bubble_h2") == &schedule_def(ScheduleKind::ZeroBubbleH2));
  CHECK(schedule_def(ScheduleKind::ZeroBubbleH2).splits_backward);
  CHECK(pipeline_schedules::accumulation_breach(schedule_def(ScheduleKind::ZeroBubbleH2), 2, 3, 3, true));
}

TEST_CASE("zero_bubble_h2: the order of 4 positions and 8 micro-batches") {
  const Pipeline p = chain(4);
  const std::string got = timeline_str(p, make_timeline(p, ScheduleKind::ZeroBubbleH2, 8, true));
  // IPU 0 runs seven forwards before its first backward, IPU 3 one.
  CHECK(got.rfind("IPU 0  |F0   |F1   |F2   |F3   |F4   |F5   |F6   |B0   |", 0) == 0);
  CHECK(got.find("IPU 3  |.    |.    |.    |F0   |B0   |") != std::string::npos);
}

TEST_CASE("the schedule table lists every schedule once, in kind order") {
  const auto& table = schedule_table();
  REQUIRE(table.size() == 5);
  for (size_t k = 0; k < table.size(); ++k) {
    CHECK(static_cast<size_t>(table[k]->kind) == k);
    CHECK(find_schedule(table[k]->name) == table[k]);
    CHECK(static_cast<bool>(table[k]->accumulation));
    CHECK(static_cast<bool>(table[k]->timeline));
    CHECK(static_cast<bool>(table[k]->bubble));
    CHECK(static_cast<bool>(table[k]->in_flight));
  }
  CHECK(schedule_names() ==
        std::vector<std::string>{"grouped", "interleaved", "sequential", "zero_bubble", "zero_bubble_h2"});
  CHECK(find_schedule("gpipe") == nullptr);
}
