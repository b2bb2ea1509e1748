#include "engine/cluster/recorder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <chrono>
#include <ctime>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "core/write_file.hpp"
#include "iputrain/error.hpp"

namespace iputrain::engine {

namespace {

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Perfetto groups slices by name, so kernels carry their stage and micro-batch in the name (the
// planner's short form) while link, feed and optimizer work share one name per kind.
std::string event_name(const TraceEvent& e) {
  switch (e.kind) {
    case planner::InstrKind::Forward: return fmt::format("F{}.m{}", e.stage, e.micro_batch);
    case planner::InstrKind::Recompute: return fmt::format("R{}.m{}", e.stage, e.micro_batch);
    case planner::InstrKind::Backward: return fmt::format("B{}.m{}", e.stage, e.micro_batch);
    case planner::InstrKind::BackwardWeights:
      return fmt::format("W{}.m{}", e.stage, e.micro_batch);
    case planner::InstrKind::Accumulate: return fmt::format("acc{}.m{}", e.stage, e.micro_batch);
    default: return std::string(planner::instr_kind_name(e.kind));
  }
}

// Times are written in microseconds with nanosecond resolution; both ends are rounded to whole
// nanoseconds before the duration is taken, so back-to-back instructions stay back to back and
// Perfetto never sees two slices of one thread overlap by a rounding error.
int64_t to_ns(double us) { return std::llround(us * 1000.0); }

std::string micros(int64_t ns) { return fmt::format("{:.3f}", static_cast<double>(ns) / 1000.0); }

constexpr int kRealPid = 1;
constexpr int kSimPid = 2;

// Host feeds have no simulated clock unless the engine gave them one; an all-zero track would
// only pile its slices at time 0.
bool has_sim_time(const Track& t) {
  return std::any_of(t.events.begin(), t.events.end(),
                     [](const TraceEvent& e) { return e.sim_end_cycles > 0; });
}

// How many updates fit in `max_events` trace events. Events of a kept update go to both processes
// (the simulated one only for tracks with a simulated clock); memory samples are kept up to the
// last real-time instant of the kept updates.
struct Cut {
  int64_t updates_recorded = 0;
  int64_t updates_kept = 0;
  int64_t keep_below = std::numeric_limits<int64_t>::max();  // first update not written
  double real_end_us = std::numeric_limits<double>::infinity();  // later memory samples are dropped
  bool truncated = false;
};

Cut choose_cut(const std::vector<Track>& tracks, int64_t max_events) {
  struct PerUpdate {
    int64_t events = 0;
    double real_end_us = 0;
  };
  std::map<int64_t, PerUpdate> updates;
  std::vector<double> sample_times;
  for (const Track& t : tracks) {
    const int64_t copies = has_sim_time(t) ? 2 : 1;
    for (const TraceEvent& e : t.events) {
      PerUpdate& u = updates[e.update];
      u.events += copies;
      u.real_end_us = std::max(u.real_end_us, e.real_end_us);
    }
    for (const MemorySample& m : t.memory) {
      sample_times.push_back(m.real_us);
    }
  }
  std::sort(sample_times.begin(), sample_times.end());

  Cut cut;
  cut.updates_recorded = static_cast<int64_t>(updates.size());
  int64_t events = 0;
  double end_us = 0;
  for (const auto& [update, u] : updates) {
    const double next_end = std::max(end_us, u.real_end_us);
    const auto samples = std::distance(sample_times.begin(),
                                       std::upper_bound(sample_times.begin(), sample_times.end(), next_end));
    // The first update is always written: a trace with no work in it helps nobody.
    if (cut.updates_kept > 0 && events + u.events + samples > max_events) {
      cut.truncated = true;
      cut.keep_below = update;
      cut.real_end_us = end_us;
      break;
    }
    events += u.events;
    end_us = next_end;
    cut.updates_kept += 1;
  }
  return cut;
}

class TraceWriter {
 public:
  void metadata(int pid, int tid, std::string_view name, std::string_view arg, const std::string& value) {
    add(fmt::format(R"({{"ph":"M","pid":{},"tid":{},"name":"{}","args":{{"{}":{}}}}})", pid, tid, name, arg,
                    value));
  }

  void slice(int pid, int tid, const TraceEvent& e, int64_t begin_ns, int64_t end_ns) {
    std::string args = fmt::format(R"("update":{})", e.update);
    if (e.stage >= 0) {
      args += fmt::format(R"(,"stage":{})", e.stage);
    }
    if (e.micro_batch >= 0) {
      args += fmt::format(R"(,"micro_batch":{})", e.micro_batch);
    }
    add(fmt::format(R"({{"ph":"X","pid":{},"tid":{},"name":"{}","cat":"{}","ts":{},"dur":{},"args":{{{}}}}})",
                    pid, tid, event_name(e), planner::instr_kind_name(e.kind), micros(begin_ns),
                    micros(std::max<int64_t>(0, end_ns - begin_ns)), args));
  }

  void host_span(int pid, int tid, const HostSpan& h, int64_t begin_ns, int64_t end_ns) {
    std::string args = fmt::format(R"("step":{})", h.step);
    for (const auto& [name, value] : h.values) {
      args += fmt::format(R"(,{}:{})", nlohmann::json(name).dump(), nlohmann::json(value).dump());
    }
    add(fmt::format(R"({{"ph":"X","pid":{},"tid":{},"name":{},"cat":"host","ts":{},"dur":{},"args":{{{}}}}})", pid,
                    tid, nlohmann::json(h.name).dump(), micros(begin_ns), micros(std::max<int64_t>(0, end_ns - begin_ns)),
                    args));
  }

  void counter(int pid, const std::string& quoted_name, int64_t ts_ns, int64_t bytes) {
    add(fmt::format(R"({{"ph":"C","pid":{},"name":{},"ts":{},"args":{{"bytes":{}}}}})", pid, quoted_name,
                    micros(ts_ns), bytes));
  }

  std::string finish(const nlohmann::json& other_data) {
    text_ += "\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":" + other_data.dump() + "}\n";
    return std::move(text_);
  }

 private:
  void add(const std::string& event) {
    text_ += first_ ? "\n" : ",\n";
    text_ += event;
    first_ = false;
  }

  std::string text_ = "{\"traceEvents\":[";
  bool first_ = true;
};

std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

}  // namespace

Recorder::Recorder(int32_t ipus, int32_t feeds, bool keep_events)
    : tracks_(static_cast<size_t>(ipus + feeds)),
      keep_events_(keep_events),
      start_ns_(steady_ns()),
      ipus_(ipus) {
  for (int32_t i = 0; i < ipus + feeds; ++i) {
    tracks_[static_cast<size_t>(i)].name = i < ipus ? fmt::format("IPU {}", i) : fmt::format("feed {}", i - ipus);
  }
}

double Recorder::thread_cpu_us() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) * 1e-3;
}

double Recorder::now_us() const { return static_cast<double>(steady_ns() - start_ns_) / 1000.0; }

void Recorder::write_chrome_trace(const std::string& path, double clock_hz, int64_t max_events,
                                  const std::string& pipeline) const {
  if (!(clock_hz > 0)) {
    throw Error(ErrorKind::Internal, fmt::format("trace clock of {} Hz: it must be positive", clock_hz), {},
                "the device model's clock rate comes from the plan's settings");
  }
  const Cut cut = choose_cut(tracks_, max_events);
  const auto sim_ns = [&](double cycles) { return to_ns(cycles / clock_hz * 1e6); };

  TraceWriter w;
  std::string labels = pipeline.empty() ? "" : fmt::format("pipeline {}", pipeline);
  if (cut.truncated) {
    labels += fmt::format("{}first {} of {} updates (trace limit {} events)", labels.empty() ? "" : ", ",
                          cut.updates_kept, cut.updates_recorded, max_events);
  }
  const std::string label = quoted(std::as_const(labels));
  for (const auto& [pid, name] : {std::pair{kRealPid, "real time"}, std::pair{kSimPid, "simulated IPU time"}}) {
    w.metadata(pid, 0, "process_name", "name", quoted(name));
    w.metadata(pid, 0, "process_sort_index", "sort_index", std::to_string(pid));
    if (!labels.empty()) {
      w.metadata(pid, 0, "process_labels", "labels", label);
    }
  }

  for (size_t i = 0; i < tracks_.size(); ++i) {
    const Track& t = tracks_[i];
    const int tid = static_cast<int>(i) + 1;
    const bool sim = has_sim_time(t);
    for (const int pid : {kRealPid, kSimPid}) {
      if (pid == kSimPid && !sim) {
        continue;
      }
      w.metadata(pid, tid, "thread_name", "name", quoted(t.name));
      w.metadata(pid, tid, "thread_sort_index", "sort_index", std::to_string(i));
    }
    for (const TraceEvent& e : t.events) {
      if (e.update >= cut.keep_below) {
        continue;
      }
      w.slice(kRealPid, tid, e, to_ns(e.real_begin_us), to_ns(e.real_end_us));
      if (sim) {
        w.slice(kSimPid, tid, e, sim_ns(e.sim_begin_cycles), sim_ns(e.sim_end_cycles));
      }
    }
    // Counters are per process in the format, so each IPU's memory is its own named counter.
    const std::string counter = quoted(t.name + " memory");
    for (const MemorySample& m : t.memory) {
      if (m.real_us <= cut.real_end_us) {
        w.counter(kRealPid, counter, to_ns(m.real_us), m.bytes);
      }
    }
  }

  // Host work (validation) on a thread of its own after the tracks, in real time only.
  if (!host_.empty()) {
    const int tid = static_cast<int>(tracks_.size()) + 1;
    w.metadata(kRealPid, tid, "thread_name", "name", quoted("host"));
    w.metadata(kRealPid, tid, "thread_sort_index", "sort_index", std::to_string(tracks_.size()));
    for (const HostSpan& h : host_) {
      if (h.begin_us <= cut.real_end_us || !cut.truncated) {
        w.host_span(kRealPid, tid, h, to_ns(h.begin_us), to_ns(h.end_us));
      }
    }
  }

  nlohmann::json other = {{"clock_hz", clock_hz},
                          {"ipus", ipus_},
                          {"updates_recorded", cut.updates_recorded},
                          {"updates_written", cut.updates_kept},
                          {"truncated", cut.truncated}};
  write_file_atomically(path, w.finish(other));
}

}  // namespace iputrain::engine
