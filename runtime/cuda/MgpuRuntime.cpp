//===- MgpuRuntime.cpp - The mgpu* ABI of MLIR's gpu-to-llvm --------------===//
//
// What MLIR 22.1's gpu-to-llvm lowering calls (upstream's reference is
// mlir/lib/ExecutionEngine/CudaRuntimeWrappers.cpp, on the driver API; this
// one is on the runtime API, so the executable needs no libcuda at link
// time), adapted to the runtime:
//  - mgpuModuleLoad runs from a static constructor, before main, MPI and the
//    choice of GPU: it only records the image. The image is loaded
//    (cudaLibraryLoadData) on the first mgpuModuleGetFunction after select(),
//    into the rank's GPU; kernels are cached per (module, name).
//  - Every launch goes to the compute stream. gpu-to-llvm makes, syncs and
//    destroys a stream around every launch; here mgpuStreamCreate hands out
//    the compute stream and synchronizing or destroying it does nothing:
//    the single stream orders the kernels, the library calls and the
//    collectives, and the host waits in Device::synchronize().
//  - Compiled code cannot catch exceptions: a failed launch is recorded and
//    thrown by the next synchronize(); a kernel that cannot be found ends the
//    job with one `error:` line.
//
//===----------------------------------------------------------------------===//

#include "CudaContext.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace autodist::rt::cuda {
namespace {

struct Kernel {
  cudaKernel_t kernel = nullptr;
  std::string name;
  int sharedLimit = 48 << 10; // dynamic shared memory it may use now
};

struct Module {
  const void *image;
  bool jit;     // PTX (mgpuModuleLoadJIT), not a cubin
  int optLevel; // of the JIT
  cudaLibrary_t library = nullptr;
  std::unordered_map<const char *, Kernel *> byAddress; // name globals
  std::unordered_map<std::string, Kernel *> byName;
  std::deque<Kernel> kernels; // stable addresses: the handles
};

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<Module>> modules;
  std::vector<cudaEvent_t> freeEvents;
};

Registry &registry() {
  static Registry *r = new Registry; // used from static ctors and dtors
  return *r;
}

Kernel *lookup(Module *m, const char *name) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto hit = m->byAddress.find(name);
  if (hit != m->byAddress.end())
    return hit->second;
  if (!deviceSelected())
    fatal(std::string("the GPU kernel '") + name +
          "' is used before the CUDA device is selected");
  if (!m->library) {
    cudaJitOption options[] = {cudaJitOptimizationLevel};
    void *values[] = {
        reinterpret_cast<void *>(static_cast<uintptr_t>(m->optLevel))};
    bool jit = m->jit;
    cudaError_t err = cudaLibraryLoadData(
        &m->library, m->image, jit ? options : nullptr, jit ? values : nullptr,
        jit ? 1 : 0, nullptr, nullptr, 0);
    if (err != cudaSuccess)
      fatal(std::string("cannot load the compiled GPU kernels on device ") +
            std::to_string(deviceOrdinal()) + ": " + cudaGetErrorString(err));
  }
  Kernel *&k = m->byName[name];
  if (!k) {
    cudaKernel_t kernel = nullptr;
    cudaError_t err = cudaLibraryGetKernel(&kernel, m->library, name);
    if (err != cudaSuccess)
      fatal(std::string("cannot find the GPU kernel '") + name +
            "': " + cudaGetErrorString(err));
    m->kernels.push_back(Kernel{kernel, name});
    k = &m->kernels.back();
  }
  m->byAddress[name] = k;
  return k;
}

void report(cudaError_t err, const std::string &what) {
  recordAsyncError(what + ": " + cudaGetErrorString(err));
}
/// Records a failed `call`; a success costs nothing.
void record(cudaError_t err, const char *call) {
  if (err != cudaSuccess)
    report(err, std::string("CUDA ") + call);
}
} // namespace

void unloadModules() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto &m : r.modules) {
    if (m->library)
      cudaLibraryUnload(m->library); // at exit: nothing to report to
    m->library = nullptr;
    m->byAddress.clear();
    m->byName.clear();
  }
  for (cudaEvent_t e : r.freeEvents)
    cudaEventDestroy(e);
  r.freeEvents.clear();
}

} // namespace autodist::rt::cuda

using namespace autodist::rt::cuda;

extern "C" {

/// A cubin of `size` bytes (cudaLibraryLoadData reads the size from it).
void *mgpuModuleLoad(void *data, uint64_t /*size*/) {
  auto m = std::make_unique<Module>();
  m->image = data;
  m->jit = false;
  m->optLevel = 0;
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.modules.push_back(std::move(m));
  return r.modules.back().get();
}

/// PTX, JIT-compiled by the driver at the first use.
void *mgpuModuleLoadJIT(void *data, int optLevel) {
  auto *m = static_cast<Module *>(mgpuModuleLoad(data, 1));
  m->jit = true;
  m->optLevel = optLevel;
  return m;
}

/// From a static destructor: the library went with select()'s exit handler
/// (CUDA must not be called after its own teardown), so only forget it.
void mgpuModuleUnload(void *module) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto &m : r.modules)
    if (m.get() == module) {
      if (m->library && deviceSelected())
        cudaLibraryUnload(m->library);
      m->library = nullptr;
    }
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  return lookup(static_cast<Module *>(module), name);
}

void mgpuLaunchKernel(void *function, int64_t gridX, int64_t gridY,
                      int64_t gridZ, int64_t blockX, int64_t blockY,
                      int64_t blockZ, int32_t smem, void * /*stream*/,
                      void **params, void **extra, int64_t /*paramsCount*/) {
  auto *k = static_cast<Kernel *>(function);
  // Built only on failure: a launch allocates nothing.
  auto what = [&] { return "launching the GPU kernel '" + k->name + "'"; };
  if (extra) {
    recordAsyncError(what() + ": 'extra' launch parameters are not supported");
    return;
  }
  for (int64_t d : {gridX, gridY, gridZ, blockX, blockY, blockZ})
    if (d == 0)
      return; // an empty loop (a zero-sized slice): nothing to run
  for (int64_t d : {gridX, gridY, gridZ, blockX, blockY, blockZ})
    if (d < 1 || d > 0x7fffffff) {
      recordAsyncError(what() + ": grid or block size " + std::to_string(d) +
                       " out of range");
      return;
    }
  cudaError_t err;
  if (smem > k->sharedLimit) {
    err = cudaKernelSetAttributeForDevice(
        k->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem,
        deviceOrdinal());
    if (err != cudaSuccess)
      return report(err, what() + " with " + std::to_string(smem) +
                             " bytes of dynamic shared memory");
    k->sharedLimit = smem;
  }
  err = cudaLaunchKernel(
      reinterpret_cast<const void *>(k->kernel), dim3(gridX, gridY, gridZ),
      dim3(blockX, blockY, blockZ), params, smem, computeStream());
  if (err != cudaSuccess)
    report(err, what());
}

void *mgpuStreamCreate() { return computeStream(); }
void mgpuStreamDestroy(void *) {}
void mgpuStreamSynchronize(void *) {}

void mgpuStreamWaitEvent(void *, void *event) {
  record(
      cudaStreamWaitEvent(computeStream(), static_cast<cudaEvent_t>(event), 0),
      "cudaStreamWaitEvent");
}

/// Events are pooled: async regions make one per wait.
void *mgpuEventCreate() {
  Registry &r = registry();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    if (!r.freeEvents.empty()) {
      cudaEvent_t e = r.freeEvents.back();
      r.freeEvents.pop_back();
      return e;
    }
  }
  cudaEvent_t e = nullptr;
  record(cudaEventCreateWithFlags(&e, cudaEventDisableTiming),
         "cudaEventCreateWithFlags");
  return e;
}

void mgpuEventDestroy(void *event) {
  if (!event)
    return;
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.freeEvents.push_back(static_cast<cudaEvent_t>(event));
}

void mgpuEventRecord(void *event, void *) {
  record(cudaEventRecord(static_cast<cudaEvent_t>(event), computeStream()),
         "cudaEventRecord");
}

void mgpuEventSynchronize(void *event) {
  record(cudaEventSynchronize(static_cast<cudaEvent_t>(event)),
         "cudaEventSynchronize");
}

/// gpu.alloc: stream-ordered device memory, or managed memory for
/// `host_shared`. Out of memory ends the job (compiled code has no null
/// check).
void *mgpuMemAlloc(uint64_t bytes, void *, bool isHostShared) {
  void *p = nullptr;
  bytes = bytes ? bytes : 1;
  cudaError_t err = isHostShared
                        ? cudaMallocManaged(&p, bytes, cudaMemAttachGlobal)
                        : cudaMallocAsync(&p, bytes, computeStream());
  if (err != cudaSuccess)
    fatal("gpu.alloc of " + std::to_string(bytes) +
          " bytes failed: " + cudaGetErrorString(err));
  return p;
}

void mgpuMemFree(void *p, void *) {
  if (!p)
    return;
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, p) == cudaSuccess &&
      attributes.type == cudaMemoryTypeManaged)
    record(cudaFree(p), "cudaFree");
  else
    record(cudaFreeAsync(p, computeStream()), "cudaFreeAsync");
}

void mgpuMemcpy(void *dst, void *src, size_t bytes, void *) {
  record(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, computeStream()),
         "cudaMemcpyAsync");
}

void mgpuMemset32(void *dst, unsigned value, size_t count, void *) {
  try {
    fillOnStream(dst, value, count, 4);
  } catch (const std::exception &e) {
    recordAsyncError(e.what());
  }
}

void mgpuMemset16(void *dst, unsigned short value, size_t count, void *) {
  try {
    fillOnStream(dst, value, count, 2);
  } catch (const std::exception &e) {
    recordAsyncError(e.what());
  }
}

/// The device is the rank's (select()).
void mgpuSetDefaultDevice(int32_t) {}

} // extern "C"
