//===- OutputFile.h - output files the tools write safely -------*- C++ -*-===//
//
// Every file the tools write (`-o`, `--dump-strategy`, `--write-hostfile`)
// goes through here: the path is checked before any work, the contents go to
// a temporary file beside the real target, and only a successful run renames
// it into place. A failing or interrupted run leaves an existing output as it
// was and no temporary behind.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_DRIVER_OUTPUTFILE_H
#define AUTODIST_DRIVER_OUTPUTFILE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace autodist {

/// Where an output goes: `target` is the file a temporary is renamed onto
/// (the path, or the file a symlink at the path points to, so that the link
/// stays a link), unless `direct`: stdout (`-`), a device or a FIFO, which
/// are written in place.
struct OutputPath {
  std::string target;
  bool direct = false;
};

/// Checks the output `path` given to the option `flag` (e.g. "-o") before
/// any work. Refuses a directory, a socket, a dangling symlink, and a file
/// that is one of `inputs` (the same file by device and inode, so also
/// through links). Stdout, devices and FIFOs are accepted as `direct` when
/// `allowStreams` (tools printing IR: `-o /dev/null` is theirs); otherwise
/// they are refused, since renaming a temporary onto a device would replace
/// it with a regular file, and `-` is a file name.
llvm::Expected<OutputPath> checkOutputPath(llvm::StringRef flag,
                                           llvm::StringRef path,
                                           llvm::ArrayRef<std::string> inputs,
                                           bool allowStreams);

/// An error already reported (as a diagnostic, by the code that failed):
/// whoever turns llvm::Errors into diagnostics skips it.
class ReportedError : public llvm::ErrorInfo<ReportedError> {
public:
  static char ID;
  void log(llvm::raw_ostream &os) const override {
    os << "(reported as a diagnostic)";
  }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
};

/// A ReportedError when `result` failed, else success.
llvm::Error reported(mlir::LogicalResult result);

/// Whether `a` and `b` are one file: the same inode when both exist (links
/// included), else the same absolute path.
bool isSameFile(llvm::StringRef a, llvm::StringRef b);

/// A temporary file beside `target`, renamed onto it by commit(). It is
/// removed when destroyed uncommitted and when a signal ends the process
/// (llvm::sys::RemoveFileOnSignal).
class TempOutputFile {
public:
  explicit TempOutputFile(llvm::StringRef target) : target(target) {}
  ~TempOutputFile();
  TempOutputFile(const TempOutputFile &) = delete;
  TempOutputFile &operator=(const TempOutputFile &) = delete;

  /// Creates the (empty) temporary file.
  llvm::Error create();
  /// The temporary file's path (valid after create()).
  llvm::StringRef path() const { return tmp; }
  /// Renames the temporary file onto the target.
  llvm::Error commit();

private:
  std::string target;
  llvm::SmallString<256> tmp;
  bool committed = false;
};

/// Writes `target` through a TempOutputFile: `write` fills the temporary
/// file (a ReportedError when it reported its failure itself).
llvm::Error
writeOutputFile(llvm::StringRef target,
                llvm::function_ref<llvm::Error(llvm::StringRef tmp)> write);

/// Runs `run` with the path a tool printing IR writes its `-o` output to:
/// `output.target` itself when direct, else a TempOutputFile beside it,
/// renamed onto it when `run` succeeds; a failing run leaves an existing
/// output as it was (and is a ReportedError: `run` reports its own).
llvm::Error runWithOutput(
    const OutputPath &output,
    llvm::function_ref<mlir::LogicalResult(llvm::StringRef path)> run);

/// The end of main() in a tool printing IR (autodist-opt, -translate):
/// checks its -o `path` (refusing `inputs`), runs `run` through
/// runWithOutput and prints "<tool>: error: ..." for what fails here (`run`
/// prints its own). Returns the exit code.
int runWithCheckedOutput(
    llvm::StringRef tool, llvm::StringRef path,
    llvm::ArrayRef<std::string> inputs,
    llvm::function_ref<mlir::LogicalResult(llvm::StringRef path)> run);

/// Sets up the tools' handling of SIGHUP, SIGINT, SIGTERM and SIGQUIT;
/// called first in main(), before InitLLVM installs LLVM's handlers (which
/// remove the RemoveFileOnSignal files, then end the process). On top of
/// them: a signal the process was started ignoring (nohup: SIGHUP; a
/// background job of a script: SIGINT, SIGQUIT) stays ignored, where LLVM's
/// handler removed the temporaries and the run went on without them; and
/// the child runChild() waits for is ended first, with its own children, so
/// that none writes a temporary again once it is removed.
void installSignalHandlers();

/// Runs `argv` (argv[0]: the program's path) in a session of its own, so
/// that a signal handled by installSignalHandlers() can end it with its
/// children (c++ runs collect2, which runs ld), and waits for it. Fails
/// ("exit 1", "killed by signal 9", "cannot run ...") unless it exits 0.
llvm::Error runChild(llvm::ArrayRef<std::string> argv);

/// Where `-o` is on the command line `args` (the form llvm::cl accepts: `-o
/// F`, `-o=F`, `--o F`, `--o=F`, before a `--`), for tools whose `-o` option
/// is registered inside a library main (mlirTranslateMain). `index` is the
/// argument holding the value, `prefix` what precedes the value in it ("" or
/// "-o="). Returns false when there is no `-o`.
bool findOutputArgument(llvm::ArrayRef<const char *> args, size_t &index,
                        std::string &prefix);

} // namespace autodist

#endif // AUTODIST_DRIVER_OUTPUTFILE_H
