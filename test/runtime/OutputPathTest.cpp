//===- OutputPathTest.cpp - Output paths and the checkpoint lock ----------===//

#include "autodist/runtime/OutputPath.h"
#include "autodist/runtime/DirectoryLock.h"

#include "TestUtil.h"

#include <fstream>
#include <unistd.h>

using namespace autodist::rt;
using namespace autodist::rt::test;

TEST(OutputPath, FollowsSymlinks) {
  std::string dir = freshDir("links");
  ASSERT_EQ(symlink("b", (dir + "/a").c_str()), 0);
  ASSERT_EQ(symlink("/nowhere/c", (dir + "/b").c_str()), 0);
  EXPECT_EQ(followSymlinks(dir + "/a"), "/nowhere/c"); // dangling is fine
  EXPECT_EQ(followSymlinks(dir + "/plain"), dir + "/plain");
  ASSERT_EQ(symlink("loop", (dir + "/loop").c_str()), 0);
  EXPECT_NE(errorOf([&] {
              followSymlinks(dir + "/loop");
            }).find("Too many levels of symbolic links"),
            std::string::npos);
}

TEST(OutputPath, RefusesDevices) {
  EXPECT_EQ(errorOf([] { checkOutputPath("/dev/null"); }),
            "cannot write '/dev/null': it is a character device, not a "
            "regular file");
}

TEST(OutputPath, DistinctFiles) {
  std::string dir = freshDir("same");
  std::ofstream(dir + "/data.npz") << "x";
  ASSERT_EQ(link((dir + "/data.npz").c_str(), (dir + "/hard.npz").c_str()), 0);
  ASSERT_EQ(symlink("data.npz", (dir + "/soft.npz").c_str()), 0);
  int code = 0;
  EXPECT_EQ(errorOf(
                [&] {
                  checkDistinctFiles({{"--data", dir + "/data.npz", false},
                                      {"--log", dir + "/hard.npz", true}});
                },
                &code),
            "--log='" + dir + "/hard.npz' is the same file as --data='" + dir +
                "/data.npz'");
  EXPECT_EQ(code, ExitUsage);
  EXPECT_NE(errorOf([&] {
              checkDistinctFiles({{"--save", dir + "/soft.npz", true},
                                  {"--eval", dir + "/data.npz", false}});
            }).find("--save="),
            std::string::npos);
  // Outputs that do not exist yet, named differently.
  EXPECT_NE(
      errorOf([&] {
        checkDistinctFiles(
            {{"--predict", dir + "/p.npy", true},
             {"--log", dir + "/../" + dir.substr(dir.rfind('/') + 1) + "/p.npy",
              true}});
      }).find("is the same file as"),
      std::string::npos);
  // Two inputs may be one file; distinct outputs are fine.
  checkDistinctFiles({{"--data", dir + "/data.npz", false},
                      {"--eval", dir + "/hard.npz", false},
                      {"--log", dir + "/log.jsonl", true},
                      {"--save", dir + "/m.onnx", true}});
}

TEST(DirectoryLock, SecondLockFailsUntilReleased) {
  std::string dir = freshDir("ck");
  {
    DirectoryLock first(dir);
    // flock conflicts between open file descriptions, even in one process.
    EXPECT_EQ(errorOf([&] { DirectoryLock second(dir); }),
              "checkpoint directory '" + dir +
                  "' is in use by another run (it holds '" + dir +
                  "/.lock'); wait for it to finish or use another "
                  "--checkpoint");
  }
  DirectoryLock again(dir); // released with the first
}
