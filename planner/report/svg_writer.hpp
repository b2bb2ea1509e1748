// A small SVG 1.1 writer shared by the plan's figures (planner/report/svg.hpp). Every coordinate is
// printed with one decimal so the output is byte-for-byte deterministic, and every piece of text
// goes through xml_escape here, never by hand at the call sites.
#pragma once

#include <string>
#include <string_view>

namespace iputrain::planner {

//! `text` with &, <, >, " and ' replaced by their XML entities.
std::string xml_escape(std::string_view text);

//! A "nice" axis step (1, 2 or 5 times a power of ten) that cuts `range` into about `ticks` parts.
double nice_step(double range, int ticks);

//! "0", "850", "12.5k", "3.2M", "1.05G": a count of cycles for an axis label.
std::string human_count(double value);

class SvgDocument {
 public:
  //! Starts a document of `width` x `height` pixels (also its viewBox) on a white background;
  //! `title` becomes the document's <title>.
  SvgDocument(double width, double height, std::string_view title);

  //! Raw markup for <defs> (patterns); the caller's own constant text, not escaped.
  void defs(std::string_view markup);
  //! A rectangle; `attrs` are extra attributes (fill, stroke, class), `tooltip` becomes its <title>.
  void rect(double x, double y, double w, double h, std::string_view attrs, std::string_view tooltip = {});
  void line(double x1, double y1, double x2, double y2, std::string_view attrs);
  //! `points` as "x,y x,y ..." from polyline_point().
  void polyline(const std::string& points, std::string_view attrs, std::string_view tooltip = {});
  //! Text at (x, y); `attrs` set font size, anchor, weight.
  void text(double x, double y, std::string_view content, std::string_view attrs);
  //! Closes the document and returns it; the writer is empty afterwards.
  std::string finish();

  static std::string polyline_point(double x, double y);

 private:
  std::string out_;
};

}  // namespace iputrain::planner
