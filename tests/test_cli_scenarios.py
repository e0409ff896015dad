"""`ccsim scenarios` and folders given to `ccsim validate`: finding the shipped scenario files
from outside a checkout, where a shell glob of scenarios/examples/*.toml expands to nothing."""

import pytest


def test_scenarios_lists_every_shipped_folder_with_its_file_count(cli, tmp_path):
    import re

    from ccsim.cli_scenarios import shipped_root

    r = cli("scenarios", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    for folder in ("examples", "keshav91", "liang91", "hua02", "cui-buffers", "cui-fast"):
        n = len(list((shipped_root() / folder).glob("*.toml")))
        assert n > 0 and re.search(rf"│ {folder} +│ +{n} │", r.stdout), (folder, n, r.stdout)
    assert "ccsim reproduce liang91" in r.stdout


def test_scenarios_folder_lists_files_with_descriptions_and_path_prints_only_the_path(cli, examples, tmp_path):
    r = cli("scenarios", "scenarios/examples", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "dumbbell.toml" in r.stdout and "4 NewReno flows, 10 Mb/s bottleneck" in r.stdout
    r = cli("scenarios", "examples", "--path", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.strip() == str(examples.resolve()), r.stdout


def test_scenarios_copy_copies_a_folder_and_never_overwrites(cli, examples, tmp_path):
    dest = tmp_path / "mine"
    r = cli("scenarios", "examples", "--copy", dest, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    shipped = sorted(p.name for p in examples.glob("*.toml"))
    assert f"copied {len(shipped)} scenario files from" in r.stdout and "ccsim run " in r.stdout
    r = cli("scenarios", "cui-buffers", "--copy", tmp_path / "cb", cwd=tmp_path)   # a README beside them
    assert "scenario files and its README" in r.stdout and ".toml)" in r.stdout, r.stdout
    assert sorted(p.name for p in dest.glob("*.toml")) == shipped
    assert (dest / "dumbbell.toml").read_bytes() == (examples / "dumbbell.toml").read_bytes()
    assert not [p for p in dest.iterdir() if p.name.startswith(".tmp-")]
    r = cli("scenarios", "examples", "--copy", dest, cwd=tmp_path)
    assert r.returncode == 2 and f"and {len(shipped) - 3} more" in r.stderr, r.stderr
    # One edited file in the way: it is named, kept, and nothing else is copied.
    other = tmp_path / "other"
    other.mkdir()
    (other / "dumbbell.toml").write_text("# edited\n")
    r = cli("scenarios", "examples", "--copy", other, cwd=tmp_path)
    assert r.returncode == 2 and "would overwrite dumbbell.toml;" in r.stderr, r.stderr
    assert (other / "dumbbell.toml").read_text() == "# edited\n"
    assert [p.name for p in other.iterdir()] == ["dumbbell.toml"]


@pytest.mark.parametrize("args, words", [
    (["scenarios", "nope"], "no shipped folder 'nope'; expected one of: cui-buffers"),
    (["scenarios", "--copy", "x"], "--copy: name the folder"),
    (["scenarios", "examples", "--copy", "{file}"], "is a file; expected a directory"),
    (["scenarios", "examples", "--copy", "{shipped}/keshav91"], "is inside the installed package"),
    (["scenarios", "examples", "--copy", "{shipped}"], "is inside the installed package"),
    (["scenarios", "examples", "--path", "--copy", "x"], "not allowed with argument"),
])
def test_scenarios_bad_input_exits_2_naming_it(cli, tmp_path, args, words):
    from ccsim.cli_scenarios import shipped_root

    f = tmp_path / "f.txt"
    f.write_text("x")
    before = sorted(p.name for p in (shipped_root() / "keshav91").iterdir())
    r = cli(*[a.format(file=f, shipped=shipped_root()) for a in args], cwd=tmp_path)
    assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert sorted(p.name for p in (shipped_root() / "keshav91").iterdir()) == before


def test_validate_takes_a_folder_here_or_shipped(cli, examples, tmp_path):
    n = len(list(examples.glob("*.toml")))
    r = cli("validate", "scenarios/examples", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.count(": ok") == n, (r.stdout, r.stderr)
    assert "scenarios/examples/dumbbell.toml: ok" in r.stdout
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "a.toml").write_text((examples / "dumbbell.toml").read_text())
    (mine / "b.toml").write_text('name = "b"\n')
    r = cli("validate", mine, cwd=tmp_path)
    assert r.returncode == 2 and r.stdout.count(": ok") == 1 and "b.toml" in r.stderr, (r.stdout, r.stderr)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "sub").mkdir()
    r = cli("validate", empty, mine, cwd=tmp_path)   # the bad argument does not stop the others
    assert r.returncode == 2 and "a folder with no .toml file in it" in r.stderr, r.stderr
    assert r.stdout.count(": ok") == 1
