// What `iputrain tune` learns of a model from its IR, whatever its parameters are called: the
// compile-time parameters that size its declared stages, and the stages that read a weight another
// stage owns (a head tied to the embedding).
//
// A parameter sizes a stage when lowering the model with it one larger adds a block of ops to that
// stage alone (a `for` over a layer, however deep in the calls). Models that check the blocks add
// up to a total (`assert` over the sum) refuse a change of one: those parameters are probed in
// pairs, one block moved from one stage to another, as the search itself moves them. The layers the
// search moves are the largest family of equal blocks (the same ops on the same shapes): blocks of
// different shapes (ResNet's groups) are not interchangeable and stay where the model put them.
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <map>
#include <optional>

#include "api/tune_space.hpp"
#include "frontend/model_access.hpp"
#include "iputrain/model.hpp"
#include "planner/auto_stage.hpp"

namespace iputrain::api::tune {

namespace {

// The ops of one stage: (op, type) -> how many.
using Signature = std::map<std::pair<int32_t, std::string>, int64_t>;

// A probe's lowering: each declared stage's ops, by the model's stage order; nullopt = the model
// refused the values.
using Stages = std::optional<std::vector<Signature>>;

// Graph stage -> declared stage (the model's order), -1 for a stage the model did not declare.
std::vector<int32_t> declared_index(const Model& model) {
  const std::vector<std::string> names = model.stages();
  const ir::Graph& g = graph_of(model);
  std::vector<int32_t> index(g.stages.size(), -1);
  for (size_t s = 0; s < g.stages.size(); ++s) {
    const auto it = std::find(names.begin(), names.end(), g.stages[s].name);
    index[s] = it == names.end() ? -1 : static_cast<int32_t>(it - names.begin());
  }
  return index;
}

std::vector<Signature> signatures_of(const Model& model) {
  const ir::Graph& g = graph_of(model);
  const std::vector<int32_t> index = declared_index(model);
  std::vector<Signature> out(model.stages().size());
  for (const ir::Node& n : g.nodes()) {
    const int32_t s = n.stage >= 0 && static_cast<size_t>(n.stage) < index.size() ? index[n.stage] : -1;
    if (s >= 0) {
      out[static_cast<size_t>(s)][{static_cast<int32_t>(n.op), n.type.str()}] += 1;
    }
  }
  return out;
}

Stages signatures(const std::string& path, const Config& config) {
  try {
    return signatures_of(Model::load(path, config));
  } catch (const Error&) {
    return std::nullopt;
  }
}

// after - before when it only adds ops (nullopt when it removes any, empty when equal).
std::optional<Signature> added(const Signature& before, const Signature& after) {
  Signature out;
  for (const auto& [key, n] : before) {
    const auto it = after.find(key);
    if (it == after.end() || it->second < n) {
      return std::nullopt;
    }
  }
  for (const auto& [key, n] : after) {
    const auto it = before.find(key);
    const int64_t more = n - (it == before.end() ? 0 : it->second);
    if (more > 0) {
      out[key] = more;
    }
  }
  return out;
}

struct Found {
  int32_t stage = -1;
  Signature block;
  int64_t partner = -1;  //!< found in a pair: the parameter whose stage gave the block (index)
  int32_t partner_stage = -1;
};

// `base` with `n` copies of `block` more (n < 0: fewer); nullopt when it has fewer than that.
std::optional<Signature> plus(Signature base, const Signature& block, int64_t n) {
  for (const auto& [key, count] : block) {
    base[key] += n * count;
    if (base[key] < 0) {
      return std::nullopt;
    }
    if (base[key] == 0) {
      base.erase(key);
    }
  }
  return base;
}

// The one stage whose ops grew by a block from `base` to `probe` (every other stage the same and
// `shrunk`, when given, smaller by the same block), or nullopt.
std::optional<Found> one_block(const std::vector<Signature>& base, const Stages& probe, int32_t shrunk = -1) {
  if (!probe) {
    return std::nullopt;
  }
  Found f;
  for (size_t s = 0; s < base.size(); ++s) {
    if (static_cast<int32_t>(s) == shrunk) {
      continue;
    }
    const std::optional<Signature> more = added(base[s], (*probe)[s]);
    if (!more) {
      return std::nullopt;
    }
    if (!more->empty()) {
      if (f.stage >= 0) {
        return std::nullopt;  // a second stage changed
      }
      f = {static_cast<int32_t>(s), *more};
    }
  }
  if (f.stage < 0) {
    return std::nullopt;
  }
  if (shrunk >= 0) {
    const std::optional<Signature> less =
        added((*probe)[static_cast<size_t>(shrunk)], base[static_cast<size_t>(shrunk)]);
    if (!less || *less != f.block) {
      return std::nullopt;
    }
  }
  return f;
}

Config with(const Config& config, const std::vector<std::pair<std::string, int64_t>>& values) {
  Config c = config;
  for (const auto& [name, v] : values) {
    c.model[name] = v;
  }
  return c;
}

// Parameters larger than this are sizes of tensors, not counts of blocks.
constexpr int64_t kMostBlocks = 4096;

// Tied weights: (reader, owner) for a weight owned by one declared stage and read by a later one.
std::vector<std::pair<int32_t, int32_t>> tied_stages(const Model& model) {
  const ir::Graph& g = graph_of(model);
  const std::vector<int32_t> declared = declared_index(model);
  std::vector<std::pair<int32_t, int32_t>> ties;
  for (const ir::Node& n : g.nodes()) {
    for (const ir::ValueId in : n.inputs) {
      const ir::Node& w = g.node(in);
      const int32_t owner = declared[static_cast<size_t>(w.stage)];
      const int32_t reader = declared[static_cast<size_t>(n.stage)];
      if (ir::is_weight(w) && owner >= 0 && reader > owner &&
          std::find(ties.begin(), ties.end(), std::pair{reader, owner}) == ties.end()) {
        ties.emplace_back(reader, owner);
      }
    }
  }
  std::sort(ties.begin(), ties.end());
  return ties;
}

// The probes of one model: its integer parameters, each one's block when it sizes a stage.
struct Prober {
  const std::string& path;
  const Config& config;
  std::vector<Signature> base;
  size_t stages;
  std::vector<std::pair<std::string, int64_t>> counts;  // name, value
  std::vector<std::optional<Found>> found;

  // Each one larger, alone; the ones the model refuses so, in pairs (one block moved from q's stage to p's).
  void probe_counts() {
    found.assign(counts.size(), std::nullopt);
    std::vector<Stages> single(counts.size());
    oneapi::tbb::parallel_for(size_t{0}, counts.size(), [&](size_t i) {
      single[i] = signatures(path, with(config, {{counts[i].first, counts[i].second + 1}}));
    });
    std::vector<size_t> refused;
    for (size_t i = 0; i < counts.size(); ++i) {
      found[i] = one_block(base, single[i]);
      if (!single[i]) {
        refused.push_back(i);
      }
    }
    oneapi::tbb::parallel_for(size_t{0}, refused.size(),
                              [&](size_t a) { found[refused[a]] = moved(refused[a], refused); });
  }

  std::optional<Found> moved(size_t p, const std::vector<size_t>& partners) const {
    for (size_t q : partners) {
      if (q == p || counts[q].second < 1) {
        continue;
      }
      const Stages probe = signatures(
          path, with(config, {{counts[p].first, counts[p].second + 1}, {counts[q].first, counts[q].second - 1}}));
      // q's stage is the one that shrank: try each stage as it.
      for (int32_t s = 0; probe && s < static_cast<int32_t>(stages); ++s) {
        if (std::optional<Found> f = one_block(base, probe, s); f && f->stage != s) {
          f->partner = static_cast<int64_t>(q);
          f->partner_stage = s;
          return f;
        }
      }
    }
    return std::nullopt;
  }

  // A count of blocks: at 0 its stage holds none of them (its value's worth leave it, for the
  // partner's stage when found in a pair), not a bound such as the end of a range of layers.
  void check_counts() {
    oneapi::tbb::parallel_for(size_t{0}, counts.size(), [&](size_t i) {
      if (found[i] && counts[i].second > 0 && !empties(i)) {
        found[i].reset();
      }
    });
  }

  bool empties(size_t i) const {
    const Found& f = *found[i];
    const int64_t v = counts[i].second;
    std::vector<std::pair<std::string, int64_t>> values = {{counts[i].first, 0}};
    std::vector<Signature> want = base;
    const std::optional<Signature> less = plus(want[static_cast<size_t>(f.stage)], f.block, -v);
    if (!less) {
      return false;
    }
    want[static_cast<size_t>(f.stage)] = *less;
    if (f.partner >= 0) {
      const auto q = static_cast<size_t>(f.partner);
      values.emplace_back(counts[q].first, counts[q].second + v);
      want[static_cast<size_t>(f.partner_stage)] = *plus(want[static_cast<size_t>(f.partner_stage)], f.block, v);
    }
    const Stages probe = signatures(path, with(config, values));
    return probe && *probe == want;
  }

  // The largest family of equal blocks, one parameter per stage (the first by name), when it sizes
  // two stages at least: one stage's count alone leaves nothing to move between stages.
  void choose_family(StageSizes& out) const {
    std::map<Signature, std::vector<size_t>> families;
    for (size_t i = 0; i < counts.size(); ++i) {
      if (found[i]) {
        families[found[i]->block].push_back(i);
      }
    }
    const std::vector<size_t>* best = nullptr;
    for (const auto& [block, members] : families) {
      if (best == nullptr || members.size() > best->size()) {
        best = &members;
      }
    }
    if (best == nullptr || best->size() < 2) {
      return;
    }
    std::map<int32_t, size_t> per_stage;
    for (size_t i : *best) {
      per_stage.emplace(found[i]->stage, i);
    }
    for (const auto& [stage, i] : per_stage) {
      out.params.push_back(counts[i].first);
      out.stages.push_back(stage);
      out.layers += counts[i].second;
    }
  }
};

}  // namespace

StageSizes find_stage_sizes(const std::string& path, const Config& config) {
  StageSizes out;
  const Model model = Model::load(path, config);
  out.ties = tied_stages(model);
  if (model.stages().size() < 2) {
    const planner::ModelBlocks blocks = planner::model_blocks(graph_of(model));
    out.blocks = blocks.count;
    out.tied_tail = blocks.tied_tail;
    return out;
  }
  const std::vector<Signature> base = signatures_of(model);
  Prober prober{path, config, base, base.size(), {}, {}};
  for (const auto& [name, v] : model.compile_time_params()) {
    if (std::holds_alternative<int64_t>(v) && std::get<int64_t>(v) >= 0 && std::get<int64_t>(v) <= kMostBlocks) {
      prober.counts.emplace_back(name, std::get<int64_t>(v));
    }
  }
  prober.probe_counts();
  prober.check_counts();
  prober.choose_family(out);
  return out;
}

}  // namespace iputrain::api::tune
