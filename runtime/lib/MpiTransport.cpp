//===- MpiTransport.cpp - Transport settings made before MPI starts -------===//

#include "autodist/runtime/MpiTransport.h"

#include <cstdlib>
#include <mpi.h>

namespace autodist::rt::comm {

void raiseTcpEagerLimit() {
#ifdef OPEN_MPI
  setenv("OMPI_MCA_btl_tcp_eager_limit", kTcpEagerLimit, /*overwrite=*/0);
#endif
}

} // namespace autodist::rt::comm
