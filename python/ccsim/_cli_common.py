"""What the ``ccsim`` subcommands share: argument types, error and output-directory checks,
and the results table."""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path


def _seed(text: str) -> int:
    """argparse type of --seed: an integer in the engine's range (argparse exits 2 otherwise)."""
    import argparse

    from .api import check_seed

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    try:
        return check_seed(value, "seed")
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e).removeprefix("seed: ")) from None


def _path(text: str) -> str:
    """argparse type of --out and --copy: a path, not an empty string (which would write nothing
    and say nothing)."""
    import argparse

    if not text.strip():
        raise argparse.ArgumentTypeError("expected a path, got an empty one")
    return text


def _with_file(file, err) -> str:
    """The error prefixed with the scenario file, unless it names the file already."""
    msg = str(err)
    names = {str(file), str(Path(file))}
    return msg if any(msg.startswith(n + ":") for n in names) else f"{file}: {msg}"


def _err(msg: str) -> int:
    print(f"ccsim: error: {msg}", file=sys.stderr)
    return 2


def _check_out(path: str | None, *, is_file: bool = False) -> None:
    """Fail before any simulation runs if the results could not be written there: create the
    output directory (or a file's parent) and probe it. Raises ValueError naming --out."""
    if not path:
        return
    d = Path(path).parent if is_file else Path(path)
    try:
        d.mkdir(parents=True, exist_ok=True)
        probe = d / f".ccsim-write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise ValueError(f"--out {path}: cannot write there ({e.strerror or e}); expected a writable "
                         f"{'file path' if is_file else 'directory'}") from None


def _fmt(mean: float, sd: float | None = None, digits: int = 3) -> str:
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "-"
    s = f"{mean:.{digits}f}"
    if sd is not None and not math.isnan(sd) and sd >= 0.5 * 10 ** (-digits):
        s += f" ± {sd:.{digits}f}"
    return s


def _text(value) -> str:
    """A value as table text: rich never reads a user's names as markup."""
    from rich.markup import escape

    return escape(str(value))


def _print_table(res) -> None:
    from rich.console import Console
    from rich.table import Table

    run = res.run
    t = Table(title=f"{_text(run['name'])}: seed {run['seed']}, {run['duration_s']:g} s, "
                    f"intervals of {run['interval_s']:g} s (first {run['discard']} discarded)")
    for col in ("flow", "app/cc", "goodput (pkt/s)", "delay RTT (s)", "drops (/s)", "retx (/s)", "sent", "timeouts"):
        t.add_column(col, justify="left" if col in ("flow", "app/cc") else "right")
    for _, f in res.flows.iterrows():
        t.add_row(_text(f["name"]), f"{f['app']}/{f['cc']}",
                  _fmt(f["goodput_pps"], f["goodput_pps_sd"]), _fmt(f["delay_s"], f["delay_s_sd"]),
                  _fmt(f["drop_rate"], f["drop_rate_sd"]), _fmt(f["retx_rate"], f["retx_rate_sd"]),
                  str(int(f["sent"])), str(int(f["timeouts"])))
    con = Console() if sys.stdout.isatty() else Console(width=130)
    con.print(t)
    jain = run["jain_goodput"]
    con.print(f"Jain index (goodput): {jain:.4f}" if jain == jain else "Jain index: -",
              f"   events: {run['events']:,}   wall: {run['wall_seconds']:.2f} s",
              f"   packet conservation: {'ok' if run['conserved'] else 'VIOLATED'}")
