// The keys that are not plain lines: composition (`extends`), the model's parameters (`[model]`) and
// the optimizer's hyper-parameters, generated from the optimizer table: each is declared once, by the
// optimizers that read it (core/optim/), and read there.
#include "core/optim_table.hpp"
#include "frontend/config/bind.hpp"

namespace iputrain::config {

// The keys of the optimizer table's hyper-parameters, in its order: kind, default, range and doc
// (which names the optimizers that read it and their own defaults) from the declarations. The value
// lives in OptimizerSection::hyper under the name; one never written reads as the key's default.
std::vector<KeySpec> hyper_keys() {
  std::vector<KeySpec> out;
  for (const HyperKey& k : optimizer_hyper_keys()) {
    const HyperParam& p = *k.first;
    const std::string name(k.name);
    const double fallback = p.default_value;
    const bool flag = p.flag;
    Accessor access{[name, flag](Config& c, const Value& v) {
                      c.optimizer.hyper[name] = flag ? (std::get<bool>(v) ? 1.0 : 0.0) : std::get<double>(v);
                    },
                    [name, flag, fallback](const Config& c) -> Value {
                      const auto it = c.optimizer.hyper.find(name);
                      const double v = it == c.optimizer.hyper.end() ? fallback : it->second;
                      return flag ? Value(v != 0) : Value(v);
                    }};
    const std::string path = "optimizer." + name;
    if (flag) {
      out.push_back(
          detail::key(path, std::move(access), KeyType::Bool, fallback != 0, Effect::Runs, k.doc()).defining());
    } else {
      const ParamRange& r = p.range;
      out.push_back(detail::key(path, std::move(access), KeyType::Float, fallback, Effect::Runs, k.doc(),
                                Range{r.min, r.min_open, r.max, r.max_open})
                        .defining());
    }
  }
  return out;
}

std::vector<KeySpec> run_keys() {
  using enum KeyType;

  KeySpec extends;
  extends.path = "extends";
  extends.type = String;
  extends.default_value = std::string{};
  extends.doc =
      "Base config loaded first (path relative to this file); this file's keys replace its keys one by "
      "one.";
  KeySpec model;
  model.path = "model";
  model.type = FreeTable;
  model.default_value = ValueTable{};
  model.doc = "Overrides of the model's compile-time parameters, by name (e.g. `hidden = 256`).";

  return {extends, model};
}

}  // namespace iputrain::config
