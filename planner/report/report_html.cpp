// The plan as one self-contained HTML page (`plan --html`, the profile directory's index.html): the
// summary, memory per IPU over the timesteps, the Gantt chart (each box's details on hover), the
// cycles of every op sortable by any column with the model's file:line, and the config as
// resolved. Nothing is fetched from the network: the charts are inline SVG, the sorting a few lines
// of inline script.
#include <fmt/format.h>

#include <algorithm>

#include "planner/cost_model.hpp"
#include "planner/report/report.hpp"
#include "planner/report/svg.hpp"
#include "planner/report/svg_writer.hpp"

namespace iputrain::planner {

namespace {

// An SVG document without its XML declaration, to sit inside the page.
std::string inline_svg(const std::string& svg) {
  const size_t at = svg.find("<svg");
  return at == std::string::npos ? svg : svg.substr(at);
}

constexpr const char* kStyle = R"(<style>
body { font-family: sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
pre { background: #f6f6f6; padding: 0.6em; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; }
table { border-collapse: collapse; font-size: 12px; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: left; }
th { background: #eee; cursor: pointer; user-select: none; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.facts th { cursor: auto; width: 11em; vertical-align: top; }
.bar { display: inline-block; height: 0.8em; background: #4a7; vertical-align: middle; }
nav a { margin-right: 1em; }
.figure { overflow-x: auto; }
</style>
)";

// Clicking a header sorts the table by that column (numbers as numbers), again to reverse.
constexpr const char* kScript = R"(<script>
"use strict";
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, column) {
    th.addEventListener("click", function () {
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var numeric = th.dataset.type === "number";
      var down = th.dataset.order !== "down";
      rows.sort(function (a, b) {
        var x = a.cells[column].dataset.value || a.cells[column].textContent;
        var y = b.cells[column].dataset.value || b.cells[column].textContent;
        var c = numeric ? Number(x) - Number(y) : x.localeCompare(y);
        return down ? -c : c;
      });
      th.dataset.order = down ? "down" : "up";
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
document.body.dataset.ready = "1";
</script>
)";

// Lines "label: text" of the text report as a table of two columns (the text wraps, nothing is cut);
// a line without a label spans both.
std::string facts_table(const std::string& id, const std::string& text) {
  std::string out = fmt::format("<table id=\"{}\" class=\"facts\"><tbody>\n", id);
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    end = end == std::string::npos ? text.size() : end;
    const std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    if (line.empty()) {
      continue;
    }
    const size_t colon = line.find(": ");
    out += colon == std::string::npos || colon > 40
               ? fmt::format("<tr><td colspan=\"2\">{}</td></tr>\n", xml_escape(line))
               : fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", xml_escape(line.substr(0, colon)),
                             xml_escape(line.substr(colon + 2)));
  }
  return out + "</tbody></table>\n";
}

// Memory per IPU at its peak as a table, the text report's heading and notes around it.
std::string memory_table(const Plan& plan) {
  if (plan.memory.empty()) {
    return "<p>" + xml_escape(text_memory(plan)) + "</p>\n";
  }
  std::string out = "<p>" + xml_escape(text_memory_heading(plan)) + "</p>\n";
  out +=
      "<table id=\"memory-table\"><thead><tr><th>IPU</th><th>weights</th><th>optimizer</th><th>accumulators</th>"
      "<th>activations</th><th>io</th><th>peak</th><th>capacity</th><th>use of capacity</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < plan.memory.size(); ++i) {
    const IpuMemory& m = plan.memory[i];
    const double share = m.capacity > 0 ? static_cast<double>(m.total_peak) / static_cast<double>(m.capacity) : 0.0;
    out += fmt::format(
        "<tr><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td><span class=\"bar\" style=\"width:{:.1f}px\"></span> {:.1f}%</td></tr>\n",
        i, xml_escape(human_bytes(m.weights)), xml_escape(human_bytes(m.optimizer_state)),
        xml_escape(human_bytes(m.accumulators)), xml_escape(human_bytes(m.activations_peak)),
        xml_escape(human_bytes(m.io_buffers)), xml_escape(human_bytes(m.total_peak)),
        xml_escape(human_bytes(m.capacity)), std::min(1.0, share) * 120, 100 * share);
  }
  out += "</tbody></table>\n";
  const std::string notes = text_memory_notes(plan);
  for (size_t begin = 0; begin < notes.size();) {
    const size_t end = std::min(notes.find('\n', begin), notes.size());
    out += "<p>" + xml_escape(notes.substr(begin, end - begin)) + "</p>\n";
    begin = end + 1;
  }
  return out;
}

std::string stage_table(const Plan& plan) {
  std::string out =
      "<table><thead><tr><th>stage</th><th>position</th><th>IPU</th><th>parameters</th><th>parameter bytes</th>"
      "<th>forward cycles</th><th>backward cycles</th></tr></thead><tbody>\n";
  for (const StageSummary& s : stage_summaries(plan)) {
    out += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
        "class=\"num\">{}</td><td class=\"num\">{:.0f}</td><td class=\"num\">{:.0f}</td></tr>\n",
        xml_escape(s.name), s.position, s.ipu, s.params, xml_escape(human_bytes(s.param_bytes)), s.forward_cycles,
        s.backward_cycles);
  }
  return out + "</tbody></table>\n";
}

// Every op of one micro-batch that costs cycles, most expensive first.
std::string op_table(const Plan& plan, const SourceManager* sources) {
  const ir::Graph& g = plan.graph;
  struct Row {
    ir::ValueId id;
    double cycles;
  };
  std::vector<Row> rows;
  double total = 0;
  for (const ir::ValueId id : micro_batch_program(plan)) {
    const double cycles = op_cycles(g, id, plan.decided.device);
    if (cycles > 0) {
      rows.push_back({id, cycles});
      total += cycles;
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.cycles > b.cycles; });
  std::string out = fmt::format(
      "<p>{} ops cost {:.0f} cycles per micro-batch. Click a column to sort by it.</p>\n"
      "<table id=\"ops\" class=\"sortable\"><thead><tr><th data-type=\"number\">node</th><th>op</th><th>stage</th>"
      "<th>pass</th><th>type</th><th data-type=\"number\" data-order=\"down\">cycles</th><th data-type=\"number\">"
      "share</th><th>source</th></tr></thead><tbody>\n",
      rows.size(), total);
  for (const Row& r : rows) {
    const ir::Node& n = g.node(r.id);
    const bool staged = n.stage >= 0 && static_cast<size_t>(n.stage) < g.stages.size();
    std::string where;
    if (n.span.valid()) {
      const bool named = sources != nullptr && n.span.file < sources->size();
      where = fmt::format("{}:{}:{}", named ? sources->path(n.span.file) : "?", n.span.line, n.span.col);
    }
    out += fmt::format(
        "<tr><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{:.0f}</td>"
        "<td class=\"num\" data-value=\"{:.6f}\">{:.1f}%</td><td>{}</td></tr>\n",
        r.id, ir::op_def(n.op).name, staged ? xml_escape(g.stages[static_cast<size_t>(n.stage)].name) : "",
        n.phase == ir::Phase::Forward ? "forward" : "backward", xml_escape(n.type.str()), r.cycles, r.cycles / total,
        100 * r.cycles / total, xml_escape(where));
  }
  return out + "</tbody></table>\n";
}

}  // namespace

std::string plan_html(const Plan& plan, std::string_view model, const SourceManager* sources,
                      std::string_view config_toml) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>iputrain plan: {0}</title>\n{1}"
      "</head><body>\n<h1>Plan for {0}</h1>\n<nav><a href=\"#summary\">summary</a><a href=\"#memory\">memory</a>"
      "<a href=\"#gantt\">schedule</a><a href=\"#ops\">cycles per op</a><a href=\"#config\">config</a></nav>\n",
      xml_escape(model), kStyle);
  out += "<h2 id=\"summary\">Summary</h2>\n" + facts_table("summary-table", text_header(plan, model)) +
         facts_table("predicted-table", text_predicted(plan)) + stage_table(plan);
  out += "<h2 id=\"memory\">Memory per IPU, timestep by timestep</h2>\n" + memory_table(plan) +
         "<div class=\"figure\">" + inline_svg(memory_svg(plan)) + "</div>\n";
  out +=
      "<h2 id=\"gantt\">Schedule of one weight update</h2>\n<p>Hover over a box for its details.</p>\n"
      "<div class=\"figure\">" +
      inline_svg(gantt_svg(plan)) + "</div>\n";
  out += "<h2 id=\"ops-section\">Cycles per op</h2>\n" + op_table(plan, sources);
  out += "<h2 id=\"config\">Config as resolved</h2>\n<pre>" + xml_escape(config_toml) + "</pre>\n";
  return out + kScript + "</body></html>\n";
}

}  // namespace iputrain::planner
