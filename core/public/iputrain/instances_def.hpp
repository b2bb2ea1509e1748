// The instances of one run (iputrain/instances.hpp joins them): how many processes mpirun started
// and which one this is. Plain data that the config's resolution reads too (ResolvedConfig).
#pragma once

#include <cstdint>

namespace iputrain {

struct Instances {
  int32_t count = 1;      //!< processes of the run (MPI's world size)
  int32_t index = 0;      //!< this one (MPI's rank)
  bool launched = false;  //!< started by an MPI launcher (mpirun), even alone

  bool operator==(const Instances&) const = default;
};

}  // namespace iputrain
