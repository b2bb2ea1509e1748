// Pipeline layouts for `iputrain tune`: one per depth (IPUs per replica) and way of cutting.
#include "api/tune_space.hpp"

#include <fmt/format.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace iputrain::api::tune {

namespace {

std::string int_list(const std::vector<int64_t>& v) { return fmt::format("[{}]", fmt::join(v, ", ")); }

// The IPU of a declared stage that reads a weight an earlier stage on `map` owns (a tied head), or -1.
int64_t tied_ipu(const ModelFacts& facts, size_t stage, const std::vector<int64_t>& map) {
  for (const auto& [reader, owner] : facts.sizes.ties) {
    if (static_cast<size_t>(reader) == stage) {
      return map[static_cast<size_t>(owner)];
    }
  }
  return -1;
}

// Declared stage -> IPU, for `ipus` IPUs: the sized stages spread in order over the IPUs (the first
// on IPU 0); any other stage on the IPU of the stage whose weight it reads (a tied head back on
// IPU 0), else on that of the stage before it.
std::vector<int64_t> spread(const ModelFacts& facts, int32_t ipus) {
  const std::vector<int32_t>& sized = facts.sizes.stages;
  std::vector<int64_t> map(facts.stages.size(), -1);
  for (size_t k = 0; k < sized.size(); ++k) {
    map[static_cast<size_t>(sized[k])] =
        k == 0 || ipus == 1 ? 0
                            : 1 + static_cast<int64_t>((k - 1) * static_cast<size_t>(ipus - 1) / (sized.size() - 1));
  }
  for (size_t s = 0; s < map.size(); ++s) {
    if (map[s] < 0) {
      const int64_t tied = tied_ipu(facts, s, map);
      map[s] = tied >= 0 ? tied : (s == 0 ? 0 : map[s - 1]);
    }
  }
  return map;
}

// Layers per IPU that balance `ipus` IPUs, from one calibration plan of an even split with memory to
// spare: the cycles of a layer and of what else each IPU runs. `sets_for` expresses a split as keys;
// `stage_ipu` maps each stage of the plans to its IPU.
std::vector<int64_t> balanced_split(int32_t ipus, int64_t layers,
                                    const std::function<Sets(const std::vector<int64_t>&)>& sets_for,
                                    const std::vector<int64_t>& stage_ipu, const Evaluate& evaluate) {
  std::vector<int64_t> even(static_cast<size_t>(ipus), layers / ipus);
  for (int64_t k = 0; k < layers % ipus; ++k) {
    even[static_cast<size_t>(ipus - 1 - k)] += 1;
  }
  Sets calibration = sets_for(even);
  calibration.push_back("device.memory_per_tile=100000000");
  const Figures f = evaluate(calibration);
  std::vector<double> fixed(static_cast<size_t>(ipus), 0.0);
  double per_layer = 1;
  if (f.stage_cycles.size() == stage_ipu.size()) {
    std::vector<double> on_ipu(static_cast<size_t>(ipus), 0.0);
    for (size_t s = 0; s < stage_ipu.size(); ++s) {
      on_ipu[static_cast<size_t>(stage_ipu[s])] += f.stage_cycles[s];
    }
    per_layer = std::numeric_limits<double>::max();
    for (size_t i = 0; i < even.size(); ++i) {
      if (even[i] > 0) {
        per_layer = std::min(per_layer, on_ipu[i] / static_cast<double>(even[i]));
      }
    }
    per_layer = std::max(per_layer, 1.0);
    for (size_t i = 0; i < even.size(); ++i) {
      fixed[i] = std::max(0.0, on_ipu[i] - per_layer * static_cast<double>(even[i]));
    }
  }
  return split_layers(fixed, per_layer, layers);
}

// The layout of the declared stages with their sizes chosen per IPU (the parameters that size them).
std::optional<Layout> sized_layout(const ModelFacts& facts, int32_t ipus, const Evaluate& evaluate) {
  const size_t sized = facts.sizes.params.size();
  if (static_cast<size_t>(ipus) > sized || (ipus > 1 && sized < 2)) {
    return std::nullopt;
  }
  const std::vector<int64_t> map = spread(facts, ipus);
  auto sets_for = [&](const std::vector<int64_t>& per_ipu) {
    Sets sets = {fmt::format("pipeline.device_mapping={}", int_list(map))};
    std::vector<bool> given(static_cast<size_t>(ipus), false);
    for (size_t k = 0; k < sized; ++k) {
      const auto ipu = static_cast<size_t>(map[static_cast<size_t>(facts.sizes.stages[k])]);
      sets.push_back(fmt::format("model.{}={}", facts.sizes.params[k], given[ipu] ? 0 : per_ipu[ipu]));
      given[ipu] = true;
    }
    return sets;
  };
  const std::vector<int64_t> per_ipu = balanced_split(ipus, facts.sizes.layers, sets_for, map, evaluate);
  Layout l;
  l.ipus = ipus;
  l.positions = static_cast<int32_t>(facts.stages.size());
  l.shares_ipu = facts.stages.size() > static_cast<size_t>(ipus);
  l.sets = sets_for(per_ipu);
  l.label = fmt::format("declared stages on IPUs {}, layers per IPU {}", int_list(map), int_list(per_ipu));
  return l;
}

// A model without declared stages cut at its repeated blocks (pipeline.auto_stage_blocks), one
// stage per IPU and a tied tail (a head reading the embedding) as a last stage back on IPU 0.
std::optional<Layout> block_layout(const ModelFacts& facts, int32_t ipus, const Evaluate& evaluate) {
  const int64_t blocks = facts.sizes.blocks;
  if (ipus < 2 || ipus > blocks) {
    return std::nullopt;
  }
  std::vector<int64_t> map(static_cast<size_t>(ipus));
  for (int32_t i = 0; i < ipus; ++i) {
    map[static_cast<size_t>(i)] = i;
  }
  if (facts.sizes.tied_tail) {
    map.push_back(0);
  }
  auto sets_for = [&](std::vector<int64_t> per_stage) {
    per_stage.resize(map.size(), 0);
    return Sets{"pipeline.stages=[]", fmt::format("pipeline.auto_stages={}", map.size()),
                fmt::format("pipeline.auto_stage_blocks={}", int_list(per_stage)),
                fmt::format("pipeline.device_mapping={}", int_list(map))};
  };
  const std::vector<int64_t> per_ipu = balanced_split(ipus, blocks, sets_for, map, evaluate);
  Layout l;
  l.ipus = ipus;
  l.positions = static_cast<int32_t>(map.size());
  l.shares_ipu = facts.sizes.tied_tail;
  l.sets = sets_for(per_ipu);
  l.label = fmt::format("cut at the model's blocks onto IPUs {}, blocks per IPU {}", int_list(map), int_list(per_ipu));
  return l;
}

// Branch and bound over the cuts of the declared stages into `ipus` contiguous groups: every
// mapping whose costliest IPU is within kSlack of the best bottleneck (the cost model of the
// calibration plan cannot tell them apart; the planner will), cheapest first.
constexpr double kSlack = 0.10;

void cut_groups(const std::vector<double>& cost, size_t first, int32_t ipus, double bound, double worst,
                std::vector<int64_t>& map, std::vector<std::pair<double, std::vector<int64_t>>>& out) {
  const size_t n = cost.size();
  const auto ipu = static_cast<int64_t>(map.empty() ? 0 : map.back() + (first > 0 ? 1 : 0));
  if (ipus == 1) {
    double sum = 0;
    for (size_t s = first; s < n; ++s) {
      sum += cost[s];
    }
    if (std::max(worst, sum) <= bound) {
      std::vector<int64_t> m = map;
      m.resize(n, ipu);
      out.emplace_back(std::max(worst, sum), std::move(m));
    }
    return;
  }
  double sum = 0;
  for (size_t last = first; last + static_cast<size_t>(ipus) <= n; ++last) {
    sum += cost[last];
    if (std::max(worst, sum) > bound) {
      return;  // every later cut only makes this group costlier
    }
    std::vector<int64_t> m = map;
    m.resize(last + 1, ipu);
    cut_groups(cost, last + 1, ipus - 1, bound, std::max(worst, sum), m, out);
  }
}

// The contiguous cuts of stages with costs `cost` into `ipus` groups whose costliest IPU is within
// kSlack of the best, as (bottleneck, stage -> IPU).
std::vector<std::pair<double, std::vector<int64_t>>> contiguous_cuts(const std::vector<double>& cost, int32_t ipus) {
  std::vector<std::pair<double, std::vector<int64_t>>> found;
  std::vector<int64_t> map;
  cut_groups(cost, 0, ipus, std::numeric_limits<double>::infinity(), 0, map, found);
  double best = std::numeric_limits<double>::infinity();
  for (const auto& [bottleneck, m] : found) {
    best = std::min(best, bottleneck);
  }
  found.clear();
  cut_groups(cost, 0, ipus, best * (1 + kSlack), 0, map, found);
  return found;
}

// The costliest IPU of `map`.
double bottleneck_of(const std::vector<double>& cost, const std::vector<int64_t>& map, int32_t ipus) {
  std::vector<double> on(static_cast<size_t>(ipus), 0.0);
  for (size_t s = 0; s < map.size(); ++s) {
    on[static_cast<size_t>(map[s])] += cost[s];
  }
  return *std::max_element(on.begin(), on.end());
}

// The mappings of the declared stages onto `ipus` IPUs: contiguous cuts of them all, and, when a
// stage reads a weight an earlier one owns (a head tied to the embedding), contiguous cuts of the
// others with each such stage on its owner's IPU, as Graphcore maps BERT and GPT-2.
std::vector<Layout> declared_layouts(const ModelFacts& facts, int32_t ipus, const Evaluate& evaluate) {
  const size_t n = facts.stages.size();
  if (n < static_cast<size_t>(ipus)) {
    return {};
  }
  const Figures f = evaluate({fmt::format("pipeline.device_mapping={}", int_list(std::vector<int64_t>(n, 0))),
                              "device.memory_per_tile=100000000"});
  std::vector<double> cost = f.stage_cycles.size() == n ? f.stage_cycles : std::vector<double>(n, 1.0);
  std::vector<std::pair<double, std::vector<int64_t>>> found = contiguous_cuts(cost, ipus);
  std::vector<bool> reader(n, false);
  for (const auto& [r, owner] : facts.sizes.ties) {
    reader[static_cast<size_t>(r)] = true;
  }
  std::vector<size_t> rest;
  std::vector<double> rest_cost;
  for (size_t s = 0; s < n; ++s) {
    if (!reader[s]) {
      rest.push_back(s);
      rest_cost.push_back(cost[s]);
    }
  }
  if (rest.size() < n && rest.size() >= static_cast<size_t>(ipus)) {
    for (const auto& [unused, m] : contiguous_cuts(rest_cost, ipus)) {
      std::vector<int64_t> map(n, 0);
      for (size_t k = 0; k < rest.size(); ++k) {
        map[rest[k]] = m[k];
      }
      for (size_t s = 0; s < n; ++s) {
        map[s] = reader[s] ? tied_ipu(facts, s, map) : map[s];
      }
      found.emplace_back(bottleneck_of(cost, map, ipus), std::move(map));
    }
  }
  double best = std::numeric_limits<double>::infinity();
  for (const auto& [bottleneck, m] : found) {
    best = std::min(best, bottleneck);
  }
  std::erase_if(found, [&](const auto& e) { return e.first > best * (1 + kSlack); });
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Layout> out;
  for (const auto& [bottleneck, m] : found) {
    Layout l;
    l.ipus = ipus;
    l.positions = static_cast<int32_t>(n);
    l.shares_ipu = n > static_cast<size_t>(ipus);
    l.sets = {fmt::format("pipeline.device_mapping={}", int_list(m))};
    if (std::any_of(out.begin(), out.end(), [&](const Layout& o) { return o.sets == l.sets; })) {
      continue;  // found both as a contiguous cut and with the tied stages on their owners' IPUs
    }
    l.label = n > 1 ? fmt::format("declared stages on IPUs {}", int_list(m)) : "the model as one stage";
    out.push_back(std::move(l));
  }
  return out;
}

// The deepest re-cut pipeline searched. Deeper ones on a pod (128 or 256 stages of ResNet-50) are
// never faster than replicas of a shorter one, and their schedules' timelines (accumulation a
// multiple of twice the stages) take gigabytes to plan.
constexpr int32_t kMaxRecutDepth = 16;

}  // namespace

std::vector<int64_t> split_layers(const std::vector<double>& fixed, double per_layer, int64_t layers) {
  const size_t ipus = fixed.size();
  const auto width = static_cast<size_t>(layers + 1);
  constexpr double kNone = std::numeric_limits<double>::infinity();
  // best[i][u]: the smallest bottleneck of IPUs 0..i holding u layers, and its squared drift from
  // the even split (the tie-break); from[i][u]: layers on IPU i.
  std::vector<std::vector<std::pair<double, double>>> best(ipus,
                                                           std::vector<std::pair<double, double>>(width, {kNone, 0}));
  std::vector<std::vector<int64_t>> from(ipus, std::vector<int64_t>(width, 0));
  const double even = static_cast<double>(layers) / static_cast<double>(ipus);
  for (size_t i = 0; i < ipus; ++i) {
    for (int64_t u = 0; u <= layers; ++u) {
      // IPU 0 holds every layer of the prefix; IPU i > 0 adds n to the best of IPUs 0..i-1.
      for (int64_t n = i == 0 ? u : 0; n <= u; ++n) {
        const double own = fixed[i] + per_layer * static_cast<double>(n);
        const double drift = (static_cast<double>(n) - even) * (static_cast<double>(n) - even);
        const std::pair<double, double> prev = i > 0 ? best[i - 1][static_cast<size_t>(u - n)] : std::pair{0.0, 0.0};
        const std::pair<double, double> cand{std::max(prev.first, own), prev.second + drift};
        if (prev.first != kNone && cand < best[i][static_cast<size_t>(u)]) {
          best[i][static_cast<size_t>(u)] = cand;
          from[i][static_cast<size_t>(u)] = n;
        }
      }
    }
  }
  std::vector<int64_t> out(ipus, 0);
  int64_t u = layers;
  for (size_t i = ipus; i-- > 0;) {
    out[i] = from[i][static_cast<size_t>(u)];
    u -= out[i];
  }
  return out;
}

std::vector<Layout> make_layouts(const ModelFacts& facts, int64_t ipus, const Evaluate& evaluate) {
  std::vector<int32_t> depths;
  for (int32_t p = 1; p <= ipus; ++p) {
    if (ipus % p == 0 && p >= facts.min_depth && p <= facts.max_depth) {
      depths.push_back(p);
    }
  }
  // The depths' calibration plans are independent and each can take seconds (GPT-2 medium): they
  // run in parallel, and are merged in depth order.
  std::vector<std::vector<Layout>> per_depth(depths.size());
  oneapi::tbb::parallel_for(size_t{0}, depths.size(), [&](size_t d) {
    if (!facts.sizes.params.empty() && facts.sizes.layers > 0) {
      if (std::optional<Layout> l = sized_layout(facts, depths[d], evaluate)) {
        per_depth[d].push_back(std::move(*l));
      }
    } else {
      per_depth[d] = declared_layouts(facts, depths[d], evaluate);
      if (std::optional<Layout> l = block_layout(facts, depths[d], evaluate)) {
        per_depth[d].push_back(std::move(*l));
      }
    }
  });
  std::vector<Layout> out;
  for (size_t d = 0; d < depths.size(); ++d) {
    const int32_t p = depths[d];
    std::vector<Layout>& own = per_depth[d];
    for (Layout& l : own) {
      l.replicas = static_cast<int32_t>(ipus / p);
      out.push_back(std::move(l));
    }
    if (p < 2 || p > kMaxRecutDepth) {
      continue;
    }
    // The model re-cut between ops into p balanced stages, one per IPU (auto_stage.cpp's programme);
    // a model whose stages share a tied weight cannot be cut this way and fails when planned.
    Layout cut;
    cut.ipus = p;
    cut.replicas = static_cast<int32_t>(ipus / p);
    cut.positions = p;
    cut.sets = {"pipeline.stages=[]", "pipeline.device_mapping=[]", fmt::format("pipeline.auto_stages={}", p)};
    if (!facts.sizes.params.empty() && facts.sizes.layers > 0) {
      for (size_t s = 0; s < facts.sizes.params.size(); ++s) {
        cut.sets.push_back(fmt::format("model.{}={}", facts.sizes.params[s], s == 0 ? facts.sizes.layers : 0));
      }
    }
    cut.label = fmt::format("re-cut into {} balanced stages", p);
    out.push_back(std::move(cut));
  }
  return out;
}

}  // namespace iputrain::api::tune
