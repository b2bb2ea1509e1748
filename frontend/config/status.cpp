// The status of each key, enforced when a config is loaded: a refused key fails and a key kept for
// compatibility warns, in one place, so `check`, `plan`, `train` and the API agree about them.
#include <fmt/format.h>

#include "frontend/config/schema.hpp"

namespace iputrain::config {

KeySpec KeySpec::refused(std::string why, std::string instead) && {
  effect = Effect::Refused;
  reason = std::move(why);
  hint = std::move(instead);
  return std::move(*this);
}

KeySpec KeySpec::as_path() && {
  is_path = true;
  return std::move(*this);
}

KeySpec KeySpec::no_effect(std::string why) && {
  effect = Effect::None;
  reason = std::move(why);
  return std::move(*this);
}

std::string_view effect_word(Effect e) {
  switch (e) {
    case Effect::Runs:
      return "acts";
    case Effect::Models:
      return "modelled";
    case Effect::Refused:
      return "refused";
    case Effect::None:
      return "no effect";
  }
  return "?";
}

bool holds_default(const Config& cfg, const KeySpec& key) {
  if (!key.access.get) {
    return true;
  }
  return key.access.get(cfg) == key.default_value;
}

std::vector<Diagnostic> check_statuses(const Config& cfg) {
  std::vector<Diagnostic> warnings;
  for (const KeySpec& key : schema()) {
    if ((key.effect != Effect::Refused && key.effect != Effect::None) || !cfg.is_set(key.path) ||
        holds_default(cfg, key)) {
      continue;
    }
    if (key.effect == Effect::Refused) {
      cfg.fail_at(key.path, fmt::format("`{}` is refused: {}", key.path, key.reason), key.hint);
    }
    warnings.push_back({"warning",
                        fmt::format("`{}` has no effect on a virtual IPU: {}", key.path, key.reason),
                        cfg.span_of(key.path),
                        "it is accepted for compatibility; remove it to silence this warning"});
  }
  return warnings;
}

}  // namespace iputrain::config
