//===- OutputFile.cpp - output files the tools write safely ---------------===//

#include "autodist/Driver/OutputFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"

using namespace mlir;
namespace fs = llvm::sys::fs;

namespace autodist {

/// Why a file of type `type` cannot be an output, or null when it can.
static const char *refusalOf(fs::file_type type) {
  switch (type) {
  case fs::file_type::regular_file:
    return nullptr;
  case fs::file_type::directory_file:
    return "is a directory";
  case fs::file_type::block_file:
  case fs::file_type::character_file:
    return "is a device, not a regular file";
  case fs::file_type::fifo_file:
    return "is a FIFO, not a regular file";
  case fs::file_type::socket_file:
    return "is a socket, not a regular file";
  default:
    return "is not a regular file";
  }
}

/// Whether `a` and `b` are one file: the same inode when both exist (links
/// included), else the same absolute path.
static bool sameFile(llvm::StringRef a, llvm::StringRef b) {
  bool same = false;
  if (!fs::equivalent(a, b, same))
    return same;
  llvm::SmallString<256> absA(a), absB(b);
  if (fs::make_absolute(absA) || fs::make_absolute(absB))
    return false;
  llvm::sys::path::remove_dots(absA, /*remove_dot_dot=*/true);
  llvm::sys::path::remove_dots(absB, /*remove_dot_dot=*/true);
  return absA == absB;
}

FailureOr<OutputPath> checkOutputPath(llvm::StringRef flag,
                                      llvm::StringRef path,
                                      llvm::ArrayRef<std::string> inputs,
                                      bool allowStreams, std::string &error) {
  auto refuse = [&](const llvm::Twine &why) -> FailureOr<OutputPath> {
    error = (flag + " '" + path + "'" + why).str();
    return failure();
  };
  OutputPath out;
  out.target = path.str();
  if (allowStreams && path == "-") {
    out.direct = true;
    return out;
  }
  if (path.empty())
    return refuse(" is an empty path");
  for (const std::string &input : inputs)
    if (!input.empty() && input != "-" && sameFile(path, input))
      return refuse(" is the same file as '" + input +
                    "': refusing to overwrite it");
  fs::file_status own;
  if (std::error_code ec = fs::status(path, own, /*follow=*/false)) {
    if (ec != std::errc::no_such_file_or_directory)
      return refuse(": " + ec.message());
    return out; // a new file; its directory is checked by TempOutputFile
  }
  fs::file_status pointee;
  if (fs::status(path, pointee, /*follow=*/true))
    return refuse(" is a symlink to a missing file");
  fs::file_type type = pointee.type();
  if (allowStreams &&
      (type == fs::file_type::character_file ||
       type == fs::file_type::block_file || type == fs::file_type::fifo_file)) {
    out.direct = true;
    return out;
  }
  if (const char *why = refusalOf(type))
    return refuse(" " + llvm::Twine(why) + ": refusing to replace it");
  if (own.type() != fs::file_type::symlink_file)
    return out;
  llvm::SmallString<256> real;
  if (std::error_code ec = fs::real_path(path, real))
    return refuse(": " + ec.message());
  out.target = real.str().str();
  return out;
}

TempOutputFile::~TempOutputFile() {
  if (tmp.empty() || committed)
    return;
  fs::remove(tmp);
  llvm::sys::DontRemoveFileOnSignal(tmp);
}

LogicalResult TempOutputFile::create(std::string &error) {
  if (std::error_code ec = fs::createUniqueFile(target + ".tmp-%%%%%%", tmp)) {
    error = "cannot create '" + target + "': " + ec.message();
    tmp.clear();
    return failure();
  }
  llvm::sys::RemoveFileOnSignal(tmp);
  return success();
}

LogicalResult TempOutputFile::commit(std::string &error) {
  if (std::error_code ec = fs::rename(tmp, target)) {
    error = "cannot write '" + target + "': " + ec.message();
    return failure();
  }
  committed = true;
  llvm::sys::DontRemoveFileOnSignal(tmp);
  return success();
}

LogicalResult writeOutputFile(
    llvm::StringRef target,
    llvm::function_ref<LogicalResult(llvm::StringRef tmp, std::string &error)>
        write,
    std::string &error) {
  TempOutputFile out(target);
  if (failed(out.create(error)) || failed(write(out.path(), error)))
    return failure();
  return out.commit(error);
}

LogicalResult
runWithOutput(const OutputPath &output,
              llvm::function_ref<LogicalResult(llvm::StringRef path)> run,
              std::string &error) {
  if (output.direct)
    return run(output.target);
  return writeOutputFile(
      output.target,
      [&](llvm::StringRef tmp, std::string &) { return run(tmp); }, error);
}

bool findOutputArgument(llvm::ArrayRef<const char *> args, size_t &index,
                        std::string &prefix) {
  for (size_t i = 1; i < args.size(); ++i) {
    llvm::StringRef arg = args[i];
    if (arg == "--")
      return false;
    if ((arg == "-o" || arg == "--o") && i + 1 < args.size()) {
      index = i + 1;
      prefix.clear();
      return true;
    }
    if (arg.starts_with("-o=") || arg.starts_with("--o=")) {
      index = i;
      prefix = arg.take_front(arg.find('=') + 1).str();
      return true;
    }
  }
  return false;
}

} // namespace autodist
