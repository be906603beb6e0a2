"""The output folder of a test-time compile (shaders/triton/build.py, shaders/numba/build.py),
keyed by what it was made from, so that a second run with nothing changed compiles nothing."""

import pathlib
import shutil
import tempfile


def build_once(root, key, compile_into):
    """Returns root/key, made by compile_into(folder) into a fresh folder unless it exists.

    The folder is renamed into place only once complete, so a run cut short leaves nothing
    that a later run would read; builds of other keys are removed, as they are never read
    again.
    """
    root = pathlib.Path(root)
    dest = root / key
    if dest.is_dir():
        return dest
    root.mkdir(parents=True, exist_ok=True)
    tmp = pathlib.Path(tempfile.mkdtemp(dir=root, prefix="tmp-"))
    try:
        compile_into(tmp)
        try:
            tmp.rename(dest)
        except OSError:
            # Another run finished first with the same sources.
            shutil.rmtree(tmp)
        for old in root.iterdir():
            if old != dest and old.is_dir() and not old.name.startswith("tmp-"):
                shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return dest
