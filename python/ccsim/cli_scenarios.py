"""``ccsim scenarios``: the scenario files ccsim ships, listed, located and copied out to edit.

    ccsim scenarios                      the folders (examples and one per thesis) and where they are
    ccsim scenarios FOLDER               its files, each with the description it carries
    ccsim scenarios FOLDER --path        the folder's installed path only (for scripts)
    ccsim scenarios FOLDER --copy DIR    copy its files into DIR (never over a file already there)

The shipped files also run by their relative paths from any directory
(``ccsim run scenarios/examples/dumbbell.toml``); this command is how a user finds them.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from ._cli_common import _err, _path, _text


def shipped_root() -> Path:
    return Path(__file__).parent / "scenarios"


def shipped_folders() -> list[str]:
    return sorted(p.name for p in shipped_root().iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))


def folder_of(name: str) -> Path | None:
    """The shipped folder a user names: ``examples``, ``scenarios/examples`` or ``examples/``."""
    parts = Path(name).parts
    if parts and parts[0] == "scenarios":
        parts = parts[1:]
    if len(parts) != 1 or parts[0] not in shipped_folders():
        return None
    return shipped_root() / parts[0]


def scenario_files(given: str) -> list[str]:
    """The files ``ccsim validate`` checks for one argument: the file itself, or every .toml of
    a folder, here or among the shipped ones (``scenarios/examples``: a shell glob of it
    expands to nothing outside a checkout)."""
    if Path(given).is_dir():
        found = [str(p) for p in sorted(Path(given).glob("*.toml"))]
        if not found:
            raise ValueError(f"{given}: a folder with no .toml file in it (subfolders are not searched); "
                             f"expected a scenario file or a folder of them")
        return found
    shipped = None if Path(given).exists() else folder_of(given)
    if shipped is not None:
        return [str(Path(given) / p.name) for p in sorted(shipped.glob("*.toml"))]
    return [given]


def _folder_title(name: str) -> str:
    if name == "examples":
        return "examples of single mechanisms (the README's tour)"
    try:
        from .experiments.kit.registry import get_thesis

        return f"`ccsim reproduce {name}`: {get_thesis(name).title}"
    except (ValueError, ImportError):
        return ""


def _description(path: Path) -> str:
    """A scenario file's ``description`` (its top-level key); empty if it has none."""
    import tomllib

    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError):
        return ""
    d = data.get("description", "")
    return d if isinstance(d, str) else ""


def _copy(folder: Path, dest: str) -> int:
    from ._files import atomic_write

    out = Path(dest)
    if out.exists() and not out.is_dir():
        return _err(f"--copy {dest}: is a file; expected a directory to copy the scenario files into")
    root = shipped_root().resolve()
    if out.resolve() == root or root in out.resolve().parents:
        return _err(f"--copy {dest}: is inside the installed package ({root}); expected a directory of your own")
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in (".toml", ".md"))
    there = [p.name for p in files if (out / p.name).exists()]
    if there:
        more = f" and {len(there) - 3} more" if len(there) > 3 else ""
        return _err(f"--copy {dest}: would overwrite {', '.join(there[:3])}{more}; expected a directory without "
                    f"them (ccsim never replaces a file you may have edited)")
    try:
        out.mkdir(parents=True, exist_ok=True)
        for p in files:
            atomic_write(out / p.name, lambda tmp, src=p: shutil.copyfile(src, tmp))
    except OSError as e:
        return _err(f"--copy {dest}: cannot write there ({e.strerror or e})")
    scenarios = [p for p in files if p.suffix == ".toml"]
    readme = " and its README" if len(files) > len(scenarios) else ""
    print(f"copied {len(scenarios)} scenario files{readme} from {folder} to {out}/ (edit them, then: ccsim run "
          f"{out / scenarios[0].name})" if scenarios else f"{folder} has no scenario files to copy")
    return 0


def cmd_scenarios(a) -> int:
    from rich.console import Console
    from rich.table import Table

    con = Console() if sys.stdout.isatty() else Console(width=150)
    root = shipped_root()
    if a.folder is None:
        if a.path:
            print(root)
            return 0
        if a.copy:
            return _err("--copy: name the folder to copy, e.g. ccsim scenarios examples --copy my-scenarios")
        t = Table(title=f"scenario files shipped with ccsim, in {_text(root)}")
        for col in ("folder", "files", "what"):
            t.add_column(col, justify="right" if col == "files" else "left")
        for name in shipped_folders():
            n = len(list((root / name).glob("*.toml")))
            t.add_row(name, str(n), _text(_folder_title(name)))
        con.print(t)
        con.print("`ccsim scenarios FOLDER` lists a folder's files; `ccsim run scenarios/FOLDER/FILE` runs one from "
                  "any directory; `--copy DIR` copies a folder's files out to edit", markup=False)
        return 0
    folder = folder_of(a.folder)
    if folder is None:
        return _err(f"scenarios: no shipped folder {a.folder!r}; expected one of: {', '.join(shipped_folders())}")
    if a.path:
        print(folder)
        return 0
    if a.copy:
        return _copy(folder, a.copy)
    t = Table(title=f"scenarios/{folder.name}/ ({_text(folder)})")
    t.add_column("file")
    t.add_column("description")
    for p in sorted(folder.glob("*.toml")):
        t.add_row(p.name, _text(_description(p)))
    con.print(t)
    return 0


def add_command(sub) -> None:
    s = sub.add_parser("scenarios", help="list the scenario files ccsim ships, show where they are, or copy "
                                         "them out to edit",
                       description="Without FOLDER: the shipped folders (examples and one per thesis). With it: "
                                   "its files and their descriptions. Shipped files run by their relative paths "
                                   "from any directory, e.g. ccsim run scenarios/examples/dumbbell.toml.")
    s.add_argument("folder", nargs="?", metavar="FOLDER", help="a shipped folder, e.g. examples or keshav91")
    only = s.add_mutually_exclusive_group()
    only.add_argument("--path", action="store_true", help="print the folder's installed path and nothing else")
    only.add_argument("--copy", type=_path, metavar="DIR", help="copy the folder's files into DIR (created if needed; a file "
                                                 "already there is never replaced)")
    s.set_defaults(func=cmd_scenarios)
