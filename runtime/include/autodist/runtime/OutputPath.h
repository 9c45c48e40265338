//===- OutputPath.h - Where output files may go -----------------*- C++ -*-===//
//
// Every output (--save, --predict, --log, --trace, --outputs, checkpoints) is
// a regular file that is replaced as a whole. A device node, FIFO, socket or
// directory at an output path is refused, never replaced: renaming a
// temporary over /dev/null (as root) would turn it into a regular file. A
// symlink is followed, so the file it points to is replaced and the link
// stays. And no output may be one of the run's inputs or another output,
// which would destroy the input or mix two outputs.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_OUTPUTPATH_H
#define AUTODIST_RUNTIME_OUTPUTPATH_H

#include <string>
#include <vector>

namespace autodist::rt {

/// `path` with its symlinks followed to the file they name (which need not
/// exist: a dangling link names its target). Throws Error on a link loop.
std::string followSymlinks(const std::string &path);

/// Throws Error ("cannot write 'PATH': ...") unless `path` can be written
/// later: after symlinks it does not exist or is a regular file, and its
/// directory is writable.
void checkOutputPath(const std::string &path);

/// A file the run reads or writes, named for errors by its flag.
struct RunFile {
  std::string flag; // "--data", "--save", ...
  std::string path;
  bool output;
};

/// Throws Error if an output is the same file (same device and inode, or
/// the same path after symlinks) as an input or another output, e.g.
/// "--log='a.npz' is the same file as --data='a.npz'".
void checkDistinctFiles(const std::vector<RunFile> &files);

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_OUTPUTPATH_H
