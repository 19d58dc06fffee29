"""Where a Python torch install keeps what glueprof builds and runs against.

Prints one `key=value` line each (values are paths, versions or '-' when absent):
  torch_version   torch.__version__ (e.g. 2.11.0+cu130)
  torch_cuda      the CUDA torch was built with (torch.version.cuda), '-' for a CPU build
  cxx11_abi       1 when torch was built with the C++11 ABI (glueprof links the system's C++ libraries)
  cmake_prefix    torch.utils.cmake_prefix_path (holds Torch/TorchConfig.cmake)
  torch_lib       the folder of libtorch.so
  cupti_lib       the folder of the libcupti of the CUDA wheels beside torch (nvidia/cu13/lib or
                  nvidia/cuda_cupti/lib)
  nccl_root       the nvidia-nccl wheel's folder (include/nccl.h, lib/libnccl.so.2)
  nccl_version    the NCCL torch was built with (torch.cuda.nccl.version())
  sys_prefix      the environment's prefix (sys.prefix; conda keeps headers under it)
  gpus            with --gpus only: the GPUs torch sees (0 without a driver or device); asking
                  initializes CUDA, which a build has no use for
Python names these places, so no install layout is globbed. Used by cmake/GlueprofTorch.cmake and
(with --gpus) scripts/gpu-check.sh; exits 1 with a one-line reason when torch cannot be imported.
"""
import os
import sys
import warnings

warnings.filterwarnings("ignore")  # e.g. torch's 'Failed to initialize NumPy'
try:
    import torch
except Exception as error:  # noqa: BLE001 - any import failure is the answer
    print("no torch in %s: %s" % (sys.executable, error), file=sys.stderr)
    sys.exit(1)


def package_dir(*names):
    for name in names:
        try:
            module = __import__(name, fromlist=["_"])
        except Exception:  # noqa: BLE001
            continue
        for path in getattr(module, "__path__", []):
            return path
    return None


def with_file(folder, name):
    return folder if folder and os.path.exists(os.path.join(folder, name)) else "-"


cuda = torch.version.cuda or "-"
cupti = "-"
for package in ("nvidia.cu13", "nvidia.cuda_cupti", "nvidia.cu12"):
    found = package_dir(package)
    if found:
        major = cuda.split(".")[0]
        cupti = with_file(os.path.join(found, "lib"), "libcupti.so.%s" % major)
        if cupti != "-":
            break
nccl_root = package_dir("nvidia.nccl")
try:
    version = torch.cuda.nccl.version()  # (2, 28, 9); an int such as 2708 from older torch
    nccl_version = ".".join(map(str, version)) if isinstance(version, tuple) else "%d.%d.%d" % (
        version // 1000, version % 1000 // 100, version % 100)
except Exception:  # noqa: BLE001 - a CPU build has no NCCL
    nccl_version = "-"
values = {
    "torch_version": torch.__version__,
    "torch_cuda": cuda,
    "cxx11_abi": int(torch.compiled_with_cxx11_abi()),
    "cmake_prefix": torch.utils.cmake_prefix_path,
    "torch_lib": os.path.join(os.path.dirname(torch.__file__), "lib"),
    "cupti_lib": cupti,
    "nccl_root": with_file(nccl_root, "include/nccl.h"),
    "nccl_version": nccl_version,
    "sys_prefix": sys.prefix,
}
if "--gpus" in sys.argv[1:]:
    try:
        values["gpus"] = torch.cuda.device_count() if torch.cuda.is_available() else 0
    except Exception:  # noqa: BLE001 - no driver: no GPU
        values["gpus"] = 0
for key, value in values.items():
    print("%s=%s" % (key, value))
