#include "planner/schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "frontend/config/rules.hpp"
#include "iputrain/error.hpp"

namespace iputrain::planner {

std::string_view schedule_name(ScheduleKind kind) {
  switch (kind) {
    case ScheduleKind::Grouped: return "grouped";
    case ScheduleKind::Interleaved: return "interleaved";
    case ScheduleKind::Sequential: return "sequential";
  }
  return "?";
}

Pipeline make_pipeline(const ir::Graph& g, const std::vector<int32_t>& device_mapping, bool single_ipu) {
  Pipeline p;
  const auto n = static_cast<int32_t>(g.stages.size());
  for (int32_t s = 0; s < n; ++s) {
    const int32_t group = g.stages[static_cast<size_t>(s)].group;
    const bool joins_previous = s > 0 && group >= 0 && g.stages[static_cast<size_t>(s - 1)].group == group;
    if (joins_previous) {
      p.positions.back().push_back(s);
    } else {
      p.positions.push_back({s});
    }
  }
  if (!device_mapping.empty()) {
    if (device_mapping.size() != static_cast<size_t>(n)) {
      throw Error(ErrorKind::Plan,
                  fmt::format("pipeline.device_mapping has {} entries but the model has {} stages",
                              device_mapping.size(), n),
                  {}, "give one IPU index per stage, in model order");
    }
    p.stage_ipu = device_mapping;
  } else {
    p.stage_ipu.resize(static_cast<size_t>(n));
    for (int32_t s = 0; s < n; ++s) {
      p.stage_ipu[static_cast<size_t>(s)] = single_ipu ? 0 : s;
    }
  }
  for (int32_t ipu : p.stage_ipu) {
    if (ipu < 0) {
      throw Error(ErrorKind::Plan, fmt::format("pipeline.device_mapping names IPU {}", ipu), {},
                  "IPU indices start at 0");
    }
    p.ipus_per_replica = std::max(p.ipus_per_replica, ipu + 1);
  }
  return p;
}

int64_t required_accumulation_multiple(const Pipeline& p, ScheduleKind kind, bool training) {
  // The config checks the same rule at the key; one definition serves both.
  return config::min_gradient_accumulation(std::string(schedule_name(kind)), static_cast<int64_t>(p.positions.size()),
                                           p.ipus_per_replica, training);
}

namespace {

// The training (or inference) stage list T as (position, phase) pairs.
std::vector<std::pair<int32_t, ir::Phase>> stage_list(const Pipeline& p, bool training) {
  std::vector<std::pair<int32_t, ir::Phase>> t;
  const auto n = static_cast<int32_t>(p.positions.size());
  for (int32_t i = 0; i < n; ++i) {
    t.emplace_back(i, ir::Phase::Forward);
  }
  if (training) {
    for (int32_t i = n - 1; i >= 0; --i) {
      t.emplace_back(i, ir::Phase::Backward);
    }
  }
  return t;
}

}  // namespace

Timeline make_timeline(const Pipeline& p, ScheduleKind kind, int64_t micro_batches, bool training, int64_t slices) {
  const int64_t multiple = required_accumulation_multiple(p, kind, training);
  if (micro_batches < multiple || micro_batches % multiple != 0) {
    throw Error(ErrorKind::Plan,
                fmt::format("the {} schedule needs a gradient accumulation count that is a multiple of {} "
                            "(and at least {}), got {}",
                            schedule_name(kind), multiple, multiple, micro_batches),
                {},
                fmt::format("set pipeline.gradient_accumulation_count = {}{}", (micro_batches + multiple - 1) / multiple * multiple,
                            kind == ScheduleKind::Sequential ? "" : ", or use the sequential schedule"));
  }
  if (kind == ScheduleKind::Interleaved && training) {
    std::set<int32_t> used;
    for (int32_t ipu : p.stage_ipu) {
      if (!used.insert(ipu).second) {
        throw Error(ErrorKind::Plan,
                    fmt::format("the interleaved schedule cannot train two stages on one IPU (IPU {})", ipu), {},
                    "give each stage its own IPU in pipeline.device_mapping, or use the grouped schedule");
      }
    }
  }
  const auto t = stage_list(p, training);
  const int64_t len = static_cast<int64_t>(t.size());
  const int64_t delay = kind == ScheduleKind::Grouped ? 1 : kind == ScheduleKind::Interleaved ? 2 : len;
  Timeline out;
  out.kind = kind;
  out.micro_batches = micro_batches;
  out.steps.assign(static_cast<size_t>((micro_batches - 1) * delay + len),
                   std::vector<std::vector<Task>>(static_cast<size_t>(p.ipus_per_replica)));
  for (int64_t m = 0; m < micro_batches; ++m) {
    for (int64_t j = 0; j < len; ++j) {
      const auto [position, phase] = t[static_cast<size_t>(j)];
      // Every stage of a position runs at the same timestep; a task per distinct IPU it touches.
      std::set<int32_t> ipus;
      for (int32_t s : p.positions[static_cast<size_t>(position)]) {
        ipus.insert(p.stage_ipu[static_cast<size_t>(s)]);
      }
      for (int32_t ipu : ipus) {
        // Sequential with slices: the group of `slices` micro-batches goes stage by stage.
        const int64_t step = slices > 1 && kind == ScheduleKind::Sequential ? (m / slices) * len * slices + j * slices + m % slices : m * delay + j;
        out.steps[static_cast<size_t>(step)][static_cast<size_t>(ipu)].push_back({position, phase, m});
      }
    }
  }
  return out;
}

double analytic_bubble(const Pipeline& p, ScheduleKind kind, int64_t micro_batches, bool training) {
  const auto m = static_cast<double>(micro_batches);
  if (kind == ScheduleKind::Sequential) {
    return 1.0 - 1.0 / static_cast<double>(p.ipus_per_replica);
  }
  // Consecutive positions on the same IPUs run back to back like one longer stage: the pipeline
  // is `runs` such chunks, and an IPU that holds v chunks (stages mapped round-robin) is a loop
  // of runs / v IPU groups traversed v times.
  std::vector<std::set<int32_t>> ipus_of;
  for (const auto& stages : p.positions) {
    std::set<int32_t> ipus;
    for (int32_t s : stages) {
      ipus.insert(p.stage_ipu[static_cast<size_t>(s)]);
    }
    if (ipus_of.empty() || ipus_of.back() != ipus) {
      ipus_of.push_back(std::move(ipus));
    }
  }
  std::vector<int32_t> chunks(static_cast<size_t>(p.ipus_per_replica), 0);
  for (const auto& ipus : ipus_of) {
    for (int32_t ipu : ipus) {
      ++chunks[static_cast<size_t>(ipu)];
    }
  }
  const double loops = std::max(1, *std::max_element(chunks.begin(), chunks.end()));
  const double depth = static_cast<double>(ipus_of.size()) / loops;
  // Fill and drain: depth - 1 idle chunk slots per IPU against loops x M + depth - 1 (GPipe's
  // figure, with Megatron's for looped stages; forward and backward passes taken as equally long,
  // and training and inference share it).
  (void)training;
  return (depth - 1.0) / (loops * m + depth - 1.0);
}

std::string timeline_str(const Pipeline& p, const Timeline& t) {
  const auto ipus = static_cast<size_t>(p.ipus_per_replica);
  std::vector<std::vector<std::string>> cells(ipus, std::vector<std::string>(t.steps.size(), "."));
  // Columns are as wide as the widest cell so that long cycles (F12B9) stay aligned.
  size_t width = 4;
  for (size_t step = 0; step < t.steps.size(); ++step) {
    for (size_t ipu = 0; ipu < ipus && ipu < t.steps[step].size(); ++ipu) {
      std::string cell;
      for (const Task& task : t.steps[step][ipu]) {
        cell += fmt::format("{}{}", task.phase == ir::Phase::Forward ? 'F' : 'B', task.micro_batch);
      }
      if (!cell.empty()) {
        cells[ipu][step] = cell;
        width = std::max(width, cell.size());
      }
    }
  }
  std::string out;
  for (size_t ipu = 0; ipu < ipus; ++ipu) {
    out += fmt::format("IPU {:<3}|", ipu);
    for (const std::string& cell : cells[ipu]) {
      out += fmt::format("{:<{}}|", cell, width + 1);
    }
    out += "\n";
  }
  return out;
}

}  // namespace iputrain::planner
