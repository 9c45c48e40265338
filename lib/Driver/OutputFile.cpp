//===- OutputFile.cpp - output files the tools write safely ---------------===//

#include "autodist/Driver/OutputFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <iterator>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using namespace mlir;
namespace fs = llvm::sys::fs;

namespace autodist {

namespace {
/// The signals installSignalHandlers() handles: LLVM's requests for
/// termination (but SIGUSR2) and SIGQUIT.
constexpr int kSignals[] = {SIGHUP, SIGINT, SIGTERM, SIGQUIT};
/// LLVM's handler of each of kSignals, run after ours.
struct sigaction llvmHandlers[std::size(kSignals)];
/// The session runChild() waits for (its leader's pid), 0 when none.
std::atomic<pid_t> childSession{0};
/// Whether runChild() is starting a child (childSession not yet set).
std::atomic<bool> spawning{false};
/// Whether a handled signal arrived: the process is ending.
std::atomic<bool> ending{false};
} // namespace

/// Sleeps `ms` milliseconds (async-signal-safe).
static void sleepMs(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
  nanosleep(&t, nullptr);
}

/// Ends the session `leader` leads and waits, 2 s at most per signal, until
/// it is empty (async-signal-safe): SIGTERM first, so that the compiler
/// driver and collect2 remove their own temporaries, then SIGKILL.
static void endSession(pid_t leader) {
  for (int sig : {SIGTERM, SIGKILL}) {
    kill(-leader, sig);
    for (int i = 0; i < 2000; ++i) {
      waitpid(leader, nullptr, WNOHANG); // a zombie still counts
      if (kill(-leader, 0) != 0)
        return;
      sleepMs(1);
    }
  }
}

static void onSignal(int sig, siginfo_t *info, void *context) {
  int savedErrno = errno;
  ending = true;
  for (int i = 0; i < 1000 && spawning && !childSession; ++i)
    sleepMs(1);
  if (pid_t leader = childSession.exchange(0))
    endSession(leader);
  errno = savedErrno;
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    if (kSignals[i] != sig)
      continue;
    const struct sigaction &next = llvmHandlers[i];
    if (next.sa_flags & SA_SIGINFO) {
      next.sa_sigaction(sig, info, context);
    } else if (next.sa_handler != SIG_DFL && next.sa_handler != SIG_IGN) {
      next.sa_handler(sig);
    } else {
      signal(sig, SIG_DFL);
      raise(sig);
    }
  }
}

void installSignalHandlers() {
  bool ignored[std::size(kSignals)];
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    struct sigaction old;
    ignored[i] = sigaction(kSignals[i], nullptr, &old) == 0 &&
                 !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN;
  }
  // LLVM's handlers, as InitLLVM installs them (it installs none twice).
  llvm::sys::SetOneShotPipeSignalFunction(
      llvm::sys::DefaultOneShotPipeSignalHandler);
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    if (ignored[i]) {
      signal(kSignals[i], SIG_IGN);
      continue;
    }
    struct sigaction ours = {};
    ours.sa_sigaction = onSignal;
    ours.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&ours.sa_mask);
    for (int other : kSignals)
      sigaddset(&ours.sa_mask, other);
    sigaction(kSignals[i], &ours, &llvmHandlers[i]);
  }
}

char ReportedError::ID = 0;

llvm::Error reported(LogicalResult result) {
  if (succeeded(result))
    return llvm::Error::success();
  return llvm::make_error<ReportedError>();
}

llvm::Error runChild(llvm::ArrayRef<std::string> argv) {
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
  pid_t pid = 0;
  spawning = true;
  int rc = posix_spawn(&pid, args[0], nullptr, &attr, args.data(), environ);
  if (rc == 0)
    childSession = pid;
  spawning = false;
  posix_spawnattr_destroy(&attr);
  if (rc != 0)
    return llvm::createStringError("cannot run '" + argv[0] +
                                   "': " + std::strerror(rc));
  int status = 0;
  pid_t waited;
  while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  pid_t expected = pid;
  childSession.compare_exchange_strong(expected, 0);
  // The signal handler ended the child and ends the process.
  while (ending)
    pause();
  if (waited < 0)
    return llvm::createStringError("cannot wait for '" + argv[0] +
                                   "': " + std::strerror(errno));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return llvm::Error::success();
  return llvm::createStringError(
      WIFEXITED(status)
          ? "exit " + std::to_string(WEXITSTATUS(status))
          : "killed by signal " + std::to_string(WTERMSIG(status)));
}

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

bool isSameFile(llvm::StringRef a, llvm::StringRef b) {
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

llvm::Expected<OutputPath> checkOutputPath(llvm::StringRef flag,
                                           llvm::StringRef path,
                                           llvm::ArrayRef<std::string> inputs,
                                           bool allowStreams) {
  auto refuse = [&](const llvm::Twine &why) -> llvm::Expected<OutputPath> {
    return llvm::createStringError((flag + " '" + path + "'" + why).str());
  };
  OutputPath out;
  out.target = path.str();
  // The temporary goes beside the target: checked now, not after the work.
  auto inWritableDirectory = [&]() -> llvm::Expected<OutputPath> {
    llvm::SmallString<256> dir = llvm::sys::path::parent_path(out.target);
    if (dir.empty())
      dir = ".";
    if (!fs::is_directory(dir))
      return refuse(": there is no directory '" + dir + "'");
    if (std::error_code ec = fs::access(dir, fs::AccessMode::Write))
      return refuse(": cannot write in '" + dir + "': " + ec.message());
    return out;
  };
  if (allowStreams && path == "-") {
    out.direct = true;
    return out;
  }
  if (path.empty())
    return refuse(" is an empty path");
  for (const std::string &input : inputs)
    if (!input.empty() && input != "-" && isSameFile(path, input))
      return refuse(" is the same file as '" + input +
                    "': refusing to overwrite it");
  fs::file_status own;
  if (std::error_code ec = fs::status(path, own, /*follow=*/false)) {
    if (ec != std::errc::no_such_file_or_directory)
      return refuse(": " + ec.message());
    return inWritableDirectory(); // a new file
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
  if (own.type() == fs::file_type::symlink_file) {
    llvm::SmallString<256> real;
    if (std::error_code ec = fs::real_path(path, real))
      return refuse(": " + ec.message());
    out.target = real.str().str();
  }
  return inWritableDirectory();
}

TempOutputFile::~TempOutputFile() {
  if (tmp.empty() || committed)
    return;
  fs::remove(tmp);
  llvm::sys::DontRemoveFileOnSignal(tmp);
}

llvm::Error TempOutputFile::create() {
  if (std::error_code ec = fs::createUniqueFile(target + ".tmp-%%%%%%", tmp)) {
    tmp.clear();
    return llvm::createStringError("cannot create '" + target +
                                   "': " + ec.message());
  }
  llvm::sys::RemoveFileOnSignal(tmp);
  return llvm::Error::success();
}

llvm::Error TempOutputFile::commit() {
  if (std::error_code ec = fs::rename(tmp, target))
    return llvm::createStringError("cannot write '" + target +
                                   "': " + ec.message());
  committed = true;
  llvm::sys::DontRemoveFileOnSignal(tmp);
  return llvm::Error::success();
}

llvm::Error
writeOutputFile(llvm::StringRef target,
                llvm::function_ref<llvm::Error(llvm::StringRef tmp)> write) {
  TempOutputFile out(target);
  if (llvm::Error e = out.create())
    return e;
  if (llvm::Error e = write(out.path()))
    return e;
  return out.commit();
}

llvm::Error
runWithOutput(const OutputPath &output,
              llvm::function_ref<LogicalResult(llvm::StringRef path)> run) {
  if (output.direct)
    return reported(run(output.target));
  return writeOutputFile(
      output.target, [&](llvm::StringRef tmp) { return reported(run(tmp)); });
}

int runWithCheckedOutput(
    llvm::StringRef tool, llvm::StringRef path,
    llvm::ArrayRef<std::string> inputs,
    llvm::function_ref<LogicalResult(llvm::StringRef path)> run) {
  llvm::Expected<OutputPath> output =
      checkOutputPath("-o", path, inputs, /*allowStreams=*/true);
  llvm::Error error = output ? runWithOutput(*output, run) : output.takeError();
  if (!error)
    return 0;
  llvm::handleAllErrors(
      std::move(error), [](const ReportedError &) {},
      [&](const llvm::ErrorInfoBase &e) {
        llvm::errs() << tool << ": error: " << e.message() << "\n";
      });
  return 1;
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
