//===- Compile.cpp - the C API over autodist::compile ---------------------===//

#include "autodist-c/Compile.h"
#include "autodist/Driver/Compile.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <string>
#include <vector>

struct AutodistCompileOptions {
  autodist::CompileOptions options;
};

using namespace mlir;

int autodistCapiVersion(void) { return AUTODIST_CAPI_VERSION; }

AutodistCompileOptions *autodistCompileOptionsCreate(void) {
  return new AutodistCompileOptions();
}

void autodistCompileOptionsDestroy(AutodistCompileOptions *options) {
  delete options;
}

int autodistCompileOptionsSet(AutodistCompileOptions *options, const char *flag,
                              const char *value,
                              AutodistProgressCallback onError,
                              void *userData) {
  if (!options || !flag || !value) {
    if (onError)
      onError("autodistCompileOptionsSet: null argument", userData);
    return 1;
  }
  if (llvm::Error e = options->options.set(flag, value)) {
    std::string msg = llvm::toString(std::move(e));
    if (onError)
      onError(msg.c_str(), userData);
    return 1;
  }
  return 0;
}

const char *autodistCompileOptionFlag(int index) {
  static const std::vector<std::string> flags =
      autodist::CompileOptions::flags();
  if (index < 0 || index >= static_cast<int>(flags.size()))
    return nullptr;
  return flags[index].c_str();
}

int autodistCompile(const AutodistCompileOptions *options,
                    AutodistDiagnosticCallback onDiagnostic,
                    AutodistProgressCallback onProgress, void *userData) {
  if (!options)
    return 1;
  std::unique_ptr<MLIRContext> context = autodist::createCompilerContext();
  bool sawError = false;
  context->getDiagEngine().registerHandler([&](Diagnostic &diag) {
    DiagnosticSeverity s = diag.getSeverity();
    sawError |= s == DiagnosticSeverity::Error;
    if (!onDiagnostic)
      return;
    std::string file;
    if (auto fl = diag.getLocation()->findInstanceOf<FileLineColLoc>())
      file = fl.getFilename().str();
    std::string message = diag.str();
    AutodistDiagnostic d{s == DiagnosticSeverity::Error     ? "error"
                         : s == DiagnosticSeverity::Warning ? "warning"
                                                            : "note",
                         file.c_str(), message.c_str()};
    onDiagnostic(&d, userData);
  });
  LogicalResult result =
      autodist::compile(*context, options->options, [&](const llvm::Twine &l) {
        if (onProgress)
          onProgress(l.str().c_str(), userData);
      });
  if (failed(result) && !sawError && onDiagnostic) {
    // Every failure path emits a diagnostic; this keeps the contract if
    // one does not.
    AutodistDiagnostic d{"error", "", "compilation failed"};
    onDiagnostic(&d, userData);
  }
  return failed(result) ? 1 : 0;
}
