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
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; font-size: 12px; }
table { border-collapse: collapse; font-size: 12px; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: left; }
th { background: #eee; cursor: pointer; user-select: none; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
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
  out += "<h2 id=\"summary\">Summary</h2>\n<pre>" + xml_escape(text_header(plan, model)) + "\n" +
         xml_escape(text_predicted(plan)) + "</pre>\n" + stage_table(plan);
  out += "<h2 id=\"memory\">Memory per IPU, timestep by timestep</h2>\n<pre>" + xml_escape(text_memory(plan)) +
         "</pre>\n<div class=\"figure\">" + inline_svg(memory_svg(plan)) + "</div>\n";
  out +=
      "<h2 id=\"gantt\">Schedule of one weight update</h2>\n<p>Hover over a box for its details.</p>\n"
      "<div class=\"figure\">" +
      inline_svg(gantt_svg(plan)) + "</div>\n";
  out += "<h2 id=\"ops-section\">Cycles per op</h2>\n" + op_table(plan, sources);
  out += "<h2 id=\"config\">Config as resolved</h2>\n<pre>" + xml_escape(config_toml) + "</pre>\n";
  return out + kScript + "</body></html>\n";
}

}  // namespace iputrain::planner
