//===- TempFileRegistry.h - Temporaries removed on signals ------*- C++ -*-===//
//
// An output is written to a temporary beside it and renamed (AtomicFile.h).
// A run stopped by Ctrl-C, `kill` or the batch system's SIGTERM would leave
// that `*.tmp-XXXXXX` behind (a checkpoint's can be as large as the model).
// The temporaries being written are registered here, in a fixed table of
// paths, and a handler for SIGINT, SIGTERM and SIGHUP unlinks them (only
// async-signal-safe calls) and re-raises the signal with the action that
// was there before (the default: the process ends, by that signal). The
// outputs themselves are untouched: the old file stays until the rename.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_TEMPFILEREGISTRY_H
#define AUTODIST_RUNTIME_TEMPFILEREGISTRY_H

#include <string>

namespace autodist::rt::tempfiles {

/// Registers the temporary `path` (installing the handlers the first time);
/// returns its slot for forget(), or -1 if the table is full (the file is
/// then not removed on a signal).
int remember(const std::string &path);
/// mkstemp(`path`) (a template ending in XXXXXX, replaced by the name made)
/// with the file registered from the moment it can exist: a signal on any
/// thread removes it. Returns the descriptor (-1 and errno on failure) and
/// the slot in `slot` (-1: the table was full, or mkstemp failed).
int create(std::string &path, int &slot);
/// Never returns once the handler runs (on another thread): a writer whose
/// temporary it removed waits for the end by the signal instead of reporting
/// a failed write.
void pauseIfDying();
/// Unregisters slot `slot` (after the file was renamed or removed); -1 is
/// ignored.
void forget(int slot);

} // namespace autodist::rt::tempfiles

#endif // AUTODIST_RUNTIME_TEMPFILEREGISTRY_H
