//===- TestMain.cpp - GoogleTest main for the runtime tests ---------------===//
//
// MPI is initialized once for the whole process (a singleton group of one),
// as the trainer does, and finalized after the last test.
//
//===----------------------------------------------------------------------===//

#include "autodist/runtime/Comm.h"

#include <gtest/gtest.h>

int main(int argc, char **argv) {
  testing::InitGoogleTest(&argc, argv);
  autodist::rt::comm::init(&argc, &argv);
  int rc = RUN_ALL_TESTS();
  autodist::rt::comm::finalize();
  return rc;
}
