//===- StrategyFileFuzzer.cpp - Fuzz the strategy-file JSON parser --------===//
//
// The bytes are a strategy file (--strategy-file). A rejection must say why;
// an accepted strategy must survive printing (--dump-strategy) and parsing
// again unchanged.
//
//===----------------------------------------------------------------------===//

#include "AcceptedInputs.h"
#include "FindingCheck.h"
#include "QuietContext.h"

#include "autodist/Strategy/StrategyFile.h"
#include "dist/DistDialect.h"

using namespace autodist;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::QuietContext context;
  context.get()->loadDialect<dist::DistDialect>();
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  bool reported = false;
  mlir::ScopedDiagnosticHandler count(context.get(), [&](mlir::Diagnostic &d) {
    reported |=
        d.getSeverity() == mlir::DiagnosticSeverity::Error && !d.str().empty();
    return mlir::success();
  });
  mlir::Location loc = mlir::UnknownLoc::get(context.get());
  mlir::FailureOr<dist::StrategyAttr> strategy =
      parseStrategyJSON(text, "fuzz.json", loc);
  if (mlir::failed(strategy)) {
    fuzz::check(reported, "a strategy was rejected without a message");
    return 0;
  }
  std::string printed = printStrategyJSON(*strategy);
  mlir::FailureOr<dist::StrategyAttr> again =
      parseStrategyJSON(printed, "printed.json", loc);
  fuzz::check(mlir::succeeded(again),
              "the printed form of an accepted strategy does not parse");
  // Attributes are uniqued in the context: equal values are one object.
  fuzz::check(*again == *strategy,
              "a strategy changed on printing and parsing it again");
  fuzz::countAccepted();
  return 0;
}
