//===- ResourceSpecFuzzer.cpp - Fuzz the resource-spec YAML parser --------===//
//
// The bytes are a resource spec (--cluster). A rejection must say why; an
// accepted cluster must give an MPI hostfile line for each of its nodes.
//
//===----------------------------------------------------------------------===//

#include "AcceptedInputs.h"
#include "FindingCheck.h"
#include "QuietContext.h"

#include "autodist/Strategy/ResourceSpec.h"
#include "dist/DistDialect.h"

#include <algorithm>

using namespace autodist;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::QuietContext context;
  context.get()->loadDialect<dist::DistDialect>();
  llvm::StringRef yaml(reinterpret_cast<const char *>(data), size);
  bool reported = false;
  mlir::ScopedDiagnosticHandler count(context.get(), [&](mlir::Diagnostic &d) {
    reported |=
        d.getSeverity() == mlir::DiagnosticSeverity::Error && !d.str().empty();
    return mlir::success();
  });
  mlir::FailureOr<dist::ClusterAttr> cluster = parseResourceSpec(
      yaml, "fuzz.yaml", mlir::UnknownLoc::get(context.get()));
  if (mlir::failed(cluster)) {
    fuzz::check(reported, "a resource spec was rejected without a message");
    return 0;
  }
  std::string hostfile = mpiHostfile(*cluster);
  size_t lines = std::count(hostfile.begin(), hostfile.end(), '\n');
  fuzz::check(lines == cluster->getNodes().size(),
              "the MPI hostfile does not have one line per node");
  fuzz::countAccepted();
  return 0;
}
