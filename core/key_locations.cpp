// KeyLocations (core/public/iputrain/settings.hpp): where each key of a resolved config was set, so a
// rule the planner checks later fails at the key's line.
#include "iputrain/settings.hpp"

namespace iputrain {

bool KeyLocations::is_set(const std::string& key) const {
  const auto it = spans.find(key);
  return it != spans.end() && it->second.valid();
}

void KeyLocations::fail_at(const std::string& key, const std::string& message, const std::string& hint,
                           ErrorKind kind) const {
  const auto it = spans.find(key);
  throw Error(kind, message, it == spans.end() ? SourceSpan{} : it->second, hint).with_sources(sources);
}

}  // namespace iputrain
