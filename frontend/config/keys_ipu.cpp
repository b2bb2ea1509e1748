// The [ipu] keys that are not plain lines: the IPUs acquired, by count or by device id, each
// exclusive with the other. Every other IPUConfig attribute, with the attribute's own path
// (../shared/reference/config_and_loops.md §1), is a line of IPUTRAIN_PLAIN_KEYS.
#include "frontend/config/bind.hpp"

namespace iputrain::config {

std::vector<KeySpec> ipu_keys() {
  using detail::key;
  using enum KeyType;
  using enum Effect;
  std::vector<KeySpec> out = {
      key(IPUTRAIN_KEY(ipu.auto_select_ipus), Int, 1, Runs,
          "Number of virtual IPUs to acquire as one device (replicas = this / IPUs per replica).",
          Range::between(1, 1024))
          .as_layout(),
      key(IPUTRAIN_KEY(ipu.select_ipus), IntList, ValueList{}, Runs,
          "Devices to acquire by id in the emulated 16-IPU gc-info listing (0-15 single IPUs, 16-23 "
          "pairs, 24-27 quads, 28-29 eights, 30 all); exclusive with `auto_select_ipus`.",
          Range::between(0, 30))
          .as_layout(),
  };
  out[0].conflicts = {"ipu.select_ipus"};
  out[1].conflicts = {"ipu.auto_select_ipus"};
  out[1].unique = true;
  return out;
}

}  // namespace iputrain::config
