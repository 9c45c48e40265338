//===- NcclIdTest.cpp - The NCCL id exchange under mpirun -----------------===//
//
// Run as `mpirun -np N autodist-nccl-id-test`: every rank takes part in
// exchangeNcclId over MPI_COMM_WORLD and prints a hash of the id it got;
// rank 0 checks that all ranks got its id. Needs no GPU (ncclGetUniqueId
// works without a driver), so it checks the bootstrap of the CUDA runtime's
// NcclCommunicator on any machine with NCCL and MPI. Exit 0 on success.
//
//===----------------------------------------------------------------------===//

#include "NcclCommunicator.h"

#include <cstdint>
#include <cstdio>
#include <exception>
#include <vector>

namespace {
/// FNV-1a of the id's bytes.
uint64_t hashOf(const ncclUniqueId &id) {
  uint64_t h = 1469598103934665603ull;
  for (char c : id.internal)
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}
} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  uint64_t hash = 0;
  try {
    hash = hashOf(autodist::rt::exchangeNcclId(MPI_COMM_WORLD));
  } catch (const std::exception &e) {
    std::fprintf(stderr, "error: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  std::printf("rank %d: NCCL id hash %016llx\n", rank,
              static_cast<unsigned long long>(hash));
  std::vector<uint64_t> all(size);
  MPI_Allgather(&hash, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T,
                MPI_COMM_WORLD);
  int rc = 0;
  for (int r = 0; r < size; ++r)
    if (all[r] != all[0])
      rc = 1;
  if (rank == 0 && rc)
    std::printf("FAIL: the ranks have different NCCL ids\n");
  else if (rank == 0)
    std::printf("OK: %d ranks share the NCCL id\n", size);
  MPI_Finalize();
  return rc;
}
