//===- Linker.cpp - link a model's objects with the runtime ---------------===//

#include "autodist/Driver/OutputFile.h"
#include "autodist/Driver/Pipeline.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"

using namespace mlir;

namespace autodist {

/// The runtime's link arguments of `target`, one per line (written by
/// runtime/'s CMake): `given` (--runtime-link-file), else
/// AUTODIST_RUNTIME_LINK_FILE (AUTODIST_RUNTIME_CUDA_LINK_FILE for cuda),
/// else the installed runtime's beside the running program (`<prefix>/bin/tool`
/// → `<prefix>/lib/autodist/autodist-runtime[-cuda]-link.txt`: the Python
/// package's layout), else the build tree's, baked in at build time.
static std::string linkFilePath(llvm::StringRef given, llvm::StringRef target) {
  if (!given.empty())
    return given.str();
  bool cuda = target == "cuda";
  if (auto env =
          llvm::sys::Process::GetEnv(cuda ? "AUTODIST_RUNTIME_CUDA_LINK_FILE"
                                          : "AUTODIST_RUNTIME_LINK_FILE"))
    return *env;
  const char *name =
      cuda ? "autodist-runtime-cuda-link.txt" : "autodist-runtime-link.txt";
  static int anchor;
  std::string exe = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  if (!exe.empty()) {
    llvm::SmallString<256> installed(
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe)));
    llvm::sys::path::append(installed, "lib", "autodist", name);
    if (llvm::sys::fs::exists(installed))
      return installed.str().str();
  }
  return cuda ? AUTODIST_RUNTIME_CUDA_LINK_FILE : AUTODIST_RUNTIME_LINK_FILE;
}

/// Runs `program` (found on PATH) with `args` after it; `what` names the
/// step in the error.
static llvm::Error runTool(llvm::StringRef program,
                           const std::vector<std::string> &args,
                           llvm::StringRef what) {
  auto path = llvm::sys::findProgramByName(program);
  if (!path)
    return llvm::createStringError("no '" + program.str() +
                                   "' on PATH (needed for " + what.str() + ")");
  std::vector<std::string> argv = {*path};
  argv.insert(argv.end(), args.begin(), args.end());
  // In a session of its own: a signal to the compiler ends it first, so
  // that it does not write the output's temporary after its removal.
  if (llvm::Error e = runChild(argv))
    return llvm::createStringError(what.str() + " failed (" +
                                   llvm::toString(std::move(e)) + ")");
  return llvm::Error::success();
}

llvm::Error linkExecutable(const std::vector<std::string> &objects,
                           llvm::StringRef outPath, llvm::StringRef linkFileArg,
                           llvm::StringRef target) {
  std::string linkFile = linkFilePath(linkFileArg, target);
  auto buf = llvm::MemoryBuffer::getFile(linkFile);
  if (!buf)
    return llvm::createStringError(
        "cannot read the runtime link file '" + linkFile + "' (" +
        (target == "cuda"
             ? "is the cuda runtime built? It needs the CUDA toolkit and "
               "NCCL when the project is configured"
             : "is the runtime built?") +
        ")");
  std::vector<std::string> args = objects;
  // gold links a model in half the time of the default ld.bfd (0.10 s
  // against 0.24 s for a 2-block GPT), a tenth of a small model's compile.
  if (llvm::sys::findProgramByName("ld.gold"))
    args.push_back("-fuse-ld=gold");
  llvm::SmallVector<llvm::StringRef> lines;
  (*buf)->getBuffer().split(lines, '\n', -1, false);
  // A relative path in the file (an installed runtime's archives) is
  // relative to the file's directory; flags start with '-'.
  llvm::StringRef linkDir = llvm::sys::path::parent_path(linkFile);
  for (llvm::StringRef l : lines) {
    l = l.trim();
    if (l.empty())
      continue;
    if (!l.starts_with("-") && llvm::sys::path::is_relative(l)) {
      llvm::SmallString<256> p(linkDir);
      llvm::sys::path::append(p, l);
      args.push_back(p.str().str());
    } else {
      args.push_back(l.str());
    }
  }
  args.push_back("-o");
  args.push_back(outPath.str());
  return runTool("c++", args, "linking");
}

llvm::Error mergeObjects(const std::vector<std::string> &objects,
                         llvm::StringRef outPath) {
  if (objects.size() == 1) {
    if (std::error_code ec = llvm::sys::fs::copy_file(objects[0], outPath))
      return llvm::createStringError("cannot write '" + outPath.str() +
                                     "': " + ec.message());
    return llvm::Error::success();
  }
  std::vector<std::string> args = {"-r", "-o", outPath.str()};
  args.insert(args.end(), objects.begin(), objects.end());
  return runTool("ld", args, "merging the object files");
}

void removeFiles(const std::vector<std::string> &paths) {
  for (const std::string &p : paths) {
    llvm::sys::fs::remove(p);
    llvm::sys::DontRemoveFileOnSignal(p);
  }
}

} // namespace autodist
