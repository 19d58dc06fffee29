# glueprof profile's start-up hook: `glueprof profile -- python ...` puts this folder first on
# PYTHONPATH, so Python runs this file as it starts (docs/profile.md, "How the capture gets in").
# It changes nothing until the program imports torch; then, unless this process must not record
# (torchrun's launcher, a child of a recording process), it checks that the program's torch is the
# one glueprof was built against and loads glueprof's capture into the process. Any sitecustomize
# this folder hides (Debian's, a virtual environment's) runs too.
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def _run_hidden_sitecustomize():
    """Runs the sitecustomize this one shadows, if any."""
    path = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # as Python's own site.py does: say it, go on
        print(f"Error in sitecustomize ({spec.origin}); set PYTHONVERBOSE for traceback: "
              f"{type(error).__name__}: {error}", file=sys.stderr)


def _is_torchrun_launcher():
    """torchrun's own process starts the ranks; it trains nothing and records nothing."""
    argv0 = sys.argv[0] if sys.argv else ""
    name = os.path.basename(argv0)
    return name in ("torchrun",) or argv0.replace("\\", "/").endswith(
        ("torch/distributed/run.py", "torch/distributed/launch.py"))


def _refuse(message):
    prefix = os.environ.get("GLUEPROF_PROFILE_TRACE_PREFIX", "")
    try:
        with open(prefix + "refused", "w") as out:
            out.write(message + "\n")
    except OSError:
        pass
    print("glueprof: " + message, file=sys.stderr)
    sys.stderr.flush()
    os._exit(2)


def _start_capture(torch):
    if _is_torchrun_launcher() or os.environ.get("GLUEPROF_PROFILE_RECORDING_PID"):
        return
    wanted = os.environ.get("GLUEPROF_PROFILE_TORCH", "")
    if wanted and torch.__version__ != wanted:
        _refuse(f"this program runs torch {torch.__version__} ({os.path.dirname(torch.__file__)}) "
                f"but glueprof was built against torch {wanted}: run it with the Python of "
                f"glueprof's environment (scripts/torch-env.sh --python), or build glueprof "
                f"against this torch (TORCH_DIR=..., see README)")
    import ctypes
    import atexit
    library = ctypes.CDLL(os.environ["GLUEPROF_PROFILE_LIBRARY"])
    library.glueprof_inject_record_loss.argtypes = [ctypes.c_double]
    if library.glueprof_inject_start() != 0:
        return
    os.environ["GLUEPROF_PROFILE_RECORDING_PID"] = str(os.getpid())
    sys.modules["glueprof"]._library = library
    atexit.register(library.glueprof_inject_stop)


class _TorchImportWatch(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Lets `import torch` happen as always, then starts the capture."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec("torch")
        if spec is None or spec.loader is None:
            return spec
        self._loader = spec.loader
        spec.loader = self
        return spec

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        _start_capture(module)


if os.environ.get("GLUEPROF_PROFILE_TRACE_PREFIX") and os.environ.get("GLUEPROF_PROFILE_LIBRARY"):
    import glueprof  # noqa: F401  (the module glueprof.record_loss reaches the capture through)
    sys.meta_path.insert(0, _TorchImportWatch())
_run_hidden_sitecustomize()
