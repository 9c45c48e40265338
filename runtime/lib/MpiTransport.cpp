//===- MpiTransport.cpp - Settings made before MPI starts -----------------===//

#include "autodist/runtime/MpiTransport.h"

#include <cstdlib>
#include <mpi.h>
#include <string>

namespace autodist::rt::comm {

const char *iallreduceAlgorithm(int worldSize) {
  return worldSize == 2 ? "4" : "3";
}

void setOpenMpiDefaults() {
#ifdef OPEN_MPI
  setenv("OMPI_MCA_btl_tcp_eager_limit",
         std::to_string(kTcpEagerLimitBytes).c_str(), /*overwrite=*/0);
  if (const char *size = std::getenv("OMPI_COMM_WORLD_SIZE"))
    setenv("OMPI_MCA_coll_libnbc_iallreduce_algorithm",
           iallreduceAlgorithm(std::atoi(size)), /*overwrite=*/0);
#endif
}

} // namespace autodist::rt::comm
