"""The command every thesis's make_scenarios.py ends with: write its scenario files, or check
that the committed ones are what it writes.

    def main(argv=None) -> int:
        return scenario_files_main(argv, build_all, DEFAULT_OUT, __doc__)
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Callable, Iterator, Mapping

from ..._files import atomic_write_text


def scenario_files_main(argv: list[str] | None, build_all: Callable[[], dict[str, str]], default_out: Path,
                        doc: str | None, build_more: Callable[[], dict[str, str]] | None = None) -> int:
    """``--out DIR`` (default ``default_out``) and ``--check`` (exit 1, naming every stale or
    not-generated file, if the directory differs from what ``build_all()`` writes);
    ``--built`` writes instead the files a reproduction builds when it runs
    (``build_more()``, the thesis's ``built_scenarios``), which are not shipped."""
    ap = argparse.ArgumentParser(description=(doc or "").split("\n")[0])
    ap.add_argument("--out", type=Path, default=default_out, help="output directory (default: %(default)s)")
    ap.add_argument("--check", action="store_true", help="compare with the files on disk; write nothing")
    if build_more is not None:
        ap.add_argument("--built", action="store_true",
                        help="write the files built at run time (not shipped); give --out")
    a = ap.parse_args(argv)
    if getattr(a, "built", False):
        if a.check or a.out == default_out:
            ap.error("--built: expected --out DIR (the built files are not shipped) and no --check")
        files = build_more()
    else:
        files = build_all()
    if a.check:
        stale = [n for n, text in files.items()
                 if not (a.out / n).exists() or (a.out / n).read_text(encoding="utf-8") != text]
        extra = sorted(p.name for p in a.out.glob("*.toml") if p.name not in files) if a.out.exists() else []
        for n in stale:
            print(f"stale: {a.out / n}")
        for n in extra:
            print(f"not generated: {a.out / n}")
        return 1 if stale or extra else 0
    a.out.mkdir(parents=True, exist_ok=True)
    for n, text in files.items():
        atomic_write_text(a.out / n, text)
    print(f"wrote {len(files)} files to {a.out}")
    return 0


class LazyFiles(Mapping):
    """File name -> text, each built when first read: a thesis's ``built_scenarios`` can name
    hundreds of files while a reproduction builds only those it runs."""

    def __init__(self, makers: Mapping[str, Callable[[], str]]):
        self._makers = dict(makers)
        self._texts: dict[str, str] = {}

    def __getitem__(self, name: str) -> str:
        if name not in self._texts:
            self._texts[name] = self._makers[name]()
        return self._texts[name]

    def __contains__(self, name) -> bool:
        # Mapping's own would build the file to answer.
        return name in self._makers

    def __iter__(self) -> Iterator[str]:
        return iter(self._makers)

    def __len__(self) -> int:
        return len(self._makers)
