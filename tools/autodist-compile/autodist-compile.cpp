//===- autodist-compile.cpp - ONNX model to a training executable ---------===//
//
// Parses argv into autodist::CompileOptions (their flags are generated from
// CompileOptions.def) and calls autodist::compile, which knows the stages.
// Errors are one line each; no output file is left behind on failure.
//
//===----------------------------------------------------------------------===//

#include "autodist/Driver/Compile.h"
#include "autodist/Driver/OutputFile.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>

using namespace mlir;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory category("autodist-compile options");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.onnx>"),
                               cl::Required, cl::cat(category));
cl::opt<std::string> outputFile("o", cl::desc("Output file"), cl::Required,
                                cl::value_desc("file"), cl::cat(category));
#define AUTODIST_OPTION(TYPE, FIELD, FLAG, DEFAULT, VALUE_DESC, DESCRIPTION)   \
  cl::opt<TYPE> FIELD##Flag(FLAG, cl::desc(DESCRIPTION),                       \
                            cl::value_desc(VALUE_DESC), cl::init(DEFAULT),     \
                            cl::cat(category));
#define AUTODIST_LIST_OPTION(FIELD, FLAG, COMMA_SEPARATED, VALUE_DESC,         \
                             DESCRIPTION)                                      \
  cl::list<std::string> FIELD##Flag(                                           \
      FLAG, cl::desc(DESCRIPTION), cl::value_desc(VALUE_DESC),                 \
      COMMA_SEPARATED ? cl::CommaSeparated : cl::MiscFlags(0),                 \
      cl::cat(category));
#include "autodist/Driver/CompileOptions.def"
cl::alias jobsShort("j", cl::desc("Alias for --jobs"), cl::aliasopt(jobsFlag),
                    cl::Prefix);

/// The parsed command line as CompileOptions, with the flags given.
autodist::CompileOptions optionsFromCommandLine() {
  autodist::CompileOptions o;
  o.input = inputFile;
  o.output = outputFile;
#define AUTODIST_OPTION(TYPE, FIELD, FLAG, DEFAULT, VALUE_DESC, DESCRIPTION)   \
  o.FIELD = FIELD##Flag;                                                       \
  if (FIELD##Flag.getNumOccurrences())                                         \
    o.given.insert(FLAG);
#define AUTODIST_LIST_OPTION(FIELD, FLAG, COMMA_SEPARATED, VALUE_DESC,         \
                             DESCRIPTION)                                      \
  o.FIELD.assign(FIELD##Flag.begin(), FIELD##Flag.end());                      \
  if (FIELD##Flag.getNumOccurrences())                                         \
    o.given.insert(FLAG);
#include "autodist/Driver/CompileOptions.def"
  return o;
}

/// Prints diagnostics as one line each: `error: <file>: <message>`.
void printDiagnostic(Diagnostic &diag) {
  const char *kind = diag.getSeverity() == DiagnosticSeverity::Error ? "error"
                     : diag.getSeverity() == DiagnosticSeverity::Warning
                         ? "warning"
                         : "note";
  std::string where;
  if (auto fl = diag.getLocation()->findInstanceOf<FileLineColLoc>())
    where = fl.getFilename().str() + ": ";
  std::string msg = diag.str();
  std::replace(msg.begin(), msg.end(), '\n', ' ');
  llvm::errs() << "autodist-compile: " << kind << ": " << where << msg << "\n";
}

/// When the compiler started, for the elapsed times of the progress lines.
const auto startTime = std::chrono::steady_clock::now();

/// A progress line, with the seconds since the start (where time goes on
/// large models).
void progress(const llvm::Twine &msg) {
  std::chrono::duration<double> elapsed =
      std::chrono::steady_clock::now() - startTime;
  llvm::errs() << "autodist-compile: " << msg << " ["
               << llvm::format("%.2f", elapsed.count()) << " s]\n";
}

} // namespace

int main(int argc, char **argv) {
  autodist::installSignalHandlers(); // before InitLLVM's handlers
  llvm::InitLLVM init(argc, argv);
  optLevelFlag.setFormattingFlag(cl::Prefix); // -O2, as compilers spell it
  cl::HideUnrelatedOptions(category);
  std::string clErrors;
  llvm::raw_string_ostream clErrStream(clErrors);
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "AutoDist-MLIR: compile an ONNX model into "
                                   "a distributed training executable\n",
                                   &clErrStream)) {
    llvm::StringRef first = llvm::StringRef(clErrors).split('\n').first;
    llvm::errs() << first.trim() << "\n";
    return 2;
  }
  std::unique_ptr<MLIRContext> context = autodist::createCompilerContext();
  context->getDiagEngine().registerHandler(printDiagnostic);
  return failed(autodist::compile(*context, optionsFromCommandLine(), progress))
             ? 1
             : 0;
}
