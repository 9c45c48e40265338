//===- ResourceSpec.cpp - AutoDist YAML resource specs --------------------===//
//
// The format of autodist/resource_spec.py: `nodes:` (address, cpus, gpus,
// chief, network_bandwidth, ssh_config) and `ssh:` (per-config username,
// key_file, port, python_venv, shared_envs; accepted and checked, not used:
// MPI does the launching).
//
//===----------------------------------------------------------------------===//

#include "autodist/Strategy/ResourceSpec.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLTraits.h"

#include <map>
#include <optional>

using namespace mlir;
using namespace autodist;
using namespace autodist::dist;

namespace {
struct SSHConfig {
  std::string username, keyFile, pythonVenv;
  int64_t port = 22;
  std::map<std::string, std::string> sharedEnvs;
};

struct NodeSpec {
  std::string address;
  std::optional<std::vector<int64_t>> cpus;
  std::vector<int64_t> gpus;
  bool chief = false;
  std::optional<double> bandwidth;
  std::string sshConfig;
};

struct Spec {
  std::vector<NodeSpec> nodes;
  std::map<std::string, SSHConfig> ssh;
};
} // namespace

LLVM_YAML_IS_SEQUENCE_VECTOR(NodeSpec)
LLVM_YAML_IS_STRING_MAP(SSHConfig)
LLVM_YAML_IS_STRING_MAP(std::string)

namespace llvm::yaml {
template <> struct MappingTraits<SSHConfig> {
  static void mapping(IO &io, SSHConfig &c) {
    io.mapOptional("username", c.username);
    io.mapOptional("key_file", c.keyFile);
    io.mapOptional("port", c.port);
    io.mapOptional("python_venv", c.pythonVenv);
    io.mapOptional("shared_envs", c.sharedEnvs);
  }
};
template <> struct MappingTraits<NodeSpec> {
  static void mapping(IO &io, NodeSpec &n) {
    io.mapRequired("address", n.address);
    io.mapOptional("cpus", n.cpus);
    io.mapOptional("gpus", n.gpus);
    io.mapOptional("chief", n.chief);
    io.mapOptional("network_bandwidth", n.bandwidth);
    io.mapOptional("ssh_config", n.sshConfig);
  }
};
template <> struct MappingTraits<Spec> {
  static void mapping(IO &io, Spec &s) {
    io.mapRequired("nodes", s.nodes);
    io.mapOptional("ssh", s.ssh);
  }
};
} // namespace llvm::yaml

/// parseResourceSpec, the failure as an llvm::Error (emitted once the
/// handlers that capture the attribute verifiers' messages are gone).
static llvm::Expected<ClusterAttr> parseSpec(MLIRContext *ctx, StringRef yaml,
                                             StringRef fileName) {
  std::string first;
  auto handler = [](const llvm::SMDiagnostic &d, void *out) {
    auto *s = static_cast<std::string *>(out);
    if (s->empty())
      *s = (Twine(d.getLineNo()) + ":" + Twine(d.getColumnNo() + 1) + ": " +
            d.getMessage())
               .str();
  };
  Spec spec;
  llvm::yaml::Input in(yaml, nullptr, handler, &first);
  in >> spec;
  if (in.error())
    return llvm::createStringError(
        (fileName + ":" + (first.empty() ? " invalid YAML" : first)).str());
  auto fail = [&](const Twine &where, const Twine &msg) {
    return llvm::createStringError(
        (fileName + ": " + where + ": " + msg).str());
  };
  if (spec.nodes.empty())
    return fail("nodes", "the resource spec lists no nodes");
  Builder b(ctx);
  SmallVector<Attribute> nodes;
  for (auto [i, n] : llvm::enumerate(spec.nodes)) {
    std::string where = "nodes[" + std::to_string(i) + "]";
    if (spec.nodes.size() > 1 && !n.chief) {
      if (n.sshConfig.empty())
        return fail(where + ".ssh_config",
                    "required for every non-chief node of a multi-node spec");
      if (!spec.ssh.count(n.sshConfig))
        return fail(where + ".ssh_config",
                    "'" + n.sshConfig + "' is not defined under 'ssh:'");
    }
    std::vector<int64_t> cpus = n.cpus.value_or(std::vector<int64_t>{0});
    std::string diag;
    ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &d) {
      diag = d.str();
      return success();
    });
    auto node = getVerified<ClusterNodeAttr>(
        [&] { return emitError(UnknownLoc::get(ctx)); }, ctx, n.address,
        ArrayRef<int64_t>(cpus), ArrayRef<int64_t>(n.gpus),
        n.chief || spec.nodes.size() == 1,
        b.getF64FloatAttr(n.bandwidth.value_or(1.0)));
    if (!node)
      return fail(where, diag);
    nodes.push_back(node);
  }
  std::string diag;
  ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &d) {
    diag = d.str();
    return success();
  });
  auto cluster =
      getVerified<ClusterAttr>([&] { return emitError(UnknownLoc::get(ctx)); },
                               ctx, b.getArrayAttr(nodes));
  if (!cluster)
    return fail("nodes", diag);
  return cluster;
}

FailureOr<ClusterAttr>
autodist::parseResourceSpec(StringRef yaml, StringRef fileName, Location loc) {
  llvm::Expected<ClusterAttr> c = parseSpec(loc.getContext(), yaml, fileName);
  if (!c)
    return emitError(loc) << llvm::toString(c.takeError());
  return *c;
}

FailureOr<ClusterAttr> autodist::readResourceSpec(StringRef path,
                                                  Location loc) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return emitError(loc) << "cannot read resource spec '" << path
                          << "': " << buf.getError().message();
  return parseResourceSpec((*buf)->getBuffer(), path, loc);
}

std::string autodist::mpiHostfile(ClusterAttr cluster) {
  std::string out;
  for (Attribute a : cluster.getNodes()) {
    auto n = cast<ClusterNodeAttr>(a);
    size_t slots =
        n.getGpus().empty() ? n.getCpus().size() : n.getGpus().size();
    out += (n.getAddress() + " slots=" + Twine(slots) + "\n").str();
  }
  return out;
}
