// Zero bubble (ZB-H1 of Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024). Each backward is
// split in two: B, the part the previous stage waits for (the input gradients), and W, the
// parameter gradients, which nothing downstream waits for. W passes are deferred into what would be
// the pipeline's drain bubble, while every position keeps at most P micro-batches (P positions),
// the peak 1F1B has at its first stage.
//
// Position i of P runs, in order: min(P - i, M) forwards; B, F pairs until it has run P forwards;
// one B; W, F, B triples while forwards remain; W, B pairs while backwards remain; the W passes
// left. Each task starts as soon as its position is free and its input is there (F after the
// previous position's F, B after the next position's B), one timestep per task. With F, B and W
// equally long and M >= P the idle share is (P - 1) / (3M + P - 1), a third of 1F1B's.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "core/schedules/schedule_def.hpp"

namespace iputrain::planner {

namespace {

AccumulationRule accumulation(int64_t positions, int64_t /*ipus_per_replica*/, bool training) {
  if (!training) {
    return {1, 1, "zero_bubble inference accepts any count"};
  }
  return {1, positions, fmt::format("zero_bubble training with {} stages needs at least {}", positions, positions)};
}

// The order in which position `i` of `P` runs its tasks.
std::vector<Task> position_order(int32_t i, int32_t P, int64_t M, bool training) {
  std::vector<Task> seq;
  int64_t f = 0, b = 0, w = 0;
  auto F = [&] { seq.push_back({i, Work::Forward, f++}); };
  auto B = [&] { seq.push_back({i, Work::Backward, b++}); };
  auto W = [&] { seq.push_back({i, Work::BackwardWeights, w++}); };
  if (!training) {
    while (f < M) {
      F();
    }
    return seq;
  }
  const int64_t warm = std::min<int64_t>(P - i, M);
  while (f < warm) {
    F();
  }
  while (f < std::min<int64_t>(P, M)) {
    B();
    F();
  }
  B();
  while (f < M) {
    W();
    F();
    B();
  }
  while (b < M) {
    W();
    B();
  }
  while (w < M) {
    W();
  }
  return seq;
}

using TaskKey = std::tuple<int32_t, Work, int64_t>;  // (position, phase, micro-batch)

// The task whose output `t` reads (a forward the previous position's, a backward the next
// position's or, at the last position, its own forward); position -1 when it reads none.
TaskKey input_of(const Task& t, int32_t positions) {
  const int32_t i = t.position;
  if (t.phase == Work::Forward) {
    return {i > 0 ? i - 1 : -1, Work::Forward, t.micro_batch};
  }
  if (t.phase == Work::Backward) {
    return i + 1 < positions ? TaskKey{i + 1, Work::Backward, t.micro_batch} : TaskKey{i, Work::Forward, t.micro_batch};
  }
  return {-1, Work::Forward, 0};  // W follows its own B on the same position, in order
}

Timeline timeline(const Pipeline& p, int64_t micro_batches, bool training, int64_t /*slices*/) {
  const auto P = static_cast<int32_t>(p.positions.size());
  std::vector<std::vector<Task>> order;
  for (int32_t i = 0; i < P; ++i) {
    order.push_back(position_order(i, P, micro_batches, training));
  }
  // As soon as possible, one timestep per task: a task's step is after its position's previous
  // task and after the task it reads from.
  std::map<TaskKey, int64_t> done;  // -> the timestep after it ran
  std::vector<size_t> next(static_cast<size_t>(P), 0);
  std::vector<int64_t> clock(static_cast<size_t>(P), 0);
  std::vector<std::pair<int64_t, Task>> placed;
  // Places the next tasks of position i until one waits for a task not placed yet.
  auto advance = [&](int32_t i) {
    bool moved = false;
    for (size_t& k = next[static_cast<size_t>(i)]; k < order[static_cast<size_t>(i)].size(); ++k) {
      const Task& t = order[static_cast<size_t>(i)][k];
      const TaskKey in = input_of(t, P);
      const auto it = done.find(in);
      if (std::get<0>(in) >= 0 && it == done.end()) {
        break;
      }
      const int64_t ready = std::max(clock[static_cast<size_t>(i)], std::get<0>(in) >= 0 ? it->second : 0);
      placed.emplace_back(ready, t);
      done[{i, t.phase, t.micro_batch}] = ready + 1;
      clock[static_cast<size_t>(i)] = ready + 1;
      moved = true;
    }
    return moved;
  };
  for (bool moved = true; moved;) {
    moved = false;
    for (int32_t i = 0; i < P; ++i) {
      moved = advance(i) || moved;
    }
  }
  Timeline out;
  out.kind = ScheduleKind::ZeroBubble;
  out.micro_batches = micro_batches;
  const int64_t steps = *std::max_element(clock.begin(), clock.end());
  out.steps.assign(static_cast<size_t>(steps), std::vector<std::vector<Task>>(static_cast<size_t>(p.ipus_per_replica)));
  for (const auto& [step, task] : placed) {
    for (int32_t ipu : p.ipus_of_position(task.position)) {
      out.steps[static_cast<size_t>(step)][static_cast<size_t>(ipu)].push_back(task);
    }
  }
  return out;
}

double bubble(const Pipeline& p, int64_t micro_batches, bool training) {
  const auto P = static_cast<double>(p.positions.size());
  const auto M = static_cast<double>(micro_batches);
  // Training: 3M tasks per position and P - 1 idle steps; inference: a plain forward pipeline.
  return training ? (P - 1) / (3 * M + P - 1) : (P - 1) / (M + P - 1);
}

int64_t in_flight(const Pipeline& p, int32_t /*position*/, int64_t micro_batches) {
  return std::min<int64_t>(micro_batches, static_cast<int64_t>(p.positions.size()));
}

}  // namespace

const ScheduleDef kZeroBubbleSchedule{
    .kind = ScheduleKind::ZeroBubble,
    .name = "zero_bubble",
    .summary = "ZB-H1: backward split into input and weight gradients, weight gradients deferred into the bubble",
    .splits_backward = true,
    .one_position_per_ipu = true,
    .accumulation = accumulation,
    .timeline = timeline,
    .bubble = bubble,
    .in_flight = in_flight,
};

}  // namespace iputrain::planner
