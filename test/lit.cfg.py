# -*- Python -*-
import os
import shutil
import subprocess
import tempfile

import lit.formats
from lit.llvm import llvm_config

config.name = "AUTODIST"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
# test/e2e/<name>.test.py are helper scripts of <name>.test.
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "runtime", "bin"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.autodist_obj_root, "test")

llvm_config.use_default_substitutions()
config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%src_root", config.autodist_src_root))
config.substitutions.append(("%obj_root", config.autodist_obj_root))
# The interpreter with onnx/onnxruntime (lit's own %python may be another).
config.substitutions.append(("%pyexe", config.python_executable))

# test/bin/mpirun gives every job its own session directory (parallel tests
# would race on a shared one); it runs the mpirun found on PATH now.
real_mpirun = shutil.which("mpirun")
if real_mpirun:
    config.environment["AUTODIST_REAL_MPIRUN"] = real_mpirun
config.environment["PATH"] = os.pathsep.join(
    [os.path.join(config.autodist_src_root, "test", "bin"), config.autodist_tools_dir,
     config.llvm_tools_dir, os.environ.get("PATH", "")])
# mpirun as root, and more ranks than cores on small CI machines.
for var in ["OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"]:
    config.environment[var] = "1"
config.environment["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
for var in ["HOME", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "PYENV_ROOT", "PYENV_VERSION"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

llvm_config.add_tool_substitutions(
    ["autodist-opt", "autodist-translate", "autodist-compile",
     "autodist-capi-test"],
    [config.autodist_tools_dir])

# An interpreter with torch, for the PyTorch-export tests: the venv that
# scripts/setup-torch.sh makes (Debian's torch + transformers) comes first.
for candidate in [os.environ.get("AUTODIST_TORCH_PYTHON"),
                  os.path.join(config.autodist_obj_root, "torch-venv", "bin", "python"),
                  config.python_executable, "/usr/bin/python3"]:
    # Debian's python3 has torch but, with libonnx-testdata, an empty onnx
    # namespace: it only counts with a usable onnx too.
    if candidate and os.path.exists(candidate) and subprocess.run(
            [candidate, "-c", "import torch; from onnx import TensorProto"],
            capture_output=True).returncode == 0:
        config.substitutions.append(("%torchpy", candidate))
        config.available_features.add("torch")
        for module in ["torchvision", "transformers"]:
            if subprocess.run([candidate, "-c", "import " + module],
                              capture_output=True).returncode == 0:
                config.available_features.add(module)
        break

# The ONNX backend node tests (Debian's libonnx-testdata).
for candidate in [os.environ.get("AUTODIST_ONNX_TESTDATA"),
                  "/usr/share/libonnx-testdata/data"]:
    if candidate and os.path.isdir(os.path.join(candidate, "node")):
        config.substitutions.append(("%onnx_testdata", candidate))
        config.available_features.add("onnx-testdata")
        break

if real_mpirun:
    config.available_features.add("mpi")

# The emulated cluster (scripts/netcluster.sh) needs root, network namespaces,
# iproute2's tc and PyYAML; without them its tests are UNSUPPORTED.
if real_mpirun and subprocess.run(
        ["sh", os.path.join(config.autodist_src_root, "scripts", "netcluster.sh"), "check"],
        capture_output=True).returncode == 0:
    config.available_features.add("netns")

# Root in a private mount namespace can mount a tmpfs (a disk to fill in the
# fault-injection tests).
with tempfile.TemporaryDirectory() as probe:
    if shutil.which("unshare") and subprocess.run(
            ["unshare", "-m", "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", probe],
            capture_output=True).returncode == 0:
        config.available_features.add("mount-namespaces")

# The cuda target (docs/cuda.md, ../shared/reference/gpu.md §5): `nvptx` when
# LLVM has the NVPTX backend; `cuda-toolkit` when ptxas runs and the CUDA
# runtime was built (the CUDA toolkit and NCCL found by CMake): compile- and
# link-only tests; `cuda-device` when a GPU answers the probe: execution
# tests, UNSUPPORTED elsewhere (CI machines have no GPU).
llc = os.path.join(config.llvm_tools_dir, "llc")
if os.path.exists(llc) and "nvptx64" in subprocess.run(
        [llc, "--version"], capture_output=True, text=True).stdout:
    config.available_features.add("nvptx")
ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
if getattr(config, "autodist_have_cuda_runtime", "OFF") == "ON" and \
        os.path.exists(ptxas) and subprocess.run(
            [ptxas, "--version"], capture_output=True).returncode == 0:
    config.available_features.add("cuda-toolkit")
    if shutil.which("nvidia-smi") and subprocess.run(
            ["nvidia-smi", "-L"], capture_output=True).returncode == 0:
        config.available_features.add("cuda-device")
    config.environment["PATH"] = os.pathsep.join(
        [config.environment["PATH"], os.path.dirname(ptxas)])

# The runtime has the oneDNN convolutions (libdnnl-dev found by CMake).
if getattr(config, "autodist_have_onednn", "OFF") == "ON":
    config.available_features.add("onednn")

# A sanitized build (-DAUTODIST_SANITIZE=address,undefined, README
# "Sanitizers"): the tools, the runtime tests and every compiled model are
# instrumented, and any report fails its test with a stack trace. Leaks are
# detected everywhere except those listed in test/lsan.supp (with why).
if getattr(config, "autodist_sanitize", ""):
    config.available_features.add("sanitizer")
    config.environment["ASAN_OPTIONS"] = ":".join([
        "halt_on_error=1", "detect_leaks=1", "detect_stack_use_after_return=1",
        "strict_string_checks=1", "check_initialization_order=1",
        # Leak stacks through the uninstrumented libraries (no frame
        # pointers) reach the frames test/lsan.supp names.
        "fast_unwind_on_malloc=0",
        # LLVM's BumpPtrAllocator poisons a new slab when our instrumented
        # code allocates it (inlined from the headers), but the
        # uninstrumented libMLIR then hands out that slab's memory without
        # unpoisoning it (MLIR's attribute uniquer): a false
        # use-after-poison. Nothing of ours poisons memory by hand.
        "allow_user_poisoning=0"])
    config.environment["LSAN_OPTIONS"] = "suppressions=" + os.path.join(
        config.autodist_src_root, "test", "lsan.supp")
    config.environment["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1"
    # Memory bounds in absolute MiB (external-data-memory.test) allow for
    # ASan's quarantine (256 MiB) and shadow memory on top.
    config.environment["AUTODIST_SANITIZER_RSS_MIB"] = "512"
