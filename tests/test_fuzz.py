"""A short fuzzing pass over the scenario input (tests/fuzz_scenarios.py; `make fuzz` runs the
long one): mutated project scenarios as dicts, TOML text and files, each answered by a
ScenarioError or a run that ends, and nothing else."""

import fuzz_scenarios


def test_mutated_scenarios_get_an_answer(tmp_path):
    tally = fuzz_scenarios.fuzz(seconds=45, seed=20261125, keep=tmp_path / "failures")
    failures = "\n".join(msg for _, msg in tally["failures"][:5])
    assert not tally["failures"], f"{len(tally['failures'])} of {tally['inputs']} inputs failed:\n{failures}"
    # The pass exercised both outcomes, not only refusals.
    assert tally["error"] > 100 and tally["ran"] > 100, tally
