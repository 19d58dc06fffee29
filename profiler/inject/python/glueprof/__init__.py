"""glueprof's Python side, present while `glueprof profile` or `glueprof ab --exec` runs a program.

A program tells glueprof its loss in one line, so that `ab --exec` compares the two versions'
losses step by step as it does the reference trainer's:

    try:
        from glueprof import record_loss
    except ImportError:  # not under glueprof: nothing to tell
        def record_loss(loss): pass
    ...
    record_loss(loss)   # a float or a one-element tensor; the step keeps the last one reported

Outside a recording process (a DataLoader worker, torchrun's launcher) it does nothing.
"""

_library = None  # set by sitecustomize once this process records


def record_loss(loss):
    """Stores `loss` (a float or a one-element tensor) as the current step's loss."""
    if _library is None:
        return
    if hasattr(loss, "item"):
        loss = loss.detach().item() if hasattr(loss, "detach") else loss.item()
    _library.glueprof_inject_record_loss(float(loss))


def recording():
    """Whether glueprof records this process."""
    return _library is not None
