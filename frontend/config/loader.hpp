// iputrain — turns TOML text and `--set` overrides into a validated Config (internal).
#pragma once

#include <string>
#include <vector>

#include "iputrain/config.hpp"

namespace iputrain {

//! Builds one Config; friend of Config so it can record spans and sources.
class ConfigLoader {
 public:
  //! Parses `text` (registered as `path` for messages), validates it against the schema and
  //! applies `sets` on top. Throws located Error(Config).
  static Config run(const std::string& text, const std::string& path, const std::vector<std::string>& sets);
};

}  // namespace iputrain
