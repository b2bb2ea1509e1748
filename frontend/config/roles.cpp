// What a key's row says of it beyond its value, read by the commands: the run it defines
// (`--resume`), the layout `verify` resets for its one-IPU reference, and what `tune` may vary.
#include "core/pipeline_schedules/schedule_def.hpp"
#include "frontend/config/schema.hpp"
#include "iputrain/config_loader.hpp"

namespace iputrain::config {

KeySpec KeySpec::defining() && {
  defines_run = true;
  return std::move(*this);
}

KeySpec KeySpec::as_layout() && {
  layout = true;
  return std::move(*this);
}

KeySpec KeySpec::as_tunable() && {
  tunable = true;
  return std::move(*this);
}

bool defines_run(const std::string& key) {
  const KeySpec* k = find_key(key);
  return k != nullptr && k->defines_run;
}

bool records_settled(const std::string& key) {
  const KeySpec* k = find_key(key);
  return k != nullptr && k->record_settled;
}

std::string unpipelined_schedule() { return std::string(pipeline_schedules::unpipelined_schedule().name); }

bool is_tunable(const std::string& key) {
  const KeySpec* k = find_key(key);
  return k != nullptr && k->tunable;
}

Config without_layout(const Config& cfg) {
  Config out = cfg;
  for (const KeySpec& k : schema()) {
    if (k.layout && k.access.set) {
      k.access.set(out, k.default_value);
    }
  }
  return out;
}

}  // namespace iputrain::config
