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
    """torchrun's own process starts the ranks; it trains nothing and records nothing.

    Told from the interpreter's own command line (sys.orig_argv): `import torch` may come before
    runpy has set sys.argv[0] (python -m torch.distributed.run imports torch to find the module).
    """
    argv = list(getattr(sys, "orig_argv", None) or sys.argv)
    for i, word in enumerate(argv):
        if word == "-m" and i + 1 < len(argv):
            return argv[i + 1] in ("torch.distributed.run", "torch.distributed.launch")
        if i > 0 and not word.startswith("-"):  # the script python runs
            name = os.path.basename(word)
            return name == "torchrun" or word.replace("\\", "/").endswith(
                ("torch/distributed/run.py", "torch/distributed/launch.py"))
    return bool(argv) and os.path.basename(argv[0]) == "torchrun"


def _note(word, message):
    """Appends this process's note to glueprof's process file (ProfileProtocol.h): one write."""
    prefix = os.environ.get("GLUEPROF_PROFILE_TRACE_PREFIX", "")
    try:
        with open("/proc/self/stat") as stat:
            start = stat.read().rpartition(")")[2].split()[19]
    except (OSError, IndexError):
        start = "0"
    rank = os.environ.get("RANK", "0")
    line = f"{word} {os.getpid()} {start} {rank if rank.isdigit() else 0} " + \
        message.replace("\n", " ") + "\n"
    try:
        fd = os.open(prefix + "processes", os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
        try:
            os.write(fd, line.encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except OSError:
        pass


def _refuse(message):
    _note("refused", message)
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
    try:
        library = ctypes.CDLL(os.environ["GLUEPROF_PROFILE_LIBRARY"])
    except OSError as error:
        _note("failed", f"cannot load glueprof's capture library: {error}")
        print(f"glueprof: cannot load glueprof's capture library: {error}", file=sys.stderr)
        return
    library.glueprof_inject_record_loss.argtypes = [ctypes.c_double]
    if library.glueprof_inject_start() != 0:
        return
    os.environ["GLUEPROF_PROFILE_RECORDING_PID"] = str(os.getpid())
    sys.modules["glueprof"]._library = library
    atexit.register(library.glueprof_inject_stop)
    _record_layers(torch, library)
    # The fixes `--try` names, made before the program builds anything (their reports, registered
    # after glueprof_inject_stop, run before it at exit).
    import _glueprof_try
    _glueprof_try.apply(torch, library)


def _record_layers(torch, library):
    """Tags what each layer of a model issues with its index, and records a range around it.

    A layer is an element of an nn.ModuleList of 2+ modules met outside any layer (HF's
    `model.layers`, a GPT's `h`, a ViT's `blocks`). A global module forward pre-hook finds them: the
    first time a module runs outside any layer, its children are looked at once, and each layer
    gets its own pre- and post-forward hooks that enter and leave it. The global hook (which puts
    every module call on nn.Module's slower hooked path, about 1 us each) is removed when the first
    optimizer step ends, by when every model the step runs has run; only the layers' own hooks stay.
    """
    import ctypes
    import threading

    enter = library.glueprof_inject_layer_enter
    enter.argtypes = [ctypes.c_int, ctypes.c_char_p]
    enter.restype = None
    leave = library.glueprof_inject_layer_exit
    leave.restype = None
    module_list = torch.nn.ModuleList
    depth = threading.local()

    def layer_hooks(index, name):
        def enter_layer(module, args):
            depth.n = getattr(depth, "n", 0) + 1
            enter(index, name)

        def leave_layer(module, args, output):
            depth.n = max(getattr(depth, "n", 1) - 1, 0)
            leave()

        return enter_layer, leave_layer

    def record_moe_blocks(index, layer_module):
        """A Mixture-of-Experts block inside a layer (a module whose class names experts or MoE:
        Mixtral's SparseMoeBlock, Qwen's MoE block, DeepSeek's MoE) gets a range of its own,
        "MoE block: CLASS", in its layer: the advisor tells its routing reads by it. The
        outermost such module only."""
        blocks = []
        for sub in layer_module.modules():
            kind = type(sub).__name__.lower()
            if sub is layer_module or not ("moe" in kind or "experts" in kind):
                continue
            if any(sub in set(block.modules()) for block in blocks):
                continue
            blocks.append(sub)
            block_enter, block_leave = layer_hooks(index, ("MoE block: " +
                                                           type(sub).__name__).encode())
            sub.register_forward_pre_hook(block_enter)
            sub.register_forward_hook(block_leave, always_call=True)

    def discover(module, args):
        state = module.__dict__
        if "_glueprof_seen" in state or getattr(depth, "n", 0) > 0:
            return
        state["_glueprof_seen"] = True
        for child in module.children():
            if isinstance(child, module_list) and len(child) > 1:
                for index, layer_module in enumerate(child):
                    if "_glueprof_layer" in layer_module.__dict__:
                        continue
                    layer_module.__dict__["_glueprof_layer"] = index
                    name = ("nn.Module: " + type(layer_module).__name__).encode()
                    enter_layer, leave_layer = layer_hooks(index, name)
                    layer_module.register_forward_pre_hook(enter_layer)
                    # always_call: a forward that raises still leaves the layer.
                    layer_module.register_forward_hook(leave_layer, always_call=True)
                    record_moe_blocks(index, layer_module)

    discovery = torch.nn.modules.module.register_module_forward_pre_hook(discover)
    handles = []

    def end_discovery(optimizer, args, kwargs):
        discovery.remove()
        for handle in handles:
            handle.remove()

    optimizers = importlib.import_module("torch.optim.optimizer")
    handles.append(optimizers.register_optimizer_step_post_hook(end_discovery))


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
    import _glueprof_try
    _glueprof_try.before_torch()  # what must be in the environment before torch loads
    sys.meta_path.insert(0, _TorchImportWatch())
_run_hidden_sitecustomize()
