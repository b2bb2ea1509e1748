// The one place a loaded config becomes typed settings: the plain keys (iputrain/plain_keys.hpp) are
// settled by their lines (as written, or by the line's DERIVE rule: data.seed 0, epochs 0, prefetching
// off, keep_best_mode auto, the [device] and [system] figures by their presets, the schedule under
// batch serialization), the optimizer is found in its table, and the number of IPUs is settled.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "core/optim_table.hpp"
#include "frontend/config/resolve_count.hpp"
#include "frontend/config/rules.hpp"
#include "frontend/config/schema.hpp"
#include "iputrain/config_loader.hpp"

namespace iputrain {

namespace {

//! The optimizer of `optimizer.type` (in any case, as the schema allows); a Config built in code that
//! names none is refused at the key.
const OptimizerDef& optimizer_named(const Config& c) {
  for (const OptimizerDef* d : optimizer_table()) {
    if (config::enum_folded(d->name) == config::enum_folded(c.plain.optimizer_type)) {
      return *d;
    }
  }
  c.fail_at("optimizer.type", fmt::format("`optimizer.type` = \"{}\" is not an optimizer", c.plain.optimizer_type),
            fmt::format("name one of {}", fmt::join(optimizer_names(), ", ")));
}

OptimizerSettings resolve_optimizer(const Config& c) {
  const OptimizerSection& o = c.optimizer;
  OptimizerSettings s;
  const OptimizerDef& def = optimizer_named(c);
  s.type = std::string(def.name);
  // Each hyper-parameter the optimizer declares, from its key; one left at the key's default
  // takes the optimizer's own (lion's beta2), unless a file or --set wrote it.
  for (const HyperParam& p : def.params) {
    const HyperKey& key = *find_hyper_key(p.name);
    const auto it = o.hyper.find(std::string(p.name));
    double value = it == o.hyper.end() ? key.first->default_value : it->second;
    if (!c.is_set(fmt::format("optimizer.{}", p.name)) && value == key.first->default_value) {
      value = p.default_value;
    }
    s.hyper.emplace(std::string(p.name), value);
  }
  return s;
}

// availableMemoryProportion and partialsType of one options table, over `base`; a value they cannot
// be is an error at `key`.
MemoryOptions memory_options(const Config& config, const char* key, const OptionMap& options,
                             const MemoryOptions& base) {
  MemoryOptions out = base;
  if (const auto amp = options.find("availableMemoryProportion"); amp != options.end()) {
    char* end = nullptr;
    const double value = std::strtod(amp->second.c_str(), &end);
    if (end == amp->second.c_str() || *end != '\0' || !(value > 0.0 && value <= 1.0)) {
      config.fail_at(key, fmt::format("availableMemoryProportion \"{}\" is not a proportion in (0, 1]", amp->second),
                     "give the share of each tile's memory for matmul or convolution temporaries, e.g. \"0.6\"");
    }
    out.available_memory_proportion = value;
  }
  if (const auto partials = options.find("partialsType"); partials != options.end()) {
    if (partials->second != "half" && partials->second != "float") {
      config.fail_at(key, fmt::format("partialsType \"{}\" is neither \"half\" nor \"float\"", partials->second),
                     "partials are kept in \"float\" (the default) or \"half\"");
    }
    out.half_partials = partials->second == "half";
  }
  return out;
}

// The layout keys of `[pipeline]` the planner reads, as numbers.
void resolve_layout(const Config& cfg, PipelineSettings& s) {
  s.pipelined = cfg.is_set("pipeline.schedule") || cfg.is_set("pipeline.device_mapping") ||
                cfg.plain.pipeline_batch_serialization_iterations > 1;
  s.memory = {memory_options(cfg, "ipu.matmuls.poplar_options", cfg.plain.ipu_matmuls_poplar_options, {}),
              memory_options(cfg, "ipu.convolutions.poplar_options", cfg.plain.ipu_convolutions_poplar_options, {})};
  for (const char* key :
       {"pipeline.forward_propagation_stages_poplar_options", "pipeline.backward_propagation_stages_poplar_options"}) {
    const bool forward = std::string(key).find("forward") != std::string::npos;
    const auto& list = forward ? cfg.plain.pipeline_forward_propagation_stages_poplar_options
                               : cfg.plain.pipeline_backward_propagation_stages_poplar_options;
    auto& out = forward ? s.forward_memory : s.backward_memory;
    for (const StageOptions& stage : list) {
      out.push_back({memory_options(cfg, key, stage.matmul_options, s.memory.matmul),
                     memory_options(cfg, key, stage.convolution_options, s.memory.convolution)});
    }
  }
}

// One plain key's value: as written, or by its line's DERIVE rule.
template <class T, class Derive>
void settle(const Config& cfg, T& out, const Derive& derive) {
  if constexpr (!std::is_same_v<Derive, AsWritten>) {
    out = derive(cfg);
  }
}

IpuSettings resolve_ipu(const Config& cfg) {
  IpuSettings s;
  s.physical = config::selected_ipus(cfg.plain.ipu_select_ipus);
  s.count = config::num_ipus(cfg);
  s.instances =
      static_cast<int32_t>(std::max<int64_t>(1, cfg.plain.ipu_experimental_multi_replica_distribution_process_count));
  return s;
}

}  // namespace

}  // namespace iputrain

namespace iputrain::config {

namespace {
std::atomic<int64_t> resolved_count{0};
}  // namespace

int64_t resolutions() { return resolved_count.load(); }

// The plain keys (iputrain/plain_keys.hpp): copied as written, then each line's rule applied once,
// in the lines' order; the rules read the config as written, never each other's results.
PlainKeys settled_plain_keys(const Config& cfg) {
  PlainKeys out = cfg.plain;
#define IPUTRAIN_SETTLE(field, path, type, value, effect, marks, doc, range, needs, derive) \
  settle<type>(cfg, out.field, derive);
  IPUTRAIN_PLAIN_KEYS(IPUTRAIN_SETTLE)
#undef IPUTRAIN_SETTLE
  return out;
}

Settings resolve(const Config& cfg) {
  resolved_count.fetch_add(1);
  Settings s;
  s.plain = settled_plain_keys(cfg);
  s.optimizer = resolve_optimizer(cfg);
  resolve_layout(cfg, s.pipeline);
  s.ipu = resolve_ipu(cfg);
  s.validation.enabled = config::validates(cfg);
  s.model_batch =
      s.plain.data_batch_size / s.plain.pipeline_batch_serialization_iterations;  // the rules refuse a remainder
  s.keys = {cfg.origin.spans, cfg.origin.sources};
  return s;
}

int64_t num_ipus(const Config& cfg) {
  if (!cfg.plain.ipu_select_ipus.empty()) {
    return static_cast<int64_t>(selected_ipus(cfg.plain.ipu_select_ipus).size());
  }
  return cfg.plain.ipu_auto_select_ipus;
}

}  // namespace iputrain::config
