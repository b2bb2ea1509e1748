#include "cli/repl/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>


namespace iputrain::repl {

namespace {

std::vector<std::string> split_values(const std::string& text) {
  std::vector<std::string> out(1);
  int depth = 0;
  for (char c : text) {
    if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      --depth;
    }
    if (c == ',' && depth == 0) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

struct Outcome {
  std::vector<std::string> values;
  std::optional<double> samples_per_second;
  int64_t peak = 0;  // the largest peak over the IPUs of a replica
  bool fits = false;
  std::string error;
  bool pareto = false;
};

Outcome plan_one(const State& state, const std::vector<SweepAxis>& axes, const std::vector<std::string>& values) {
  Outcome o;
  o.values = values;
  std::vector<std::string> sets;
  for (size_t k = 0; k < axes.size(); ++k) {
    sets.push_back(axes[k].key + "=" + values[k]);
  }
  try {
    auto [config, model] = state.load_with(sets);
    const Plan plan = Plan::make(model, config);
    o.samples_per_second = plan.samples_per_second();
    o.fits = true;
    for (const PlanMemory& m : plan.memory()) {
      o.peak = std::max(o.peak, m.total_peak);
      o.fits = o.fits && m.total_peak <= m.capacity;
    }
  } catch (const Error& e) {
    o.error = first_line(e.diagnostic().message);
  }
  return o;
}

// A row is Pareto-optimal when no other plan that fits is at least as fast with at most as much
// memory and strictly better in one of the two.
void mark_pareto(std::vector<Outcome>& rows) {
  for (Outcome& r : rows) {
    if (!r.samples_per_second || !r.fits) {
      continue;
    }
    r.pareto = std::none_of(rows.begin(), rows.end(), [&](const Outcome& s) {
      return s.samples_per_second && s.fits && *s.samples_per_second >= *r.samples_per_second &&
             s.peak <= r.peak && (*s.samples_per_second > *r.samples_per_second || s.peak < r.peak);
    });
  }
}

}  // namespace

std::vector<SweepAxis> parse_sweep(const std::vector<std::string>& args, size_t max_rows) {
  if (args.empty()) {
    throw Error(ErrorKind::Usage, "sweep needs at least one KEY=v1,v2,...", {},
                "e.g. sweep pipeline.schedule=grouped,interleaved pipeline.gradient_accumulation_count=8,16");
  }
  std::vector<SweepAxis> axes;
  size_t rows = 1;
  for (const std::string& arg : args) {
    const size_t eq = arg.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size()) {
      throw Error(ErrorKind::Usage, fmt::format("`{}` is not of the form KEY=v1,v2,...", arg), {},
                  "e.g. pipeline.schedule=grouped,interleaved (no spaces around `=` and `,`)");
    }
    SweepAxis axis{arg.substr(0, eq), split_values(arg.substr(eq + 1))};
    for (const SweepAxis& other : axes) {
      if (other.key == axis.key) {
        throw Error(ErrorKind::Usage, fmt::format("`{}` is swept twice", axis.key), {},
                    "list all its values in one argument: KEY=v1,v2,v3");
      }
    }
    rows *= axis.values.size();
    axes.push_back(std::move(axis));
  }
  if (rows > max_rows) {
    throw Error(ErrorKind::Usage, fmt::format("the sweep has {} combinations; at most {} are planned", rows, max_rows),
                {}, "sweep fewer values, or sweep in parts");
  }
  return axes;
}

std::string run_sweep(const State& state, const std::vector<SweepAxis>& axes) {
  std::vector<Outcome> rows;
  std::vector<size_t> at(axes.size(), 0);
  for (bool more = true; more;) {
    std::vector<std::string> values;
    for (size_t k = 0; k < axes.size(); ++k) {
      values.push_back(axes[k].values[at[k]]);
    }
    rows.push_back(plan_one(state, axes, values));
    more = false;
    for (size_t k = axes.size(); k-- > 0;) {
      if (++at[k] < axes[k].values.size()) {
        more = true;
        break;
      }
      at[k] = 0;
    }
  }
  mark_pareto(rows);

  std::vector<std::string> header;
  for (const SweepAxis& a : axes) {
    header.push_back(a.key);
  }
  header.insert(header.end(), {"samples/s", "peak/IPU", "fits"});
  std::vector<std::vector<std::string>> cells;
  for (const Outcome& r : rows) {
    std::vector<std::string> c = r.values;
    if (r.samples_per_second) {
      c.insert(c.end(), {fmt::format("{:.0f}", *r.samples_per_second), format_bytes(r.peak),
                         r.fits ? "yes" : "no"});
    } else {
      c.push_back("error: " + r.error);
    }
    cells.push_back(std::move(c));
  }
  std::vector<size_t> width(header.size());
  for (size_t j = 0; j < header.size(); ++j) {
    width[j] = header[j].size();
    for (const auto& c : cells) {
      // An error message spans the figure columns; it does not widen them.
      if (j < c.size() && !(j + 1 == c.size() && c.size() < header.size())) {
        width[j] = std::max(width[j], c[j].size());
      }
    }
  }
  auto line = [&](const std::string& mark, const std::vector<std::string>& c) {
    std::string out = mark;
    for (size_t j = 0; j < c.size(); ++j) {
      const bool last = j + 1 == c.size();
      out += last ? "  " + c[j] : fmt::format("  {:<{}}", c[j], width[j]);
    }
    return out + "\n";
  };
  std::string out = line(" ", header);
  for (size_t i = 0; i < rows.size(); ++i) {
    out += line(rows[i].pareto ? "*" : " ", cells[i]);
  }
  out += "* = Pareto-optimal: no other plan that fits is faster with no more memory per IPU\n";
  return out;
}

}  // namespace iputrain::repl
