#include "planner/report/svg_writer.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iterator>
#include <utility>

namespace iputrain::planner {

namespace {

// One decimal is finer than a pixel matters and keeps the files short; "-0.0" is avoided so equal
// plans print equal bytes whatever the sign of a zero.
std::string num(double v) {
  if (std::abs(v) < 0.05) {
    return "0";
  }
  return fmt::format("{:.1f}", v);
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

double nice_step(double range, int ticks) {
  if (!(range > 0) || ticks < 1) {
    return 1;
  }
  const double raw = range / ticks;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  const double fraction = raw / power;
  const double nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
  return nice * power;
}

std::string human_count(double value) {
  // Three significant digits; a value that would print as 1000 of a unit moves up a unit.
  constexpr const char* kSuffixes[] = {"", "k", "M", "G"};
  size_t unit = 0;
  while (unit + 1 < std::size(kSuffixes) && std::abs(value) >= 999.5) {
    value /= 1e3;
    ++unit;
  }
  return fmt::format("{:.3g}{}", value, kSuffixes[unit]);
}

SvgDocument::SvgDocument(double width, double height, std::string_view title) {
  out_ = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
      "<title>{2}</title>\n"
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n",
      num(width), num(height), xml_escape(title));
}

void SvgDocument::defs(std::string_view markup) { out_ += fmt::format("<defs>{}</defs>\n", markup); }

void SvgDocument::rect(double x, double y, double w, double h, std::string_view attrs, std::string_view tooltip) {
  out_ += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" {}", num(x), num(y), num(w), num(h), attrs);
  if (tooltip.empty()) {
    out_ += "/>\n";
  } else {
    out_ += fmt::format("><title>{}</title></rect>\n", xml_escape(tooltip));
  }
}

void SvgDocument::line(double x1, double y1, double x2, double y2, std::string_view attrs) {
  out_ +=
      fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" {}/>\n", num(x1), num(y1), num(x2), num(y2), attrs);
}

void SvgDocument::polyline(const std::string& points, std::string_view attrs, std::string_view tooltip) {
  out_ += fmt::format("<polyline points=\"{}\" {}", points, attrs);
  if (tooltip.empty()) {
    out_ += "/>\n";
  } else {
    out_ += fmt::format("><title>{}</title></polyline>\n", xml_escape(tooltip));
  }
}

void SvgDocument::text(double x, double y, std::string_view content, std::string_view attrs) {
  out_ += fmt::format("<text x=\"{}\" y=\"{}\" {}>{}</text>\n", num(x), num(y), attrs, xml_escape(content));
}

std::string SvgDocument::finish() {
  out_ += "</svg>\n";
  return std::exchange(out_, {});
}

std::string SvgDocument::polyline_point(double x, double y) { return num(x) + "," + num(y); }

}  // namespace iputrain::planner
