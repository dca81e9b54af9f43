"""A bounded bad-input fuzz run (bench/fuzz.py runs 10,000): every command and input kind, a few hundred generated
inputs, no traceback, no hang, only documented exit codes, and every exit-2 message names the input."""

from __future__ import annotations

from collections import Counter

from fuzzgen import generate, run_in_process

N_INPUTS = 300


def test_generated_bad_inputs_meet_the_error_contract(tmp_path):
    problems, codes, kinds = [], Counter(), Counter()
    for i, inp in enumerate(generate(N_INPUTS, seed=12)):
        folder = tmp_path / f"f{i}"
        folder.mkdir()
        out = run_in_process(inp, folder, limit_s=60)
        codes[out.rc] += 1
        kinds[inp.kind] += 1
        why = out.problem(inp)
        if why:
            problems.append(f"{inp.kind} {inp.argv} {inp.env} -> {why}: {out.stderr.strip()[-300:]}")
    assert not problems, "\n".join(problems[:15])
    assert len(kinds) >= 10 and codes[2] > N_INPUTS // 4  # the generator reached every kind, and most inputs are bad
