// Model::load(path, config): ties a model to the config it trains under. Overrides from `[model]`
// are checked against the model's declared parameters first, so a typo points at the config key.
#include <fmt/format.h>

#include <algorithm>

#include "iputrain/model.hpp"

namespace iputrain {

namespace {

const char* kind_of(const ParamValue& v) {
  switch (v.index()) {
    case 0: return "an integer";
    case 1: return "a float";
    case 2: return "a bool";
    default: return "a string";
  }
}

}  // namespace

Model Model::load(const std::string& path, const Config& config) {
  std::map<std::string, ParamValue> overrides = config.model;
  std::map<std::string, ParamValue> declared;
  try {
    declared = Model::load(path).compile_time_params();
  } catch (const Error&) {
    // The defaults alone may not elaborate; the load below reports whatever is wrong.
    return Model::load(path, overrides);
  }
  std::vector<std::string> names;
  for (const auto& [name, value] : declared) {
    names.push_back(name);
  }
  for (const auto& [name, value] : overrides) {
    const auto it = declared.find(name);
    if (it == declared.end()) {
      const std::string near = nearest_name(name, names);
      config.fail_at("model." + name, fmt::format("the model has no compile-time parameter `{}`", name),
                     near.empty() ? fmt::format("its parameters are: {}", fmt::join(names, ", "))
                                  : fmt::format("did you mean `{}`?", near));
    }
    const bool int_for_float = it->second.index() == 1 && value.index() == 0;
    if (it->second.index() != value.index() && !int_for_float) {
      config.fail_at("model." + name,
                     fmt::format("model parameter `{}` takes {}, got {}", name, kind_of(it->second), kind_of(value)),
                     fmt::format("its default is {}", param_value_str(it->second)));
    }
  }
  // data.batch_size sets the model's `batch` unless [model] does; under batch serialization the
  // model computes one slice of it at a time (the rules check that the slices are equal).
  const auto batch = declared.find("batch");
  if (config.data.batch_size > 0 && batch != declared.end() && !overrides.contains("batch") &&
      batch->second.index() == 0) {
    overrides["batch"] = config.data.batch_size / std::max<int64_t>(1, config.pipeline.batch_serialization_iterations);
  }
  return Model::load(path, overrides);
}

}  // namespace iputrain
