// Several instances of one run (PopDist's model): `mpirun -n P iputrain train …` starts P
// processes that share the plan's replicas, R / P each, and reduce their gradients over Open MPI.
// A program embedding the engine calls join_instances() once before its first Session; every
// Session then takes its share of the replicas from it (docs/distributed.md).
#pragma once

#include "iputrain/instances_def.hpp"

namespace iputrain {

//! True when this build can run several instances (IPUTRAIN_WITH_MPI).
bool built_with_mpi();

//! Joins the run this process was launched into: initialises MPI when mpirun started it, else
//! stays one instance. Idempotent. Throws Error when mpirun started it but the build has no MPI.
Instances join_instances();

//! What join_instances() found ({1, 0, false} before it is called).
Instances current_instances();

//! Leaves the run (MPI_Finalize) once every Session is gone; a no-op for one instance.
void leave_instances();

//! Ends every instance of the run at once (MPI_Abort) with exit status `code`: for an error the
//! other instances cannot see, which would otherwise leave them waiting. Returns when alone.
void abort_instances(int code);

}  // namespace iputrain
