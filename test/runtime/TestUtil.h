//===- TestUtil.h - Shared helpers of the runtime tests ---------*- C++ -*-===//

#ifndef AUTODIST_TEST_RUNTIME_TESTUTIL_H
#define AUTODIST_TEST_RUNTIME_TESTUTIL_H

#include "autodist/runtime/Error.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <string>
#include <sys/stat.h>

namespace autodist::rt::test {

/// A fresh path in the test temp dir, unique per test.
inline std::string tempPath(const std::string &name) {
  const auto *info = testing::UnitTest::GetInstance()->current_test_info();
  return testing::TempDir() + "autodist_rt_" + info->test_suite_name() + "_" +
         info->name() + "_" + name;
}

/// An empty directory at tempPath(name) (emptied if a run before left it).
inline std::string freshDir(const std::string &name) {
  std::string dir = tempPath(name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directory(dir);
  return dir;
}

inline bool fileExists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

/// The message of the Error `fn` throws (fails the test if none).
template <typename Fn> std::string errorOf(Fn fn, int *exitCode = nullptr) {
  try {
    fn();
  } catch (const Error &e) {
    if (exitCode)
      *exitCode = e.exitCode();
    return e.what();
  }
  ADD_FAILURE() << "expected an autodist::rt::Error";
  return "";
}

} // namespace autodist::rt::test

#endif // AUTODIST_TEST_RUNTIME_TESTUTIL_H
