// The profile directory of a run (`[profiling]`): what the plan predicts and what the run did, as
// files a user can open, the counterpart of the seed's profiler reports.
//
// With `profiling.enabled`, each train() call writes REPORT_DIRECTORY/<model>-<yyyymmdd-hhmmss>[-k]/:
//   plan.json, plan.txt        the plan (as `iputrain plan --format json` and the text report)
//   memory.svg, schedule.svg   bytes per IPU over the cycle and the schedule's Gantt chart
//   cycles.csv                 the cycle model per op: stage, pass, IPU, op, file:line, cycles
//   run_report.json            the run report: real and simulated time, bubble, memory per IPU
//   execution.json             with profile_execution: the Chrome trace of the executions kept
//   events.csv                 with enable_ipu_events: every instruction each virtual IPU ran
// `report_every_nth_execution` keeps executions 0, N, 2N, … (0: the first only) in the last two.
// `enable_ipu_events` without `enabled` writes events.csv alone. A file larger than
// `max_report_size` is left out and listed in omitted.txt. Every file is written atomically.
#pragma once

#include <string>

#include "engine/cluster/recorder.hpp"
#include "iputrain/session.hpp"
#include "iputrain/settings.hpp"
#include "planner/plan.hpp"

namespace iputrain::engine {

//! True if a run under `s` records its instructions (for execution.json or events.csv).
inline bool profile_records_events(const Settings& s) {
  return (s.plain.profiling_enabled && s.plain.profiling_profile_execution != ProfileExecution::NoProfile) ||
         s.plain.profiling_enable_ipu_events;
}
//! True if a run under `s` writes a profile directory.
inline bool profile_wanted(const Settings& s) {
  return s.plain.profiling_enabled || s.plain.profiling_enable_ipu_events;
}

struct ProfileRun {
  const planner::Plan& plan;
  std::string model;                  //!< the model's name
  const RunReport& report;
  const Recorder& recorder;
  int64_t updates_per_execution = 1;       //!< steps_per_execution x repeat_count
  const SourceManager* sources = nullptr;  //!< the model's files, to name where each op is written
  std::string config_toml;                 //!< the config as resolved, shown by index.html
};

//! ipu.serialization_output_folder: saves what the session will run, as the seed saves its compiled
//! executables: FOLDER/<model>.plan.json (the plan) and FOLDER/<model>.programs.txt (each IPU's
//! instruction list for one accumulation cycle), atomically. Throws Error(Io) with a hint.
void write_executable(const planner::Plan& plan, const std::string& model, const std::string& folder);

//! Writes the profile directory of one run; returns its path. Throws Error(Io) with a hint if the
//! directory cannot be made or a file cannot be written.
std::string write_profile(const ProfileRun& run);

}  // namespace iputrain::engine
