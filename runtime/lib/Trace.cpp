//===- Trace.cpp - Chrome/Perfetto trace of the training loop -------------===//

#include "autodist/runtime/Trace.h"
#include "autodist/runtime/AtomicFile.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

namespace autodist::rt::trace {

namespace {
using Clock = std::chrono::steady_clock;

/// One complete event: [ts, ts + dur) microseconds, on thread `tid` (0: the
/// host, 1: the device).
struct Event {
  const char *name, *category;
  double ts, dur;
  std::string args; // JSON object body
  int tid = 0;
};

/// An event of the device, between two of its clock's marks.
struct DeviceEvent {
  const char *name, *category;
  int begin, end;
  std::string args;
};

struct State {
  bool on = false;
  int rank = 0;
  std::string path, label;
  Clock::time_point origin;
  double stepBegin = 0; // current step's start
  double lastEnd = 0;   // end of the step start or of the last runtime call
  std::vector<Event> events;
  std::vector<const char *> opNames; // autodist_trace_op_names, split
  const char *opName = nullptr;      // the loop nest running now
  double opBegin = 0;
  DeviceClock *clock = nullptr;          // the device's timeline, if it has one
  std::vector<DeviceEvent> deviceEvents; // this step's
  int opMark = -1;
};

State &state() {
  static State s;
  return s;
}

/// The compiled code from the last runtime call (or the step's start) to
/// `until`, if any time passed.
void computeUntil(double until) {
  State &s = state();
  if (until > s.lastEnd)
    s.events.push_back(
        {"compute", "compute", s.lastEnd, until - s.lastEnd, ""});
}

/// `v` printed with `format` (JSON has no NaN/Infinity: null).
std::string number(double v, const char *format = "%.3f") {
  if (v != v || v - v != 0)
    return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}
} // namespace

bool enabled() { return state().on; }

void setDeviceClock(DeviceClock *clock) { state().clock = clock; }

int deviceMark() {
  State &s = state();
  return s.on && s.clock ? s.clock->mark() : -1;
}

std::string rankPath(const std::string &path, int rank) {
  size_t slash = path.rfind('/');
  size_t dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) ||
      dot == (slash == std::string::npos ? 0 : slash + 1))
    dot = path.size(); // no extension
  return path.substr(0, dot) + ".rank" + std::to_string(rank) +
         path.substr(dot);
}

void start(const std::string &path, int rank, const std::string &label) {
  State &s = state();
  s.on = true;
  s.rank = rank;
  s.label = label;
  s.path = rankPath(path, rank);
  s.origin = Clock::now();
  s.events.reserve(1 << 14);
}

double now() {
  return std::chrono::duration<double, std::micro>(Clock::now() -
                                                   state().origin)
      .count();
}

void beginStep() {
  State &s = state();
  if (!s.on)
    return;
  s.stepBegin = s.lastEnd = now();
  if (s.clock) {
    s.clock->resolve(); // marks left by work outside a step
    s.clock->mark();    // 0: the step's start on the device
    s.deviceEvents.clear();
  }
}

void endStep(int64_t step, double loss) {
  State &s = state();
  if (!s.on)
    return;
  double end = now();
  computeUntil(end);
  std::string args = "\"step\": " + std::to_string(step) +
                     ", \"loss\": " + number(loss, "%.9g");
  s.events.push_back(
      {"train_step", "step", s.stepBegin, end - s.stepBegin, args});
  s.lastEnd = end;
  if (!s.clock)
    return;
  // The device's times, from the step's first mark, placed at its start.
  int last = s.clock->mark();
  std::vector<double> ms = s.clock->resolve();
  auto at = [&](int mark) {
    return mark >= 0 && static_cast<size_t>(mark) < ms.size() ? ms[mark] * 1e3
                                                              : 0.0;
  };
  s.events.push_back({"gpu_step", "step", s.stepBegin, at(last), args, 1});
  for (const DeviceEvent &e : s.deviceEvents)
    s.events.push_back({e.name, e.category, s.stepBegin + at(e.begin),
                        at(e.end) - at(e.begin), e.args, 1});
  s.deviceEvents.clear();
}

/// The names of the compiled code's loop nests (autodist-trace-loop-calls):
/// NUL-separated, ended by an empty name; absent (null) when the model
/// has no loop nest.
extern "C" __attribute__((weak)) const char autodist_trace_op_names[];

void beginOp(int32_t id) {
  State &s = state();
  if (!s.on)
    return;
  if (s.opNames.empty() && autodist_trace_op_names)
    for (const char *p = autodist_trace_op_names; *p; p += std::strlen(p) + 1)
      s.opNames.push_back(p);
  s.opName = id >= 0 && static_cast<size_t>(id) < s.opNames.size()
                 ? s.opNames[id]
                 : "compute";
  s.opBegin = now();
  s.opMark = s.clock ? s.clock->mark() : -1;
}

void endOp() {
  State &s = state();
  if (!s.on || !s.opName)
    return;
  double end = now();
  s.events.push_back({s.opName, "op", s.opBegin, end - s.opBegin, ""});
  if (s.clock && s.opMark >= 0)
    s.deviceEvents.push_back({s.opName, "op", s.opMark, s.clock->mark(), ""});
  s.opName = nullptr;
}

void call(const char *name, const char *category, double begin,
          const std::string &args, int deviceBegin) {
  State &s = state();
  if (!s.on)
    return;
  double end = now();
  computeUntil(begin);
  s.events.push_back({name, category, begin, end - begin, args});
  s.lastEnd = end;
  if (s.clock && deviceBegin >= 0)
    s.deviceEvents.push_back(
        {name, category, deviceBegin, s.clock->mark(), args});
}

void finish() {
  State &s = state();
  if (!s.on)
    return;
  AtomicFileWriter out(s.path);
  out.write("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n");
  std::string pid = std::to_string(s.rank);
  out.write("{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " + pid +
            ", \"tid\": 0, \"args\": {\"name\": \"rank " + pid + "\"}}");
  if (!s.label.empty()) // plain text: CPU lists and words, nothing to escape
    out.write(
        ",\n{\"name\": \"process_labels\", \"ph\": \"M\", \"pid\": " + pid +
        ", \"tid\": 0, \"args\": {\"labels\": \"" + s.label + "\"}}");
  if (s.clock)
    out.write(",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": " + pid +
              ", \"tid\": 1, \"args\": {\"name\": \"gpu\"}}");
  for (const Event &e : s.events) {
    std::string line =
        ",\n{\"name\": \"" + std::string(e.name) + "\", \"cat\": \"" +
        e.category + "\", \"ph\": \"X\", \"pid\": " + pid +
        ", \"tid\": " + std::to_string(e.tid) + ", \"ts\": " + number(e.ts) +
        ", \"dur\": " + number(e.dur);
    if (!e.args.empty())
      line += ", \"args\": {" + e.args + "}";
    out.write(line + "}");
  }
  out.write("\n]}\n");
  out.commit();
  s.on = false;
  s.events.clear();
}

} // namespace autodist::rt::trace
