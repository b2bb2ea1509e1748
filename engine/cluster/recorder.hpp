// What the cluster tells the outside world while it runs: every instruction each virtual IPU
// executes (real and simulated time), bytes held per IPU, feed activity. The Recorder turns these
// into the run report (utilisation, bubble, memory peak vs the planner) and the Chrome trace.
// Workers call it concurrently; each worker writes only to its own track, so recording is a
// push into a per-track vector (no lock on the hot path).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "planner/device_program.hpp"

namespace iputrain::engine {

//! One executed instruction on one track.
struct TraceEvent {
  planner::InstrKind kind;
  int32_t stage = -1;
  int64_t micro_batch = -1;
  int64_t update = 0;        //!< weight update (0-based) the event belongs to
  double real_begin_us = 0;  //!< since the run started
  double real_end_us = 0;
  double sim_begin_cycles = 0;  //!< simulated IPU clock
  double sim_end_cycles = 0;
};

//! Bytes held by one virtual IPU from a point in time on.
struct MemorySample {
  double real_us = 0;
  int64_t bytes = 0;
};

//! A timeline of one virtual IPU (physical id) or of a host feed.
struct Track {
  std::string name;  //!< "IPU 3 (replica 1, ipu 1)", "infeed replica 0", "outfeed"
  std::vector<TraceEvent> events;
  std::vector<MemorySample> memory;
  double busy_us = 0;          //!< real time inside kernels (Forward/Recompute/Backward/Update)
  double total_us = 0;         //!< real time the worker existed
  double cpu_us = 0;           //!< CPU time the worker thread used while running (blocked waits excluded)
  double kernel_cpu_us = 0;    //!< of which inside kernels (Forward/Recompute/Backward/Accumulate/Update)
};

//! Work the host did between device executions (a validation pass), on the trace's "host" thread.
struct HostSpan {
  std::string name;  //!< "validation"
  double begin_us = 0;
  double end_us = 0;
  int64_t step = 0;  //!< weight updates done when it ran
  std::vector<std::pair<std::string, double>> values;  //!< e.g. ("val_loss", 0.31)
};

class Recorder {
 public:
  //! One track per virtual IPU (index = physical id) followed by `feeds` feed tracks.
  Recorder(int32_t ipus, int32_t feeds, bool keep_events);

  Track& track(int32_t index) { return tracks_.at(static_cast<size_t>(index)); }
  const std::vector<Track>& tracks() const { return tracks_; }
  //! Tracks [0, ipus()) are virtual IPUs, the rest host feeds.
  int32_t ipus() const { return ipus_; }
  bool keep_events() const { return keep_events_; }
  //! Microseconds since the recorder was made (steady clock).
  double now_us() const;
  //! CPU time of the calling thread, in microseconds.
  static double thread_cpu_us();

  //! Writes the Chrome trace JSON (one process for real time and one for simulated time, one
  //! thread per track), atomically. Beyond `max_events` trace events only the first updates that
  //! fit are written, and the trace says so. A non-empty `pipeline` (pipeline.name) labels both
  //! processes. Throws Error(Io) if the file cannot be written.
  void write_chrome_trace(const std::string& path, double clock_hz,
                          int64_t max_events = kMaxTraceEvents, const std::string& pipeline = "") const;

  //! Host thread only, between executions: adds a span to the "host" thread of the trace.
  void add_host_span(HostSpan span) { host_.push_back(std::move(span)); }

  //! Keeps a trace loadable in Perfetto and chrome://tracing (tens of MB).
  static constexpr int64_t kMaxTraceEvents = 200000;

 private:
  std::vector<Track> tracks_;
  std::vector<HostSpan> host_;
  bool keep_events_;
  int64_t start_ns_;
  int32_t ipus_;
};

}  // namespace iputrain::engine
