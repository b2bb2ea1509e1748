// Bytes each IPU holds over one accumulation cycle, as step lines over the timesteps (a value holds
// for its whole timestep). Lines rather than stacked areas: each IPU has its own capacity, and a
// stack would add bytes that never share a memory.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "planner/report/report.hpp"
#include "planner/report/svg.hpp"
#include "planner/report/svg_writer.hpp"

namespace iputrain::planner {

namespace {
namespace impl_svg_memory {

constexpr double kLeft = 90;
constexpr double kPlotWidth = 800;
constexpr double kRight = 30;
constexpr double kTop = 64;
constexpr double kPlotHeight = 320;
constexpr double kLegendLine = 17;

// Colour and dash per IPU, so IPUs with equal figures (whose lines coincide) stay tellable apart
// in print.
constexpr const char* kColours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2",
                                    "#edc948", "#9c755f", "#ff9da7", "#bab0ac", "#e15759"};
constexpr const char* kDashes[] = {"", "8 3", "2 3", "10 3 2 3"};

std::string line_style(size_t ipu) {
  std::string style = fmt::format("fill=\"none\" stroke=\"{}\" stroke-width=\"2\"", kColours[ipu % 10]);
  const char* dash = kDashes[ipu % 4];
  if (*dash != '\0') {
    style += fmt::format(" stroke-dasharray=\"{}\"", dash);
  }
  return style;
}

// The largest binary unit the axis maximum reaches, so tick labels stay short ("384 KiB").
struct Unit {
  double bytes;
  const char* name;
};

Unit unit_for(double max_bytes) {
  constexpr Unit kUnits[] = {{1, "B"}, {1024.0, "KiB"}, {1024.0 * 1024, "MiB"}, {1024.0 * 1024 * 1024, "GiB"}};
  Unit u = kUnits[0];
  for (const Unit& c : kUnits) {
    if (max_bytes >= c.bytes) {
      u = c;
    }
  }
  return u;
}

std::string phys_label(const Plan& plan, size_t ipu) {
  const auto& physical = plan.placement.physical;
  if (!physical.empty() && ipu < physical[0].size()) {
    return fmt::format("IPU {} (phys {})", ipu, physical[0][ipu]);
  }
  return fmt::format("IPU {}", ipu);
}

std::string subtitle(const Plan& plan) {
  const PlanDecisions& d = plan.decided;
  return fmt::format(
      "{} schedule, {} IPUs per replica, accumulation {}: bytes held during each timestep (weights, "
      "optimizer "
      "state, accumulators, activations, I/O buffers)",
      schedule_name(d.schedule), plan.placement.pipeline.ipus_per_replica, d.accumulation_count);
}

// The plot's frame: bytes to y, timesteps to x.
struct Frame {
  Unit unit;
  double step = 1;  // between grid lines, in `unit`
  double top = 1;   // bytes at the top of the plot
  double bottom = kTop + kPlotHeight;
  double cell = 1;  // width of one timestep
  double y_of(double bytes) const { return bottom - bytes / top * kPlotHeight; }
  double x_of(double t) const { return kLeft + t * cell; }
};

Frame frame_for(double scale_max, size_t steps) {
  Frame f;
  f.unit = unit_for(scale_max);
  f.step = nice_step(scale_max / f.unit.bytes, 5);
  f.top = std::max(f.step, std::ceil(scale_max / f.unit.bytes / f.step) * f.step) * f.unit.bytes;
  f.cell = kPlotWidth / static_cast<double>(steps);
  return f;
}

void draw_axes(SvgDocument& doc, const Frame& f, size_t steps) {
  for (double v = 0; v <= f.top / f.unit.bytes + f.step * 1e-9; v += f.step) {
    const double y = f.y_of(v * f.unit.bytes);
    doc.line(kLeft, y, kLeft + kPlotWidth, y, "stroke=\"#e0e0e0\" stroke-width=\"0.6\"");
    doc.text(kLeft - 6, y + 3.5, fmt::format("{:g} {}", v, f.unit.name), "font-size=\"10\" text-anchor=\"end\"");
  }
  doc.line(kLeft, kTop, kLeft, f.bottom, "stroke=\"#333333\" stroke-width=\"1\"");
  doc.line(kLeft, f.bottom, kLeft + kPlotWidth, f.bottom, "stroke=\"#333333\" stroke-width=\"1\"");
  const size_t every = std::max<size_t>(1, (steps + 23) / 24);
  for (size_t t = 0; t < steps; t += every) {
    const double x = f.x_of(static_cast<double>(t) + 0.5);
    doc.line(x, f.bottom, x, f.bottom + 4, "stroke=\"#333333\" stroke-width=\"1\"");
    doc.text(x, f.bottom + 15, fmt::format("{}", t), "font-size=\"10\" text-anchor=\"middle\"");
  }
  doc.text(kLeft + kPlotWidth / 2, f.bottom + 32, "timestep of the accumulation cycle",
           "font-size=\"11\" text-anchor=\"middle\"");
}

void draw_capacities(SvgDocument& doc, const Frame& f, const std::set<int64_t>& capacities) {
  for (int64_t c : capacities) {
    const double y = f.y_of(static_cast<double>(c));
    doc.line(kLeft, y, kLeft + kPlotWidth, y,
             "class=\"capacity\" stroke=\"#000000\" stroke-width=\"1.5\" stroke-dasharray=\"9 5\"");
    doc.text(kLeft + kPlotWidth - 4, y - 5, fmt::format("capacity {}", human_bytes(c)),
             "font-size=\"10\" text-anchor=\"end\"");
  }
}

// One stepped line per IPU, with its legend entry; returns the y below the last entry.
double draw_ipus(SvgDocument& doc, const Plan& plan, const Frame& f, double ly) {
  const std::vector<IpuMemory>& mem = plan.memory;
  for (size_t i = 0; i < mem.size(); ++i) {
    const auto& bytes = mem[i].per_timestep;
    std::string label = phys_label(plan, i);
    if (bytes.empty()) {
      doc.text(12, ly + 4, label + ": no memory figures", "font-size=\"11\"");
      ly += kLegendLine;
      continue;
    }
    std::string points;
    for (size_t t = 0; t < bytes.size(); ++t) {
      const double y = f.y_of(static_cast<double>(bytes[t]));
      points += (t == 0 ? "" : " ") + SvgDocument::polyline_point(f.x_of(static_cast<double>(t)), y) + " " +
                SvgDocument::polyline_point(f.x_of(static_cast<double>(t + 1)), y);
    }
    const int64_t ipu_peak = *std::max_element(bytes.begin(), bytes.end());
    label += fmt::format(": peak {}", human_bytes(ipu_peak));
    if (mem[i].capacity > 0) {
      const double share = 100.0 * static_cast<double>(ipu_peak) / static_cast<double>(mem[i].capacity);
      label += fmt::format(" of {} ({})", human_bytes(mem[i].capacity),
                           share < 0.1 ? std::string("under 0.1%") : fmt::format("{:.1f}%", share));
    }
    doc.polyline(points, "class=\"ipu-memory\" " + line_style(i), label);
    doc.line(12, ly, 48, ly, line_style(i));
    doc.text(56, ly + 4, label, "font-size=\"11\"");
    ly += kLegendLine;
  }
  return ly;
}

}  // namespace impl_svg_memory
}  // namespace

std::string memory_svg(const Plan& plan) {
  const std::vector<IpuMemory>& mem = plan.memory;
  int64_t peak = 0;
  size_t steps = 0;
  for (const IpuMemory& m : mem) {
    steps = std::max(steps, m.per_timestep.size());
    for (int64_t b : m.per_timestep) {
      peak = std::max(peak, b);
    }
  }
  // Capacities close enough to the figures go on the scale as dashed lines; a capacity far above
  // them would flatten every line at the bottom, so it is only named in the legend.
  std::set<int64_t> capacities;
  for (const IpuMemory& m : mem) {
    if (m.capacity > 0) {
      capacities.insert(m.capacity);
    }
  }
  const bool capacity_on_scale = !capacities.empty() && *capacities.rbegin() <= 3 * std::max<int64_t>(peak, 1);
  const double scale_max =
      static_cast<double>(capacity_on_scale ? std::max(peak, *capacities.rbegin()) : std::max<int64_t>(peak, 1));

  const double width = impl_svg_memory::kLeft + impl_svg_memory::kPlotWidth + impl_svg_memory::kRight;
  const double legend_y = impl_svg_memory::kTop + impl_svg_memory::kPlotHeight + 52;
  const double legend_lines = static_cast<double>(std::max<size_t>(mem.size(), 1)) + (capacity_on_scale ? 0 : 1);
  const double height = legend_y + legend_lines * impl_svg_memory::kLegendLine + 10;
  const std::string title = "Memory per IPU over one accumulation cycle";
  SvgDocument doc(width, height, title);
  doc.text(12, 22, title, "font-size=\"15\" font-weight=\"bold\"");
  doc.text(12, 42, impl_svg_memory::subtitle(plan), "font-size=\"11\" fill=\"#333333\"");
  if (steps == 0) {
    doc.text(impl_svg_memory::kLeft, impl_svg_memory::kTop + 20, "no memory figures in this plan", "font-size=\"12\"");
    return doc.finish();
  }
  const impl_svg_memory::Frame frame = impl_svg_memory::frame_for(scale_max, steps);
  impl_svg_memory::draw_axes(doc, frame, steps);
  if (capacity_on_scale) {
    impl_svg_memory::draw_capacities(doc, frame, capacities);
  }
  const double ly = impl_svg_memory::draw_ipus(doc, plan, frame, legend_y);
  if (!capacity_on_scale) {
    const std::string note =
        capacities.empty() ? "capacity: not given"
                           : fmt::format("capacity {}{} per IPU (no dashed line: far above the figures)",
                                         capacities.size() > 1 ? "up to " : "", human_bytes(*capacities.rbegin()));
    doc.text(12, ly + 4, note, "font-size=\"11\"");
  }
  return doc.finish();
}

}  // namespace iputrain::planner
