//===- OutputPath.cpp - Where output files may go -------------------------===//

#include "autodist/runtime/OutputPath.h"
#include "autodist/runtime/Error.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace autodist::rt {

namespace {
std::string dirOf(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

/// What a non-regular file is, for messages.
const char *kindOf(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

/// One file as the kernel and as a name: inode if it exists, and the
/// absolute path of its directory (resolved) plus its name.
struct FileKey {
  std::optional<std::pair<dev_t, ino_t>> inode;
  std::string path;
};

FileKey keyOf(const std::string &path) {
  FileKey key;
  std::string target = followSymlinks(path);
  struct stat st;
  if (stat(target.c_str(), &st) == 0)
    key.inode = std::make_pair(st.st_dev, st.st_ino);
  char buf[PATH_MAX];
  std::string dir = dirOf(target);
  size_t slash = target.rfind('/');
  std::string name =
      slash == std::string::npos ? target : target.substr(slash + 1);
  key.path = (realpath(dir.c_str(), buf) ? std::string(buf) : dir) + "/" + name;
  return key;
}
} // namespace

std::string followSymlinks(const std::string &path) {
  std::string p = path;
  // As the kernel does, give up after 40 links.
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st;
    if (lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode))
      return p;
    std::string target(st.st_size > 0 ? st.st_size : PATH_MAX, '\0');
    ssize_t n = readlink(p.c_str(), target.data(), target.size());
    if (n < 0)
      return p; // let the write report it
    target.resize(n);
    p = target.front() == '/' || p.find('/') == std::string::npos
            ? target
            : dirOf(p) + "/" + target;
  }
  throw Error("cannot write " + inQuotes(path) + ": " + std::strerror(ELOOP));
}

void checkOutputPath(const std::string &path) {
  std::string target = followSymlinks(path);
  struct stat st;
  if (stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw Error("cannot write " + inQuotes(path) + ": it is " +
                kindOf(st.st_mode) + ", not a regular file");
  std::string dir = dirOf(target);
  if (access(dir.c_str(), W_OK) != 0)
    throw Error("cannot write " + inQuotes(path) + ": " + std::strerror(errno));
}

void checkDistinctFiles(const std::vector<RunFile> &files) {
  std::vector<FileKey> keys;
  for (const RunFile &f : files)
    keys.push_back(keyOf(f.path));
  for (size_t i = 0; i < files.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      if (!files[i].output && !files[j].output)
        continue; // reading one file twice is fine
      bool same = keys[i].inode && keys[i].inode == keys[j].inode;
      if (!same && keys[i].path != keys[j].path)
        continue;
      // Name the output first: it is the one to change.
      const RunFile &out = files[i].output ? files[i] : files[j];
      const RunFile &other = &out == &files[i] ? files[j] : files[i];
      throw Error(out.flag + "=" + inQuotes(out.path) +
                      " is the same file as " + other.flag + "=" +
                      inQuotes(other.path),
                  ExitUsage);
    }
}

} // namespace autodist::rt
