// The optimizer table, generated from optimizer_list.hpp in its order, and what every stage asks
// of it (core/optim_table.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "core/optim/optimizer.hpp"
#include "core/optim_table.hpp"
#include "iputrain/error.hpp"

namespace iputrain {

namespace {

std::string joined_and(const std::vector<std::string_view>& names) {
  if (names.size() < 2) {
    return names.empty() ? std::string() : std::string(names.front());
  }
  std::vector<std::string_view> head(names.begin(), names.end() - 1);
  return fmt::format("{} and {}", fmt::join(head, ", "), names.back());
}

// The shared keys must agree: one doc, range and kind per key.
void check_same(const HyperParam& a, const HyperParam& b, std::string_view optimizer) {
  const bool same = a.doc == b.doc && a.flag == b.flag && a.range.min == b.range.min &&
                    a.range.min_open == b.range.min_open && a.range.max == b.range.max &&
                    a.range.max_open == b.range.max_open;
  if (!same) {
    throw Error(ErrorKind::Internal,
                fmt::format("optimizer \"{}\" declares hyper-parameter `{}` with another doc, range or kind than the "
                            "optimizers before it (core/optim/hyper_params.hpp holds the shared ones)",
                            optimizer, a.name));
  }
}

}  // namespace

const HyperParam* OptimizerDef::find(std::string_view param) const {
  for (const HyperParam& p : params) {
    if (p.name == param) {
      return &p;
    }
  }
  return nullptr;
}

const std::vector<const OptimizerDef*>& optimizer_table() {
  static const std::vector<const OptimizerDef*> all = {
#define IPUTRAIN_OPTIMIZER(Name) &optim::k##Name##Optimizer,
#include "core/optim/optimizer_list.hpp"
#undef IPUTRAIN_OPTIMIZER
  };
  return all;
}

std::vector<std::string> optimizer_names() {
  std::vector<std::string> out;
  for (const OptimizerDef* d : optimizer_table()) {
    out.emplace_back(d->name);
  }
  return out;
}

const OptimizerDef* find_optimizer(std::string_view name) {
  for (const OptimizerDef* d : optimizer_table()) {
    if (d->name == name) {
      return d;
    }
  }
  return nullptr;
}

const OptimizerDef& optimizer_def(const OptimizerSettings& o) {
  const OptimizerDef* d = find_optimizer(o.type);
  if (d == nullptr) {
    throw Error(ErrorKind::Internal, fmt::format("optimizer \"{}\" is not in core/optim/optimizer_list.hpp", o.type));
  }
  return *d;
}

const std::vector<HyperKey>& optimizer_hyper_keys() {
  static const std::vector<HyperKey> all = [] {
    std::vector<HyperKey> keys;
    for (const OptimizerDef* d : optimizer_table()) {
      for (const HyperParam& p : d->params) {
        auto it = std::find_if(keys.begin(), keys.end(), [&](const HyperKey& k) { return k.name == p.name; });
        if (it == keys.end()) {
          keys.push_back({p.name, &p, {}});
          it = keys.end() - 1;
        }
        check_same(*it->first, p, d->name);
        it->readers.push_back(d);
      }
    }
    return keys;
  }();
  return all;
}

const HyperKey* find_hyper_key(std::string_view name) {
  for (const HyperKey& k : optimizer_hyper_keys()) {
    if (k.name == name) {
      return &k;
    }
  }
  return nullptr;
}

std::string HyperKey::doc() const {
  std::string out(first->doc);
  std::vector<std::string_view> readers_named, variant_readers, variants;
  std::vector<std::string> defaults;
  for (const OptimizerDef* d : readers) {
    const HyperParam& p = *d->find(name);
    readers_named.push_back(d->name);
    if (p.default_value != first->default_value) {
      defaults.push_back(fmt::format("{} for {}", p.default_value, d->name));
    }
    if (!p.variant.empty()) {
      variants.push_back(p.variant);
      variant_readers.push_back(d->name);
    }
  }
  if (!variants.empty()) {
    // One variant word per key ("decoupled"), the optimizers that apply it listed.
    out.insert(out.size() - 1, fmt::format(", {} for {}", variants.front(), joined_and(variant_readers)));
  }
  if (readers.size() < optimizer_table().size()) {
    out.insert(out.size() - 1, fmt::format(" ({})", fmt::join(readers_named, ", ")));
  }
  if (!defaults.empty()) {
    out += fmt::format(" Default {}.", fmt::join(defaults, ", "));
  }
  return out;
}

std::vector<Shape> optimizer_state_shapes(const OptimizerSettings& o, const Shape& weight) {
  return optimizer_def(o).state(weight, o);
}

int64_t optimizer_state_floats(const OptimizerSettings& o, const Shape& weight) {
  int64_t n = 0;
  for (const Shape& s : optimizer_state_shapes(o, weight)) {
    n += numel(s);
  }
  return n;
}

int32_t optimizer_state_slots(const OptimizerSettings& o) {
  return static_cast<int32_t>(optimizer_state_shapes(o, Shape{2, 2}).size());
}

double OptimizerSettings::param(std::string_view name) const {
  const auto it = hyper.find(name);
  if (it == hyper.end()) {
    throw Error(ErrorKind::Internal, fmt::format("optimizer \"{}\" reads hyper-parameter `{}`, which its "
                                                 "settings lack (resolve fills every one its definition declares)",
                                                 type, name));
  }
  return it->second;
}

}  // namespace iputrain
