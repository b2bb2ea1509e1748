#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "iputrain/error.hpp"
#include "planner/schedule.hpp"

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

void check_dependencies(const Pipeline& p, const Timeline& t) {
  const auto at = when(t);
  const auto n = static_cast<int32_t>(p.positions.size());
  CHECK(at.size() == static_cast<size_t>(2 * n * t.micro_batches));
  for (int64_t m = 0; m < t.micro_batches; ++m) {
    for (int32_t i = 0; i + 1 < n; ++i) {
      CHECK(at.at({i, 0, m}) < at.at({i + 1, 0, m}));  // forward flows down the pipeline
      CHECK(at.at({i + 1, 1, m}) < at.at({i, 1, m}));  // backward flows back up
    }
    CHECK(at.at({n - 1, 0, m}) < at.at({n - 1, 1, m}));
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

TEST_CASE("accumulation counts follow each schedule's rule") {
  const Pipeline p = chain(2);
  CHECK(required_accumulation_multiple(p, ScheduleKind::Grouped, true) == 4);
  CHECK(required_accumulation_multiple(p, ScheduleKind::Grouped, false) == 2);
  CHECK(required_accumulation_multiple(p, ScheduleKind::Interleaved, true) == 2);
  CHECK(required_accumulation_multiple(p, ScheduleKind::Sequential, true) == 1);
  try {
    make_timeline(p, ScheduleKind::Grouped, 6, true);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("multiple of 4") != std::string::npos);
    CHECK(e.hint().find("gradient_accumulation_count = 8") != std::string::npos);
  }
  CHECK_NOTHROW(make_timeline(p, ScheduleKind::Sequential, 3, true));
}

TEST_CASE("interleaved training refuses two stages on one IPU") {
  Pipeline p = chain(2);
  p.stage_ipu = {0, 0};
  p.ipus_per_replica = 1;
  CHECK_THROWS_AS(make_timeline(p, ScheduleKind::Interleaved, 2, true), Error);
  CHECK_NOTHROW(make_timeline(p, ScheduleKind::Grouped, 4, true));
}

TEST_CASE("bubble shrinks as micro-batches grow") {
  const Pipeline p = chain(4);
  const double few = 1.0 - occupancy(make_timeline(p, ScheduleKind::Grouped, 8, true));
  const double many = 1.0 - occupancy(make_timeline(p, ScheduleKind::Grouped, 64, true));
  CHECK(many < few);
  CHECK(analytic_bubble(p, ScheduleKind::Grouped, 8, true) == doctest::Approx(3.0 / 11.0));
}
