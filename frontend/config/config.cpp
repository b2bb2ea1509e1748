#include "iputrain/config.hpp"
#include "iputrain/settings.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "core/data_source_table.hpp"
#include "core/toml_string.hpp"

namespace iputrain {

std::string param_value_str(const ParamValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) {
    return fmt::format("{}", *i);
  }
  if (const auto* d = std::get_if<double>(&v)) {
    std::string s = fmt::format("{}", *d);
    // Keep floats recognisable as floats when the text is read back (TOML, --set).
    if (std::isfinite(*d) && s.find_first_of(".eE") == std::string::npos) {
      s += ".0";
    }
    return s;
  }
  if (const auto* b = std::get_if<bool>(&v)) {
    return *b ? "true" : "false";
  }
  return toml_string(std::get<std::string>(v));
}

SourceSpan Config::span_of(const std::string& key_path) const {
  auto it = origin.spans.find(key_path);
  return it == origin.spans.end() ? SourceSpan{} : it->second;
}

bool Config::set_in_file(const std::string& key_path) const {
  const SourceSpan span = span_of(key_path);
  // The loader registers `--set` overrides as the pseudo-file "--set": they were typed in the
  // current directory, like every other path on the command line.
  return span.valid() && span.file < origin.sources->size() && origin.sources->path(span.file) != "--set";
}

std::string Config::base_dir_of(const std::string& key_path) const {
  if (!set_in_file(key_path)) {
    return {};
  }
  return std::filesystem::path(origin.sources->path(span_of(key_path).file)).parent_path().string();
}

std::string Config::resolve_path(const std::string& key_path, const std::string& value, bool absolute) const {
  const std::filesystem::path p(value);
  const std::string base = base_dir_of(key_path);
  if (value.empty() || p.is_absolute() || (base.empty() && !absolute)) {
    return value;
  }
  const std::filesystem::path resolved = std::filesystem::path(base) / p;
  return absolute ? std::filesystem::absolute(resolved).lexically_normal().string() : resolved.string();
}

std::string Config::resolve_data_spec(const std::string& key_path, const std::string& spec, bool absolute) const {
  const size_t colon = spec.find(':');  // an unknown kind is resolved too (open_dataset refuses it)
  const DataSourceDef* format = colon == std::string::npos ? nullptr : find_data_source(spec.substr(0, colon));
  if (colon == std::string::npos || (format != nullptr && !format->names_file)) {
    return spec;
  }
  return spec.substr(0, colon + 1) + resolve_path(key_path, spec.substr(colon + 1), absolute);
}

void Config::fail_at(const std::string& key_path, const std::string& message, const std::string& hint,
                     ErrorKind kind) const {
  throw Error(kind, message, span_of(key_path), hint).with_sources(origin.sources);
}

std::vector<std::string> Config::warnings() const {
  std::vector<std::string> out;
  for (const Diagnostic& d : origin.warnings) {
    out.push_back(render(d, origin.sources.get()));
  }
  return out;
}

}  // namespace iputrain
