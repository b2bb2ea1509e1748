// The schedule of one accumulation cycle as a Gantt chart. Instructions are laid out by the same
// discrete-event rules as the cycle simulator, so the picture's length is the simulated cycle and
// every gap in a row is time the IPU waits: the pipeline's fill and drain bubbles, or a transfer.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>

#include "planner/report/svg.hpp"
#include "planner/report/svg_writer.hpp"
#include "planner/simulate.hpp"

namespace iputrain::planner {

namespace {

bool is_cycle_end(InstrKind k) { return k == InstrKind::ReduceReplicas || k == InstrKind::UpdateWeights; }

// Replays the programs the way simulate_plan() does (planner/simulate.cpp): each IPU runs its
// program in order; a Recv starts no earlier than its Send; a Send waits until the receive of the
// message `capacity` places earlier on its channel has started. Empty if the programs deadlock.
std::optional<GanttTimes> replay_cycles(const Plan& plan) {
  const DevicePrograms& p = plan.programs;
  const size_t ipus = p.ipus.size();
  GanttTimes t;
  t.start.resize(ipus);
  t.end.resize(ipus);
  for (size_t i = 0; i < ipus; ++i) {
    t.start[i].assign(p.ipus[i].size(), -1);
    t.end[i].assign(p.ipus[i].size(), -1);
  }
  // Per message: the message whose receive must have started before this one may be sent.
  std::vector<int32_t> blocker(p.messages.size(), -1);
  std::map<std::pair<int32_t, int32_t>, std::vector<int32_t>> sent_on;
  for (const auto& program : p.ipus) {
    for (const Instr& in : program) {
      if (in.kind == InstrKind::Send) {
        const Message& m = p.messages.at(static_cast<size_t>(in.message));
        sent_on[{m.from, m.to}].push_back(in.message);
      }
    }
  }
  for (const Channel& c : p.channels) {
    const auto it = sent_on.find({c.from, c.to});
    if (it == sent_on.end()) {
      continue;
    }
    const std::vector<int32_t>& order = it->second;
    for (size_t k = static_cast<size_t>(c.capacity); k < order.size(); ++k) {
      blocker[static_cast<size_t>(order[k])] = order[k - static_cast<size_t>(c.capacity)];
    }
  }
  std::vector<double> send_start(p.messages.size(), -1);
  std::vector<double> recv_start(p.messages.size(), -1);
  std::vector<size_t> next(ipus, 0);
  std::vector<double> clock(ipus, 0.0);
  bool moved = true;
  while (moved) {
    moved = false;
    for (size_t i = 0; i < ipus; ++i) {
      for (; next[i] < p.ipus[i].size(); ++next[i]) {
        const Instr& in = p.ipus[i][next[i]];
        double ready = clock[i];
        if (in.kind == InstrKind::Recv) {
          const double sent = send_start[static_cast<size_t>(in.message)];
          if (sent < 0) {
            break;
          }
          ready = std::max(ready, sent);
          recv_start[static_cast<size_t>(in.message)] = ready;
        } else if (in.kind == InstrKind::Send) {
          const int32_t b = blocker[static_cast<size_t>(in.message)];
          if (b >= 0 && recv_start[static_cast<size_t>(b)] < 0) {
            break;
          }
          ready = std::max(ready, b >= 0 ? recv_start[static_cast<size_t>(b)] : 0.0);
          send_start[static_cast<size_t>(in.message)] = ready;
        }
        t.start[i][next[i]] = ready;
        clock[i] = ready + instr_cycles(plan, in);
        t.end[i][next[i]] = clock[i];
        t.span = std::max(t.span, clock[i]);
        moved = true;
      }
    }
  }
  for (size_t i = 0; i < ipus; ++i) {
    if (next[i] < p.ipus[i].size()) {
      return std::nullopt;
    }
  }
  return t;
}

// One column per timestep, the reduce and update in a last column; within a column the tasks of
// the IPU share the width and transfers are marks between them.
GanttTimes timestep_columns(const Plan& plan) {
  const DevicePrograms& p = plan.programs;
  GanttTimes t;
  t.in_cycles = false;
  int32_t last = static_cast<int32_t>(plan.timeline.timesteps()) - 1;
  for (const auto& program : p.ipus) {
    for (const Instr& in : program) {
      last = std::max(last, in.timestep);
    }
  }
  const int32_t end_column = last + 1;
  t.span = end_column + 1;
  t.start.resize(p.ipus.size());
  t.end.resize(p.ipus.size());
  for (size_t i = 0; i < p.ipus.size(); ++i) {
    const auto& program = p.ipus[i];
    t.start[i].assign(program.size(), 0);
    t.end[i].assign(program.size(), 0);
    const auto column = [&](const Instr& in) { return is_cycle_end(in.kind) ? end_column : std::max(in.timestep, 0); };
    const auto weight = [](const Instr& in) { return is_task(in.kind) || is_cycle_end(in.kind) ? 1.0 : 0.0; };
    std::map<int32_t, double> column_weight;
    for (const Instr& in : program) {
      column_weight[column(in)] += weight(in);
    }
    std::map<int32_t, double> used;
    for (size_t k = 0; k < program.size(); ++k) {
      const int32_t c = column(program[k]);
      const double share = 1.0 / std::max(column_weight[c], 1.0);
      t.start[i][k] = c + used[c] * share;
      used[c] += weight(program[k]);
      t.end[i][k] = c + used[c] * share;
    }
  }
  return t;
}

// Print-friendly colours (Tableau 10): tasks in the strong hues, transfers as thin dark marks.
constexpr const char* kForward = "#4e79a7";
constexpr const char* kBackward = "#f28e2b";
constexpr const char* kWeights = "#e15759";
constexpr const char* kAccumulate = "#7f6d3a";
constexpr const char* kTransfer = "#4d4d4d";
constexpr const char* kHostIo = "#76b7b2";
constexpr const char* kReduce = "#b07aa1";
constexpr const char* kUpdate = "#59a14f";
constexpr const char* kIdle = "#efefef";
constexpr const char* kHatch =
    "<pattern id=\"recompute\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\" "
    "patternTransform=\"rotate(45)\"><rect x=\"0\" y=\"0\" width=\"6\" height=\"6\" fill=\"#c6d7ea\"/>"
    "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#4e79a7\" stroke-width=\"3\"/></pattern>";

// Geometry, in pixels.
constexpr double kLeft = 150;
constexpr double kPlotWidth = 950;
constexpr double kRight = 40;
constexpr double kTop = 64;
constexpr double kRowHeight = 38;
constexpr double kRowGap = 8;
constexpr double kCharWidth = 6.2;  // of the 10 px labels, generous for DejaVu Sans
constexpr double kLegendLine = 18;

struct BoxStyle {
  const char* cls;
  std::string fill;
  double top;  // within the row
  double height;
  double min_width;
  std::string label;
  bool dark;  // white label text
};

BoxStyle box_style(const Instr& in) {
  const std::string m = std::to_string(in.micro_batch);
  switch (in.kind) {
    case InstrKind::Forward:
      return {"fwd", kForward, 7, 24, 0, "F" + m, true};
    case InstrKind::Recompute:
      return {"rec", "url(#recompute)", 7, 24, 0, "R" + m, false};
    case InstrKind::Backward:
      return {"bwd", kBackward, 7, 24, 0, "B" + m, false};
    case InstrKind::BackwardWeights:
      return {"wgt", kWeights, 7, 24, 0, "W" + m, true};
    case InstrKind::Accumulate:
      return {"acc", kAccumulate, 14, 10, 1, "", true};
    // Outgoing data along the row's top edge, incoming along its bottom edge.
    case InstrKind::Send:
      return {"send", kTransfer, 0, 5, 1.2, "", true};
    case InstrKind::Outfeed:
      return {"outfeed", kHostIo, 0, 5, 1.2, "", true};
    case InstrKind::Recv:
      return {"recv", kTransfer, 33, 5, 1.2, "", true};
    case InstrKind::Infeed:
      return {"infeed", kHostIo, 33, 5, 1.2, "", true};
    case InstrKind::ReduceReplicas:
      return {"reduce", kReduce, 7, 24, 2, "reduce", true};
    case InstrKind::UpdateWeights:
      return {"update", kUpdate, 7, 24, 2, "update", true};
  }
  return {"other", kTransfer, 0, 5, 1, "", true};
}

// "F3" inside the box; in a box too narrow for that just the micro-batch "3" in a smaller font
// (long sequential cycles), and nothing when even that does not fit.
void draw_label(SvgDocument& doc, const BoxStyle& st, const Instr& in, double x, double y, double w) {
  if (st.label.empty()) {
    return;
  }
  std::string label = st.label;
  double size = 10;
  if (w < kCharWidth * static_cast<double>(label.size()) + 4 && is_task(in.kind)) {
    label = std::to_string(in.micro_batch);
    size = 8;
  }
  if (w < kCharWidth * size / 10 * static_cast<double>(label.size()) + 2) {
    return;
  }
  doc.text(x + w / 2, y + st.top + st.height / 2 + size * 0.35, label,
           fmt::format("class=\"{}\" font-size=\"{}\" text-anchor=\"middle\" fill=\"{}\"",
                       is_task(in.kind) ? "task-label" : "label", size, st.dark ? "#ffffff" : "#000000"));
}

std::string title_line(const Plan& plan) {
  const PlanDecisions& d = plan.decided;
  const Pipeline& pipe = plan.placement.pipeline;
  std::string schedule(schedule_name(d.schedule));
  schedule[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(schedule[0])));
  const size_t stages = plan.graph.stages.size();
  return fmt::format("{} schedule{}: {} stage{} on {} IPU{}, accumulation {}, {} replica{}", schedule,
                     d.training ? "" : " (inference)", stages, stages == 1 ? "" : "s", pipe.ipus_per_replica,
                     pipe.ipus_per_replica == 1 ? "" : "s", d.accumulation_count, plan.placement.replicas,
                     plan.placement.replicas == 1 ? "" : "s");
}

std::string subtitle_line(const Plan& plan, const GanttTimes& t) {
  std::string out = "one accumulation cycle";
  if (plan.placement.replicas > 1) {
    out += " of replica 0 (every replica runs the same programs)";
  }
  const CostReport& c = plan.cost;
  if (c.cycles_per_update > 0) {
    out += fmt::format("; {} cycles per update", human_count(std::round(c.cycles_per_update)));
    // The update's share of the host round trip is not IPU time, so the chart ends before it.
    if (t.in_cycles && c.cycles_per_update > t.span + 0.5) {
      out += fmt::format(" ({} drawn, the rest host overhead)", human_count(std::round(t.span)));
    }
    out += fmt::format("; bubble {:.1f}% simulated, {:.1f}% analytic", 100 * c.bubble_fraction,
                       100 * c.analytic_bubble_fraction);
    if (!c.breakdown.bound.empty()) {
      out += fmt::format("; bound: {}", c.breakdown.bound);
    }
  } else {
    out += "; no cost figures";
  }
  if (!t.in_cycles && !plan.programs.ipus.empty()) {
    out += "; the instructions take no cycles, so columns are timesteps";
  }
  return out;
}

std::string row_label(const Plan& plan, size_t ipu) {
  const auto& physical = plan.placement.physical;
  if (!physical.empty() && ipu < physical[0].size()) {
    return fmt::format("IPU {} (phys {})", ipu, physical[0][ipu]);
  }
  return fmt::format("IPU {}", ipu);
}

void draw_axis(SvgDocument& doc, const GanttTimes& t, double rows_bottom, double scale) {
  const double axis_y = rows_bottom + 4;
  doc.line(kLeft, axis_y, kLeft + kPlotWidth, axis_y, "stroke=\"#333333\" stroke-width=\"1\"");
  // Timestep columns are labelled at every column (or every few); cycles at round numbers.
  const double step = t.in_cycles ? nice_step(t.span, 8) : std::max(1.0, nice_step(t.span, 16));
  for (double v = 0; v <= t.span + step * 1e-9; v += step) {
    const double x = kLeft + v * scale;
    doc.line(x, kTop - 4, x, axis_y, "stroke=\"#d0d0d0\" stroke-width=\"0.6\"");
    doc.line(x, axis_y, x, axis_y + 4, "stroke=\"#333333\" stroke-width=\"1\"");
    if (t.in_cycles) {
      doc.text(x, axis_y + 16, human_count(v), "font-size=\"10\" text-anchor=\"middle\"");
    } else if (v + 0.5 < t.span) {
      // Columns are labelled at their middle; the last one holds the cycle's end.
      const std::string label = v + 1.5 < t.span ? fmt::format("t{}", static_cast<int64_t>(v)) : "end";
      doc.text(x + 0.5 * scale, axis_y + 16, label, "font-size=\"10\" text-anchor=\"middle\"");
    }
  }
  doc.text(kLeft + kPlotWidth / 2, axis_y + 32,
           t.in_cycles ? "simulated IPU cycles" : "timestep (last column: gradient reduction and weight update)",
           "font-size=\"11\" text-anchor=\"middle\"");
}

// Wraps onto a second line when the keys do not fit the width; the caller leaves room for two.
void draw_legend(SvgDocument& doc, double y, double width) {
  struct Key {
    const char* name;
    std::string fill;
    bool thin;
  };
  const Key keys[] = {{"Forward (F m)", kForward, false},   {"Recompute (R m)", "url(#recompute)", false},
                      {"Backward (B m)", kBackward, false}, {"Weight gradients (W m)", kWeights, false},
                      {"Accumulate", kAccumulate, false},   {"Send (top) / Recv (bottom)", kTransfer, true},
                      {"Infeed / Outfeed", kHostIo, true},  {"Reduce replicas", kReduce, false},
                      {"Update weights", kUpdate, false},   {"Idle (bubble)", kIdle, false}};
  double x = 12;
  for (const Key& k : keys) {
    const double item = 18 + 6.3 * static_cast<double>(std::string_view(k.name).size()) + 14;
    if (x + item > width) {
      x = 12;
      y += kLegendLine;
    }
    doc.rect(x, k.thin ? y + 4 : y, 14, k.thin ? 4 : 12,
             fmt::format("class=\"key\" fill=\"{}\" stroke=\"#999999\" stroke-width=\"0.5\"", k.fill));
    doc.text(x + 18, y + 10, k.name, "font-size=\"11\"");
    x += item;
  }
}

}  // namespace

GanttTimes gantt_times(const Plan& plan) {
  std::optional<GanttTimes> cycles = replay_cycles(plan);
  if (cycles && cycles->span > 0) {
    return *cycles;
  }
  return timestep_columns(plan);
}

std::string gantt_svg(const Plan& plan) {
  const DevicePrograms& p = plan.programs;
  const GanttTimes t = gantt_times(plan);
  const size_t ipus = p.ipus.size();
  const double rows_bottom = kTop + static_cast<double>(std::max<size_t>(ipus, 1)) * (kRowHeight + kRowGap);
  const double legend_y = rows_bottom + 50;
  const double width = kLeft + kPlotWidth + kRight;
  const double height = legend_y + 2 * kLegendLine + 8;
  SvgDocument doc(width, height, title_line(plan));
  doc.defs(kHatch);
  doc.text(12, 22, title_line(plan), "font-size=\"15\" font-weight=\"bold\"");
  doc.text(12, 42, subtitle_line(plan, t), "font-size=\"11\" fill=\"#333333\"");
  if (ipus == 0 || t.span <= 0) {
    doc.text(kLeft, kTop + 20, "no per-IPU programs in this plan", "font-size=\"12\"");
    return doc.finish();
  }
  const double scale = kPlotWidth / t.span;
  for (size_t i = 0; i < ipus; ++i) {
    const double y = kTop + static_cast<double>(i) * (kRowHeight + kRowGap);
    doc.rect(kLeft, y, kPlotWidth, kRowHeight, fmt::format("fill=\"{}\"", kIdle));
    const bool busy = i < plan.cost.utilisation.size();
    doc.text(kLeft - 8, y + (busy ? 17 : 23), row_label(plan, i), "font-size=\"12\" text-anchor=\"end\"");
    if (busy) {
      doc.text(kLeft - 8, y + 31, fmt::format("busy {:.0f}%", 100 * plan.cost.utilisation[i]),
               "font-size=\"10\" text-anchor=\"end\" fill=\"#555555\"");
    }
  }
  draw_axis(doc, t, rows_bottom - kRowGap, scale);
  for (size_t i = 0; i < ipus; ++i) {
    const double y = kTop + static_cast<double>(i) * (kRowHeight + kRowGap);
    for (size_t k = 0; k < p.ipus[i].size(); ++k) {
      const Instr& in = p.ipus[i][k];
      const BoxStyle st = box_style(in);
      const double x = kLeft + t.start[i][k] * scale;
      const double w = std::max((t.end[i][k] - t.start[i][k]) * scale, st.min_width);
      const std::string when = t.in_cycles ? fmt::format("cycles {:.0f} to {:.0f}", t.start[i][k], t.end[i][k])
                                           : fmt::format("timestep {}", in.timestep);
      doc.rect(x, y + st.top, w, st.height,
               fmt::format("class=\"{}\" fill=\"{}\" stroke=\"#ffffff\" stroke-width=\"0.6\"", st.cls, st.fill),
               fmt::format("IPU {}: {}, {}", i, in.str(p), when));
      draw_label(doc, st, in, x, y, w);
    }
  }
  draw_legend(doc, legend_y, width);
  return doc.finish();
}

}  // namespace iputrain::planner
