//===- Linker.cpp - link a model object with the runtime ------------------===//

#include "autodist/Driver/Pipeline.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

using namespace mlir;

namespace autodist {

/// The runtime's link arguments, one per line (written by runtime/'s CMake).
/// AUTODIST_RUNTIME_LINK_FILE overrides the path baked in at build time.
static std::string linkFilePath() {
  if (auto env = llvm::sys::Process::GetEnv("AUTODIST_RUNTIME_LINK_FILE"))
    return *env;
  return AUTODIST_RUNTIME_LINK_FILE;
}

LogicalResult linkExecutable(llvm::StringRef objectPath,
                             llvm::StringRef outPath, std::string &error) {
  std::string linkFile = linkFilePath();
  auto buf = llvm::MemoryBuffer::getFile(linkFile);
  if (!buf) {
    error = "cannot read the runtime link file '" + linkFile +
            "' (is the runtime built?)";
    return failure();
  }
  auto cxx = llvm::sys::findProgramByName("c++");
  if (!cxx) {
    error = "no C++ linker driver 'c++' on PATH";
    return failure();
  }
  std::vector<std::string> args = {*cxx, objectPath.str()};
  llvm::SmallVector<llvm::StringRef> lines;
  (*buf)->getBuffer().split(lines, '\n', -1, false);
  for (llvm::StringRef l : lines)
    if (!l.trim().empty())
      args.push_back(l.trim().str());
  args.push_back("-o");
  args.push_back(outPath.str());
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::string msg;
  int rc =
      llvm::sys::ExecuteAndWait(*cxx, argRefs, std::nullopt, {}, 0, 0, &msg);
  if (rc != 0) {
    error = "linking failed (" +
            (msg.empty() ? "exit " + std::to_string(rc) : msg) + ")";
    return failure();
  }
  return success();
}

} // namespace autodist
