//===- Affinity.cpp - Which CPUs a rank runs on ---------------------------===//

#include "autodist/runtime/Affinity.h"
#include "autodist/runtime/Comm.h"
#include "autodist/runtime/Error.h"
#include "autodist/runtime/Sgemm.h"

#include <dirent.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>

namespace autodist::rt {

std::optional<PinMode> parsePinMode(const std::string &value) {
  if (value == "auto")
    return PinMode::Auto;
  if (value == "cores")
    return PinMode::Cores;
  if (value == "none")
    return PinMode::None;
  return std::nullopt;
}

std::vector<int> cpuBlock(const std::vector<int> &allowed, int rank,
                          int ranks) {
  const int64_t c = static_cast<int64_t>(allowed.size());
  if (c == 0 || ranks <= 0)
    return {};
  if (ranks > c)
    return {allowed[rank % c]};
  return std::vector<int>(allowed.begin() + rank * c / ranks,
                          allowed.begin() + (rank + 1) * c / ranks);
}

std::vector<int> coresBlock(const std::vector<std::vector<int>> &masks,
                            int rank) {
  bool partition = true;
  for (size_t a = 0; a < masks.size(); ++a)
    for (size_t b = a + 1; b < masks.size(); ++b)
      partition &= masks[a] == masks[b] || disjoint({masks[a], masks[b]});
  if (!partition) {
    std::set<int> all;
    for (const std::vector<int> &m : masks)
      all.insert(m.begin(), m.end());
    return cpuBlock(std::vector<int>(all.begin(), all.end()), rank,
                    static_cast<int>(masks.size()));
  }
  int index = 0, group = 0; // this rank's place among those sharing its CPUs
  for (size_t r = 0; r < masks.size(); ++r)
    if (masks[r] == masks[rank]) {
      index += static_cast<int>(r) < rank;
      ++group;
    }
  return cpuBlock(masks[rank], index, group);
}

bool disjoint(const std::vector<std::vector<int>> &sets) {
  std::set<int> seen;
  for (const std::vector<int> &s : sets)
    for (int cpu : s)
      if (!seen.insert(cpu).second)
        return false;
  return true;
}

std::string cpuListString(const std::vector<int> &cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1)
      ++j;
    if (!out.empty())
      out += ',';
    out += std::to_string(cpus[i]);
    if (j > i)
      out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

std::string Pinning::describe() const {
  std::string where =
      (cpus.size() == 1 ? "CPU " : "CPUs ") + cpuListString(cpus);
  std::string line = action == Action::Pinned ? "pinned to " + where
                     : action == Action::Kept
                         ? "kept the launcher's binding, " + where
                         : "not pinned (--pin=none), " + where;
  line += " (" + std::to_string(blasThreads) + " BLAS thread" +
          (blasThreads == 1 ? "" : "s");
  if (blasThreadsFromEnv)
    line += std::getenv("OPENBLAS_NUM_THREADS") ? ", from OPENBLAS_NUM_THREADS"
                                                : ", from OMP_NUM_THREADS";
  return line + ")";
}

namespace {
std::vector<int> toList(const cpu_set_t &set) {
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set))
      cpus.push_back(cpu);
  return cpus;
}

cpu_set_t toSet(const std::vector<int> &cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus)
    CPU_SET(cpu, &set);
  return set;
}

/// The affinity of thread `tid` (0: the calling thread).
cpu_set_t affinityOf(pid_t tid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(tid, sizeof set, &set) != 0)
    throw Error(std::string("--pin: cannot read the CPU affinity: ") +
                std::strerror(errno));
  return set;
}

/// The ids of this process's threads.
std::vector<pid_t> threadIds() {
  std::vector<pid_t> tids;
  DIR *dir = opendir("/proc/self/task");
  if (!dir)
    throw Error(std::string("--pin: cannot list /proc/self/task: ") +
                std::strerror(errno));
  while (dirent *e = readdir(dir))
    if (e->d_name[0] != '.')
      tids.push_back(static_cast<pid_t>(std::atol(e->d_name)));
  closedir(dir);
  return tids;
}

/// Restricts every thread of the process to `cpus` and checks that each one
/// now has exactly that affinity. Threads that appear meanwhile inherit the
/// affinity of their creator or are caught by the next pass.
void pinAllThreads(const std::vector<int> &cpus) {
  const cpu_set_t want = toSet(cpus);
  std::set<pid_t> done;
  for (bool fresh = true; fresh;) {
    fresh = false;
    for (pid_t tid : threadIds()) {
      if (!done.insert(tid).second)
        continue;
      fresh = true;
      if (sched_setaffinity(tid, sizeof want, &want) != 0) {
        if (errno == ESRCH) // exited meanwhile
          continue;
        throw Error("--pin: cannot pin thread " + std::to_string(tid) +
                    " to CPUs " + cpuListString(cpus) + ": " +
                    std::strerror(errno) + " (--pin=none leaves it alone)");
      }
      cpu_set_t got;
      if (sched_getaffinity(tid, sizeof got, &got) == 0 &&
          !CPU_EQUAL(&got, &want))
        throw Error("--pin: thread " + std::to_string(tid) + " has CPUs " +
                    cpuListString(toList(got)) + " instead of " +
                    cpuListString(cpus) + " (--pin=none leaves it alone)");
    }
  }
}
} // namespace

Pinning pinThreads(PinMode mode) {
  const int localRank = comm::localRank();
  const cpu_set_t own = affinityOf(0);
  // Every node rank's current affinity, to see what the launcher did.
  std::vector<char> raw = comm::localAllgather(&own, sizeof own);
  const int localSize = static_cast<int>(raw.size() / sizeof own);
  std::vector<std::vector<int>> masks;
  for (int r = 0; r < localSize; ++r) {
    cpu_set_t m;
    std::memcpy(&m, raw.data() + r * sizeof m, sizeof m);
    masks.push_back(toList(m));
  }

  Pinning p;
  const std::vector<int> mine = toList(own);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  bool launcherBound = static_cast<long>(mine.size()) < online &&
                       (localSize == 1 || disjoint(masks));
  if (mode == PinMode::None) {
    p.action = Pinning::Action::Untouched;
  } else if (mode == PinMode::Auto && launcherBound) {
    p.action = Pinning::Action::Kept;
  } else {
    p.action = Pinning::Action::Pinned;
    pinAllThreads(coresBlock(masks, localRank));
  }
  p.cpus = toList(affinityOf(0));
  // Unpinned, the node's ranks share the CPUs.
  int threads = static_cast<int>(p.cpus.size());
  if (p.action == Pinning::Action::Untouched)
    threads = std::max(1, threads / localSize);
  p.blasThreads = configureBlasThreads(threads);
  p.blasThreadsFromEnv = blasThreadsFromEnv();
  return p;
}

} // namespace autodist::rt
