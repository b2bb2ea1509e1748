#include "core/read_limits.hpp"
#include "iputrain/config.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend/config/loader.hpp"
#include "frontend/config/rules.hpp"
#include "frontend/config/schema.hpp"

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
  std::string out = "\"";
  for (char c : std::get<std::string>(v)) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04X}", static_cast<unsigned>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

Config::Config() : sources_(std::make_shared<SourceManager>()) {}

Config Config::load(const std::string& path, const std::vector<std::string>& sets) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw Error(ErrorKind::Io, fmt::format("cannot read config file `{}`: it is a directory", path), {},
                "pass the path of a .toml file");
  }
  check_text_file_size(path, "config file", ErrorKind::Io);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(ErrorKind::Io, fmt::format("cannot read config file `{}`: {}", path, std::strerror(errno)),
                {}, "check the path; relative paths are resolved against the current directory");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path, sets);
}

Config Config::parse(const std::string& text, const std::string& path, const std::vector<std::string>& sets) {
  if (text.size() > kMaxTextBytes) {
    throw Error(ErrorKind::Config,
                fmt::format("config text `{}` is {} bytes, more than the {} MiB iputrain reads", path, text.size(),
                            kMaxTextBytes >> 20),
                {}, "a config file is text of a few kilobytes");
  }
  return ConfigLoader::run(text, path, sets);
}

SourceSpan Config::span_of(const std::string& key_path) const {
  auto it = spans_.find(key_path);
  return it == spans_.end() ? SourceSpan{} : it->second;
}

void Config::fail_at(const std::string& key_path, const std::string& message, const std::string& hint,
                     ErrorKind kind) const {
  throw Error(kind, message, span_of(key_path), hint).with_sources(sources_);
}

int64_t Config::num_ipus() const {
  if (!ipu.select_ipus.empty()) {
    return static_cast<int64_t>(config::selected_ipus(ipu.select_ipus).size());
  }
  return ipu.auto_select_ipus;
}

std::vector<std::string> Config::warnings() const {
  std::vector<std::string> out;
  for (const Diagnostic& d : warnings_) {
    out.push_back(render(d, sources_.get()));
  }
  return out;
}

std::string Config::show() const {
  return config::effective_toml(*this);
}

std::string Config::explain(const std::string& key) {
  return config::explain_text(key);
}

std::string Config::suggest_key(const std::string& key) { return config::suggest_key(key); }

std::vector<std::string> Config::key_choices(const std::string& key) {
  const config::KeySpec* k = config::find_key(key);
  if (k == nullptr) {
    return {};
  }
  switch (k->type) {
    case config::KeyType::Enum: return k->allowed;
    case config::KeyType::Bool: return {"true", "false"};
    case config::KeyType::AutoBool: return {"true", "false", "auto"};
    default: return {};
  }
}

std::optional<std::string> Config::default_text(const std::string& key) {
  const config::KeySpec* k = config::find_key(key);
  if (k == nullptr || !k->access.get) {
    return std::nullopt;
  }
  return config::toml_text(k->default_value);
}

std::optional<std::string> Config::value_text(const std::string& key) const {
  const config::KeySpec* k = config::find_key(key);
  if (k == nullptr || !k->access.get) {
    return std::nullopt;
  }
  return config::toml_text(k->access.get(*this));
}

std::vector<std::string> Config::keys() {
  std::vector<std::string> out;
  for (const auto& k : config::schema()) {
    out.push_back(k.path);
  }
  return out;
}

std::string Config::reference_markdown() {
  return config::reference_markdown();
}

}  // namespace iputrain
