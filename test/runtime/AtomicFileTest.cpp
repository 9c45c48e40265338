//===- AtomicFileTest.cpp - All-or-nothing writes, signals, symlinks ------===//

#include "autodist/runtime/AtomicFile.h"

#include "TestUtil.h"

#include <csignal>
#include <pthread.h>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace autodist::rt;
using namespace autodist::rt::test;

namespace {
std::string contents(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Names in `dir` containing ".tmp-".
std::vector<std::string> temporaries(const std::string &dir) {
  std::vector<std::string> out;
  DIR *d = opendir(dir.c_str());
  while (dirent *e = d ? readdir(d) : nullptr)
    if (std::string(e->d_name).find(".tmp-") != std::string::npos)
      out.push_back(e->d_name);
  if (d)
    closedir(d);
  return out;
}
} // namespace

TEST(AtomicFile, SignalMidWriteRemovesTheTemporary) {
  // A child writes half a file and is killed by SIGTERM (then SIGINT):
  // it dies by that signal, the old file is intact and no temporary is
  // left (before, the `.tmp-XXXXXX` stayed).
  std::string dir = freshDir("sig");
  std::string path = dir + "/out.bin";
  std::ofstream(path) << "old";
  for (int sig : {SIGTERM, SIGINT}) {
    // An ignored signal stays ignored (nohup; lit's workers ignore SIGINT):
    // there is nothing to clean up after it.
    struct sigaction now = {};
    sigaction(sig, nullptr, &now);
    if (now.sa_handler == SIG_IGN)
      continue;
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      AtomicFileWriter out(path);
      out.write("new, but not complete");
      kill(getpid(), sig);
      _exit(0); // not reached: the signal ends the process
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
    EXPECT_EQ(contents(path), "old");
    EXPECT_EQ(temporaries(dir), std::vector<std::string>{});
  }
}

TEST(AtomicFile, SignalOnAnotherThreadRemovesTheTemporary) {
  // One thread writes outputs back to back (a checkpoint every step); the
  // SIGTERM is handled on another thread (as it lands on a BLAS or MPI
  // thread). Before, the handler could run while the writer was between
  // mkstemp and registering the name, and its temporary stayed.
  struct sigaction now = {};
  sigaction(SIGTERM, nullptr, &now);
  if (now.sa_handler == SIG_IGN)
    GTEST_SKIP() << "SIGTERM is ignored here";
  std::string dir = freshDir("thread");
  for (int round = 0; round < 20; ++round) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      sigset_t term;
      sigemptyset(&term);
      sigaddset(&term, SIGTERM);
      std::thread writer([&] {
        pthread_sigmask(SIG_BLOCK, &term, nullptr); // never handled here
        for (int i = 0;; ++i)
          writeFileAtomically(dir + "/out" + std::to_string(i % 4), "x");
      });
      writer.detach();
      for (;;)
        pause(); // the signal is handled on this thread
    }
    usleep(2000 + 1000 * round);
    kill(child, SIGTERM);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
    EXPECT_EQ(temporaries(dir), std::vector<std::string>{}) << "round " << round;
  }
}

TEST(AtomicFile, CommittedFileSurvivesALaterSignal) {
  // After commit() the temporary is forgotten: a later signal removes
  // nothing (the table has no stale entry for the renamed path).
  std::string dir = freshDir("done");
  std::string path = dir + "/out.bin";
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    writeFileAtomically(path, "complete");
    AtomicFileWriter pending(dir + "/other.bin");
    kill(getpid(), SIGTERM);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(contents(path), "complete");
  EXPECT_EQ(temporaries(dir), std::vector<std::string>{});
  EXPECT_FALSE(fileExists(dir + "/other.bin"));
}

TEST(AtomicFile, WritesASymlinksTarget) {
  std::string dir = freshDir("link");
  ASSERT_EQ(mkdir((dir + "/real").c_str(), 0777), 0);
  ASSERT_EQ(symlink("real/target.txt", (dir + "/link.txt").c_str()), 0);
  writeFileAtomically(dir + "/link.txt", "via the link");
  struct stat st;
  ASSERT_EQ(lstat((dir + "/link.txt").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(contents(dir + "/real/target.txt"), "via the link");
  EXPECT_EQ(temporaries(dir + "/real"), std::vector<std::string>{});
}

TEST(AtomicFile, RefusesNonRegularFiles) {
  std::string dir = freshDir("dir"), fifo = freshDir("fifo-parent") + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0666), 0);
  EXPECT_EQ(errorOf([&] { writeFileAtomically(dir, "x"); }),
            "cannot write '" + dir +
                "': it is a directory, not a regular file");
  EXPECT_EQ(errorOf([&] { writeFileAtomically(fifo, "x"); }),
            "cannot write '" + fifo + "': it is a FIFO, not a regular file");
  struct stat st;
  ASSERT_EQ(stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)); // not replaced
}
