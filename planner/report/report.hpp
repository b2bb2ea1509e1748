// Reports of a plan: text for people, JSON for tools, Graphviz DOT for the stage graph. Every
// function is a pure function of a planner::Plan (and the model's name), so the `plan` command,
// the public iputrain::Plan and the REPL print the same figures from the same code.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "iputrain/error.hpp"
#include "planner/plan.hpp"

namespace iputrain::planner {

//! One model stage as the reports show it.
struct StageSummary {
  int32_t stage = 0;
  std::string name;
  int32_t position = 0;
  int32_t ipu = 0;                    //!< logical, within a replica
  std::vector<int32_t> physical_ids;  //!< per replica: the physical IPU the stage runs on
  int64_t params = 0;                 //!< elements of the parameters the stage owns
  int64_t param_bytes = 0;
  double forward_cycles = 0;   //!< one micro-batch
  double backward_cycles = 0;  //!< one micro-batch (0 for inference)
};

std::vector<StageSummary> stage_summaries(const Plan& plan);

//! Values one stage computes and another reads, summed per (from, to, kind), per micro-batch.
struct StageEdge {
  int32_t from = 0;
  int32_t to = 0;
  bool gradient = false;  //!< made by the backward pass (gradients flowing back)
  int64_t bytes = 0;
};

//! Edges in order of (gradient, from, to); leaves (inputs, parameters, constants) are not counted:
//! they are fed or held where they are used rather than sent between stages.
std::vector<StageEdge> stage_edges(const Plan& plan);

//! The nodes one micro-batch runs: the training program if the plan trains, else the eval one.
const std::vector<ir::ValueId>& micro_batch_program(const Plan& plan);

//! "512 B", "1.5 KiB", "897.0 MiB", "2.00 GiB".
std::string human_bytes(int64_t bytes);

//! `[###.......]` of `width` characters inside the brackets, '#' for the used share; a '!' in the
//! last place when `used` exceeds `capacity`.
std::string usage_bar(int64_t used, int64_t capacity, int width = 30);

// The text report, section by section; each section ends with a newline.
std::string text_header(const Plan& plan, std::string_view model);
std::string text_stages(const Plan& plan);
std::string text_memory(const Plan& plan);
//! text_memory's parts around its table: the heading line, and the notes after the rows (state
//! offloaded to the host, the largest contributors at the fullest IPU's peak); the HTML report's too.
std::string text_memory_heading(const Plan& plan);
std::string text_memory_notes(const Plan& plan);
//! At most `max_timesteps` columns of the timeline; a note says how many are left out.
std::string text_schedule(const Plan& plan, int64_t max_timesteps = 48);
std::string text_predicted(const Plan& plan);
//! Every section, separated by blank lines.
std::string plan_text(const Plan& plan, std::string_view model);

//! The JSON report (2-space indented, fields in a fixed order, ends with a newline).
std::string plan_json(const Plan& plan, std::string_view model);

//! The plan as one self-contained HTML page: summary, memory per IPU per timestep, the Gantt chart
//! (details on hover), every op's cycles in a sortable table with its `sources` file:line, and
//! `config_toml` (the config as resolved).
std::string plan_html(const Plan& plan, std::string_view model, const SourceManager* sources,
                      std::string_view config_toml);

//! The stage graph in Graphviz DOT: one node per stage inside a cluster per IPU, an edge per
//! stage pair that exchanges values (solid: activations, dashed: gradients) labelled in bytes.
std::string plan_dot(const Plan& plan, std::string_view model);

}  // namespace iputrain::planner
