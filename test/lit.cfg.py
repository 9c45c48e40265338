# -*- Python -*-
import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "AUTODIST"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "runtime"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.autodist_obj_root, "test")

llvm_config.use_default_substitutions()
config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%src_root", config.autodist_src_root))
config.substitutions.append(("%python", config.python_executable))

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.autodist_tools_dir, append_path=False)
# mpirun as root, and more ranks than cores on small CI machines.
for var in ["OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"]:
    config.environment[var] = "1"
config.environment["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
for var in ["HOME", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

llvm_config.add_tool_substitutions(
    ["autodist-opt", "autodist-translate", "autodist-compile"],
    [config.autodist_tools_dir])

if shutil.which("mpirun"):
    config.available_features.add("mpi")
