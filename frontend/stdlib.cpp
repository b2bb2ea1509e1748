#include "frontend/stdlib.hpp"

#include <algorithm>

namespace iputrain::frontend {

// Defined in the generated stdlib_embedded.cpp.
extern const EmbeddedModule kStdlibModules[];
extern const int kStdlibModuleCount;

std::optional<std::string_view> stdlib_module(std::string_view name) {
  for (int k = 0; k < kStdlibModuleCount; ++k) {
    if (name == kStdlibModules[k].name) {
      return std::string_view(kStdlibModules[k].text);
    }
  }
  return std::nullopt;
}

std::vector<std::string> stdlib_module_names() {
  std::vector<std::string> out;
  for (int k = 0; k < kStdlibModuleCount; ++k) {
    out.emplace_back(kStdlibModules[k].name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace iputrain::frontend
