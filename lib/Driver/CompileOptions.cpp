//===- CompileOptions.cpp - setting options by name -----------------------===//

#include "autodist/Driver/CompileOptions.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <cerrno>
#include <cstdlib>

using namespace autodist;

namespace {

llvm::Error badValue(llvm::StringRef flag, llvm::StringRef value,
                     llvm::StringRef expected) {
  return llvm::createStringError("--" + flag.str() + "=" + value.str() +
                                 ": expected " + expected.str());
}

/// Each parse() reads one option's text form as the command line does.
llvm::Error parse(llvm::StringRef flag, llvm::StringRef v, bool &out) {
  std::string s = v.lower();
  if (s.empty() || s == "true" || s == "1" || s == "yes" || s == "on")
    out = true;
  else if (s == "false" || s == "0" || s == "no" || s == "off")
    out = false;
  else
    return badValue(flag, v, "true or false");
  return llvm::Error::success();
}

llvm::Error parse(llvm::StringRef, llvm::StringRef v, std::string &out) {
  out = v.str();
  return llvm::Error::success();
}

llvm::Error parse(llvm::StringRef flag, llvm::StringRef v, double &out) {
  // strtod, as llvm::cl reads doubles: "inf" and "nan" are read (and
  // refused by the checks that need finite numbers, naming the option).
  std::string s = v.str();
  char *end = nullptr;
  errno = 0;
  double d = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0')
    return badValue(flag, v, "a number");
  out = d;
  return llvm::Error::success();
}

llvm::Error parse(llvm::StringRef flag, llvm::StringRef v, int64_t &out) {
  if (v.getAsInteger(0, out))
    return badValue(flag, v, "an integer");
  return llvm::Error::success();
}

llvm::Error parse(llvm::StringRef flag, llvm::StringRef v, uint64_t &out) {
  if (v.getAsInteger(0, out))
    return badValue(flag, v, "a non-negative integer");
  return llvm::Error::success();
}

llvm::Error parse(llvm::StringRef flag, llvm::StringRef v, unsigned &out) {
  if (v.getAsInteger(0, out))
    return badValue(flag, v, "a non-negative integer");
  return llvm::Error::success();
}

void append(std::vector<std::string> &list, llvm::StringRef v,
            bool commaSeparated) {
  if (!commaSeparated) {
    list.push_back(v.str());
    return;
  }
  llvm::SmallVector<llvm::StringRef> parts;
  v.split(parts, ',');
  for (llvm::StringRef p : parts)
    list.push_back(p.str());
}

} // namespace

llvm::Error CompileOptions::set(llvm::StringRef flag, llvm::StringRef value) {
  if (flag == "input") {
    input = value.str();
    return llvm::Error::success();
  }
  if (flag == "o" || flag == "output") {
    output = value.str();
    return llvm::Error::success();
  }
#define AUTODIST_OPTION(TYPE, FIELD, FLAG, DEFAULT, VALUE_DESC, DESCRIPTION)   \
  if (flag == FLAG) {                                                          \
    if (llvm::Error e = parse(flag, value, FIELD))                             \
      return e;                                                                \
    given.insert(FLAG);                                                        \
    return llvm::Error::success();                                             \
  }
#define AUTODIST_LIST_OPTION(FIELD, FLAG, COMMA_SEPARATED, VALUE_DESC,         \
                             DESCRIPTION)                                      \
  if (flag == FLAG) {                                                          \
    append(FIELD, value, COMMA_SEPARATED);                                     \
    given.insert(FLAG);                                                        \
    return llvm::Error::success();                                             \
  }
#include "autodist/Driver/CompileOptions.def"
  return llvm::createStringError("unknown compiler option '" + flag.str() +
                                 "'");
}

std::vector<std::string> CompileOptions::flags() {
  return {
#define AUTODIST_OPTION(TYPE, FIELD, FLAG, DEFAULT, VALUE_DESC, DESCRIPTION)   \
  FLAG,
#define AUTODIST_LIST_OPTION(FIELD, FLAG, COMMA_SEPARATED, VALUE_DESC,         \
                             DESCRIPTION)                                      \
  FLAG,
#include "autodist/Driver/CompileOptions.def"
  };
}
