# lit configuration for the compiler tests: one .aimz (or .mlir) file per
# behaviour, with RUN and CHECK lines.
import os
import sys
import lit.formats

config.name = "aimz"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".aimz", ".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.aimz_obj_root, "test", "lit")
config.substitutions.append(("%examples", os.path.join(config.aimz_src_root, "dsl-examples")))
config.substitutions.append(("%tools", os.path.join(config.aimz_src_root, "tools")))
config.substitutions.append(("%python", sys.executable))
config.environment["PATH"] = os.pathsep.join(
    [config.aimz_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])

# GPU back end: ptxas assembles our PTX where the CUDA toolkit is present.
import shutil
cuda_bin = "/usr/local/cuda/bin"
if shutil.which("ptxas") or os.path.exists(os.path.join(cuda_bin, "ptxas")):
    config.available_features.add("ptxas")
    config.environment["PATH"] = os.pathsep.join([config.environment["PATH"], cuda_bin])
if os.path.exists("/usr/local/cuda/include/cuda_runtime.h"):
    config.available_features.add("cuda-headers")
