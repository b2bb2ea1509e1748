// The run's instances: MPI's world when mpirun started this process, else this process alone.
#include "iputrain/instances.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <mutex>

#include "iputrain/error.hpp"

#if IPUTRAIN_WITH_MPI
#include <mpi.h>
#endif

namespace iputrain {

namespace {

std::mutex mu;
Instances joined;
bool initialised_here = false;

// What a launcher puts in its processes' environment (Open MPI's, PMIx's, Hydra's).
bool launched_by_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"}) {
    if (std::getenv(v) != nullptr) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool built_with_mpi() { return IPUTRAIN_WITH_MPI != 0; }

Instances join_instances() {
  std::lock_guard lock(mu);
  if (initialised_here || !launched_by_mpirun()) {
    return joined;
  }
#if IPUTRAIN_WITH_MPI
  int ready = 0;
  MPI_Initialized(&ready);
  if (ready == 0) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
      throw Error(ErrorKind::Runtime,
                  "this MPI library cannot be called from several threads at once (MPI_THREAD_MULTIPLE)", {},
                  "use Open MPI 4 or later, as Debian's `openmpi-bin` and `libopenmpi-dev` provide");
    }
  }
  int size = 1;
  int rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  joined = Instances{size, rank, true};
  initialised_here = true;
  return joined;
#else
  throw Error(ErrorKind::Config, "this process was started by mpirun, but iputrain was built without MPI", {},
              "install `libopenmpi-dev` and `openmpi-bin` and configure with -DIPUTRAIN_WITH_MPI=ON");
#endif
}

Instances current_instances() {
  std::lock_guard lock(mu);
  return joined;
}

void leave_instances() {
  std::lock_guard lock(mu);
#if IPUTRAIN_WITH_MPI
  if (initialised_here) {
    int done = 0;
    MPI_Finalized(&done);
    if (done == 0) {
      MPI_Finalize();
    }
  }
#endif
  initialised_here = false;
  joined = Instances{};
}

void abort_instances(int code) {
#if IPUTRAIN_WITH_MPI
  bool many = false;
  {
    std::lock_guard lock(mu);
    many = initialised_here && joined.count > 1;
  }
  if (many) {
    MPI_Abort(MPI_COMM_WORLD, code);
  }
#else
  (void)code;
#endif
}

}  // namespace iputrain
