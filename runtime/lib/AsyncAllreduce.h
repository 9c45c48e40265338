//===- AsyncAllreduce.h - Progress of started all-reduces -------*- C++ -*-===//
//
// Private to the runtime library: what comm::init and comm::finalize need
// of runtime/lib/AsyncAllreduce.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_ASYNCALLREDUCE_H
#define AUTODIST_RUNTIME_ASYNCALLREDUCE_H

#include "autodist/runtime/Comm.h"

namespace autodist::rt::comm::detail {

/// The progress mode, set once by comm::init.
void setProgress(Progress p);
/// Joins the progress thread if one runs (before MPI_Finalize).
void stopProgressThread();

} // namespace autodist::rt::comm::detail

#endif // AUTODIST_RUNTIME_ASYNCALLREDUCE_H
