#include "engine/cluster/trace_analysis.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace iputrain::engine {

namespace {

struct Interval {
  double begin = 0;
  double end = 0;
};

std::pair<double, double> span(const TraceEvent& e, TimeBase base) {
  if (base == TimeBase::Real) {
    return {e.real_begin_us, e.real_end_us};
  }
  return {e.sim_begin_cycles, e.sim_end_cycles};
}

// Sorted, disjoint intervals covering the track's compute; merging makes the measures below
// robust to events that touch or (with a coarse clock) overlap on one track.
std::vector<Interval> compute_intervals(const Track& t, TimeBase base) {
  std::vector<Interval> v;
  for (const TraceEvent& e : t.events) {
    if (is_compute(e.kind)) {
      const auto [b, en] = span(e, base);
      if (en > b) {
        v.push_back({b, en});
      }
    }
  }
  std::sort(v.begin(), v.end(), [](const Interval& x, const Interval& y) { return x.begin < y.begin; });
  std::vector<Interval> merged;
  for (const Interval& i : v) {
    if (!merged.empty() && i.begin <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, i.end);
    } else {
      merged.push_back(i);
    }
  }
  return merged;
}

double length(const std::vector<Interval>& v) {
  double sum = 0;
  for (const Interval& i : v) {
    sum += i.end - i.begin;
  }
  return sum;
}

double intersection(const std::vector<Interval>& x, const std::vector<Interval>& y) {
  double sum = 0;
  size_t i = 0;
  size_t j = 0;
  while (i < x.size() && j < y.size()) {
    sum += std::max(0.0, std::min(x[i].end, y[j].end) - std::max(x[i].begin, y[j].begin));
    if (x[i].end < y[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return sum;
}

std::vector<std::vector<Interval>> ipu_compute(const Recorder& rec, TimeBase base) {
  std::vector<std::vector<Interval>> out;
  for (int32_t i = 0; i < rec.ipus(); ++i) {
    out.push_back(compute_intervals(rec.tracks()[static_cast<size_t>(i)], base));
  }
  return out;
}

// Per weight update, the span from its first compute begin to its last compute end on any IPU.
std::map<int64_t, Interval> update_windows(const Recorder& rec, TimeBase base) {
  std::map<int64_t, Interval> windows;
  for (int32_t i = 0; i < rec.ipus(); ++i) {
    for (const TraceEvent& e : rec.tracks()[static_cast<size_t>(i)].events) {
      const auto [b, en] = span(e, base);
      if (!is_compute(e.kind) || en <= b) {
        continue;
      }
      auto [it, fresh] = windows.try_emplace(e.update, Interval{b, en});
      if (!fresh) {
        it->second.begin = std::min(it->second.begin, b);
        it->second.end = std::max(it->second.end, en);
      }
    }
  }
  return windows;
}

// Merges possibly overlapping intervals and returns the measure of their union.
double union_length(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(), [](const Interval& x, const Interval& y) { return x.begin < y.begin; });
  double sum = 0;
  double begin = 0;
  double end = 0;
  bool open = false;
  for (const Interval& i : v) {
    if (open && i.begin <= end) {
      end = std::max(end, i.end);
      continue;
    }
    if (open) {
      sum += end - begin;
    }
    begin = i.begin;
    end = i.end;
    open = true;
  }
  return open ? sum + end - begin : sum;
}

}  // namespace

bool is_compute(planner::InstrKind kind) { return planner::is_task(kind); }

std::vector<PairOverlap> pairwise_compute_overlap(const Recorder& rec, TimeBase base) {
  const auto compute = ipu_compute(rec, base);
  std::vector<PairOverlap> out;
  for (int32_t a = 0; a < rec.ipus(); ++a) {
    for (int32_t b = a + 1; b < rec.ipus(); ++b) {
      out.push_back({a, b, intersection(compute[static_cast<size_t>(a)], compute[static_cast<size_t>(b)])});
    }
  }
  return out;
}

std::optional<double> overlap_fraction(const Recorder& rec, TimeBase base) {
  std::vector<Interval> windows;
  for (const auto& [update, w] : update_windows(rec, base)) {
    windows.push_back(w);
  }
  const double window = union_length(windows);
  if (window <= 0) {
    return std::nullopt;
  }
  // Sweep over every IPU's interval ends: between two consecutive points the number of IPUs
  // computing is constant, and the stretches with two or more count.
  std::vector<std::pair<double, int>> points;
  for (const auto& track : ipu_compute(rec, base)) {
    for (const Interval& i : track) {
      points.emplace_back(i.begin, +1);
      points.emplace_back(i.end, -1);
    }
  }
  std::sort(points.begin(), points.end());
  double shared = 0;
  int running = 0;
  for (size_t k = 0; k < points.size(); ++k) {
    if (running >= 2) {
      shared += points[k].first - points[k - 1].first;
    }
    running += points[k].second;
  }
  return shared / window;
}

std::optional<double> measured_bubble(const Recorder& rec, TimeBase base) {
  double window = 0;
  for (const auto& [update, w] : update_windows(rec, base)) {
    window += w.end - w.begin;
  }
  if (window <= 0 || rec.ipus() <= 0) {
    return std::nullopt;
  }
  double busy = 0;
  for (const auto& track : ipu_compute(rec, base)) {
    busy += length(track);
  }
  return 1.0 - busy / (rec.ipus() * window);
}

}  // namespace iputrain::engine
