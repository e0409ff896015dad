"""Writing files whole or not at all.

Every file ccsim writes (scenario files, results, reports, figures, sweep records) goes to a
temporary name beside its destination and is renamed over it, so an interrupted run never
leaves a half-written file. This module has no ccsim imports, so any module can use it.
"""

from __future__ import annotations

import os
import tempfile


def _read_umask() -> int:
    mask = os.umask(0)  # the only way to read it sets it; done once, at import
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def atomic_write(path: str | os.PathLike, write) -> None:
    """Write a file whole or not at all: ``write(tmp)`` fills a temporary file beside
    ``path``, which then replaces it. The file gets the mode a plain write would give (an
    existing file's own, else 0666 less the umask), not the temporary file's 0600."""
    given = os.fspath(path)
    # Write through a symbolic link to its target (replacing the link would leave the target
    # stale), and never replace a device, pipe or socket with a regular file.
    path = os.path.realpath(given)
    if os.path.isdir(path):
        raise IsADirectoryError(f"{given}: is a directory; expected a file path")
    if os.path.exists(path) and not os.path.isfile(path):
        raise OSError(f"{given}: is not a regular file (a device, pipe or socket); expected a file path")
    d = os.path.dirname(path)
    if not os.path.isdir(d):
        raise FileNotFoundError(f"{given}: no directory {d} to write into")
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=os.path.basename(path))
    os.close(fd)
    try:
        write(tmp)
        try:
            mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o666 & ~_UMASK
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """:func:`atomic_write` of UTF-8 text."""

    def write(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)

    atomic_write(path, write)


def atomic_savefig(fig, path: str | os.PathLike, **kwargs) -> None:
    """:func:`atomic_write` of a matplotlib figure, in the format the destination's suffix
    names (the temporary file's own name must not decide it)."""
    fmt = os.path.splitext(os.fspath(path))[1].lstrip(".").lower() or "png"
    atomic_write(path, lambda tmp: fig.savefig(tmp, format=fmt, **kwargs))
