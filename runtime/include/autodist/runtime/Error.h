//===- Error.h - User-facing runtime errors ---------------------*- C++ -*-===//
//
// Every failure the user can cause (bad flag, bad data file, unwritable
// output) is reported as one `error: ...` line and a process exit code, so it
// is thrown as this type and caught once, in the trainer.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_ERROR_H
#define AUTODIST_RUNTIME_ERROR_H

#include <stdexcept>
#include <string>

namespace autodist::rt {

/// Exit codes: 2 for command-line misuse, 1 for everything else.
enum ExitCode : int { ExitData = 1, ExitUsage = 2 };

/// An error whose message (without the `error: ` prefix) is shown verbatim.
class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message, int exitCode = ExitData)
      : std::runtime_error(message), exitCode_(exitCode) {}
  int exitCode() const { return exitCode_; }

private:
  int exitCode_;
};

/// Quotes a user-visible name the way every message does: 'name'.
inline std::string inQuotes(const std::string &s) { return "'" + s + "'"; }

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_ERROR_H
