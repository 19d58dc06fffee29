"""The program toggles of `glueprof profile --try` and `ab --exec --try` (docs/profile.md, "Trying a
fix"): the change a finding names, made inside the profiled process before the program builds its
optimizer, loaders and model, without editing the program. GLUEPROF_TRY holds the list
(NAME[=VALUE],...), checked by glueprof before the program runs. Each toggle reports once whether it
applied and how (the run's diagnostic `program_toggles`), or why not.
"""
import atexit
import ctypes
import os
import sys


def _wanted():
    toggles = {}
    for word in os.environ.get("GLUEPROF_TRY", "").split(","):
        word = word.strip()
        if word:
            name, _, value = word.partition("=")
            toggles[name] = value
    return toggles


class _Reports:
    """What each toggle did, told to the capture once per toggle."""

    def __init__(self, library, wanted):
        self.library = library
        self.pending = dict(wanted)  # name -> why it has not applied (said at exit)
        if library is not None:
            library.glueprof_inject_note_toggle.argtypes = [ctypes.c_char_p, ctypes.c_int,
                                                            ctypes.c_char_p]
            library.glueprof_inject_note_toggle.restype = None

    def say(self, name, applied, detail):
        if name not in self.pending:
            return
        del self.pending[name]
        if self.library is not None:
            self.library.glueprof_inject_note_toggle(name.encode(), 1 if applied else 0,
                                                     detail.encode("utf-8", "replace"))

    def not_met(self, name, why):
        if name in self.pending:
            self.pending[name] = why

    def at_exit(self):
        for name, why in list(self.pending.items()):
            self.say(name, False, why or "the program never reached what it changes")


def _fused_optimizer(torch, reports):
    """Adam, AdamW and SGD built with fused=True (foreach=True where fused is refused)."""
    import threading

    inside = threading.local()  # AdamW's __init__ calls Adam's: only the outermost decides

    def build(self, params, args, kwargs, original, cls):
        if kwargs.get("fused") or kwargs.get("foreach") is False:
            reports.say("fused_optimizer", False,
                        f"{cls.__name__} was built with fused or foreach set by the program")
            return original(self, params, *args, **kwargs)
        params = list(params)
        try:
            original(self, params, *args, **dict(kwargs, fused=True))
            reports.say("fused_optimizer", True, f"{cls.__name__} built with fused=True")
        except (RuntimeError, ValueError, TypeError) as error:
            original(self, params, *args, **dict(kwargs, foreach=True))
            reports.say("fused_optimizer", True,
                        f"{cls.__name__} built with foreach=True (fused refused: {error})")
        return None

    for cls in (torch.optim.Adam, torch.optim.AdamW, torch.optim.SGD):
        def init(self, params, *args, _original=cls.__init__, _cls=cls, **kwargs):
            if getattr(inside, "depth", 0) > 0:
                return _original(self, params, *args, **kwargs)
            inside.depth = 1
            try:
                return build(self, params, args, kwargs, _original, _cls)
            finally:
                inside.depth = 0

        cls.__init__ = init
    reports.not_met("fused_optimizer", "the program built no Adam, AdamW or SGD")


def _loader(torch, reports, wanted):
    """DataLoader arguments: workers, persistent workers, pinned memory."""
    loader = torch.utils.data.DataLoader
    original = loader.__init__
    names = [n for n in ("loader_workers", "loader_persistent", "pinned_loader") if n in wanted]

    def init(self, dataset, *args, **kwargs):
        if "loader_workers" in wanted:
            workers = int(wanted["loader_workers"])
            if kwargs.get("num_workers", 0) >= workers:
                reports.say("loader_workers", False,
                            f"the DataLoader already had num_workers={kwargs.get('num_workers')}")
            else:
                kwargs["num_workers"] = workers
                reports.say("loader_workers", True, f"DataLoader built with num_workers={workers}")
        if "loader_persistent" in wanted:
            if kwargs.get("num_workers", 0) == 0:
                reports.say("loader_persistent", False, "the DataLoader has no workers to keep")
            else:
                kwargs["persistent_workers"] = True
                reports.say("loader_persistent", True, "DataLoader built with persistent_workers")
        if "pinned_loader" in wanted:
            kwargs["pin_memory"] = True
            reports.say("pinned_loader", True, "DataLoader built with pin_memory=True")
        return original(self, dataset, *args, **kwargs)

    loader.__init__ = init
    for name in names:
        reports.not_met(name, "the program built no DataLoader")


def _gpu_flags(torch, reports, wanted):
    if not torch.cuda.is_available():
        for name in ("tf32", "cudnn_benchmark"):
            if name in wanted:
                reports.say(name, False, "torch sees no CUDA device: a GPU-only toggle")
        return
    if "tf32" in wanted:
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
        reports.say("tf32", True, "matmuls and cuDNN allowed TF32")
    if "cudnn_benchmark" in wanted:
        torch.backends.cudnn.benchmark = True
        reports.say("cudnn_benchmark", True, "cudnn.benchmark = True")


def _hf_models(reports, wanted):
    """Hugging Face models built with the experts / attention implementation asked for: set on the
    model's config as the model is built (transformers reads it when the model runs)."""
    def patch(module):
        model = getattr(module, "PreTrainedModel", None)
        if model is None:
            return
        original = model.__init__

        def init(self, config, *args, **kwargs):
            if "hf_grouped_experts" in wanted and hasattr(config, "_experts_implementation"):
                before = config._experts_implementation
                config._experts_implementation = "grouped_mm"
                reports.say("hf_grouped_experts", True,
                            f"{type(self).__name__} built with experts_implementation="
                            f"grouped_mm (the program asked for {before})")
            if "hf_sdpa" in wanted and hasattr(config, "_attn_implementation"):
                before = config._attn_implementation
                try:
                    config._attn_implementation = "sdpa"
                    reports.say("hf_sdpa", True, f"{type(self).__name__} built with sdpa "
                                f"attention (the program asked for {before})")
                except (AttributeError, ValueError) as error:
                    reports.say("hf_sdpa", False, f"transformers refused sdpa: {error}")
            original(self, config, *args, **kwargs)

        model.__init__ = init

    for name in ("hf_grouped_experts", "hf_sdpa"):
        if name in wanted:
            reports.not_met(name, "the program built no Hugging Face model of that kind")
    if "transformers.modeling_utils" in sys.modules:
        patch(sys.modules["transformers.modeling_utils"])
        return
    _after_import("transformers.modeling_utils", patch)


def _after_import(name, callback):
    """Runs callback(module) once the module `name` is imported."""
    import importlib.abc
    import importlib.util

    class Watch(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, fullname, path=None, target=None):
            if fullname != name:
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(fullname)
            if spec is None:
                return None
            self.inner = spec.loader
            spec.loader = self
            return spec

        def create_module(self, spec):
            return self.inner.create_module(spec)

        def exec_module(self, module):
            self.inner.exec_module(module)
            callback(module)

    sys.meta_path.insert(0, Watch())


def before_torch():
    """Before torch is imported: what must be in the environment first."""
    wanted = _wanted()
    if "expandable_segments" in wanted:
        conf = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
        os.environ["PYTORCH_CUDA_ALLOC_CONF"] = (conf + "," if conf else "") + \
            "expandable_segments:True"


def apply(torch, library):
    """Once torch is imported, before the program builds anything: every toggle asked for."""
    wanted = _wanted()
    if not wanted:
        return
    reports = _Reports(library, wanted)
    atexit.register(reports.at_exit)
    if "fused_optimizer" in wanted:
        _fused_optimizer(torch, reports)
    if {"loader_workers", "loader_persistent", "pinned_loader"} & set(wanted):
        _loader(torch, reports, wanted)
    if {"tf32", "cudnn_benchmark"} & set(wanted):
        _gpu_flags(torch, reports, wanted)
    if {"hf_grouped_experts", "hf_sdpa"} & set(wanted):
        _hf_models(reports, wanted)
    if "expandable_segments" in wanted:
        if torch.cuda.is_available():
            reports.say("expandable_segments", True,
                        "PYTORCH_CUDA_ALLOC_CONF has expandable_segments:True")
        else:
            reports.say("expandable_segments", False,
                        "torch sees no CUDA device: a GPU-only toggle")
