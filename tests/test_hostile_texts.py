"""A model that answers with a one-megabyte word: the answer is stored whole and every
study that reads texts analyses it in bounded memory (the tokenizer drops tokens longer
than ``MAX_WORD_CHARS`` once, for every statistic)."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from gasp.store import RunStore
from gasp.text import MAX_WORD_CHARS, count_words, tokenize

HUGE = 1_000_000
#: The virtual memory the analysing process may map; a vocabulary array as wide as the
#: hostile word (the failure this guards against) asks for more than a terabyte.
ADDRESS_SPACE = 3 * 2**30
#: The resident memory the analysis must stay under.
PEAK = 2 * 2**30

SCRIPT = """
import sys
from pathlib import Path
import numpy as np
from gasp.backends import MockBackend, persona_text, stable_int
from gasp.cli import main
from gasp.runner import RunOptions, generate
from gasp.studies import get_study_type

BUILDS = {
    "more-of-the-same": {"occupations": "nurse,pilot,carpenter", "n": 4},
    "marked-personas": {"n": 2},
    "narratives": {"occupations": "nurse,roofer", "n": 3},
    "pronoun-pairs": {"occupations": "doctor,nurse,pilot,baker", "pairs": 3, "n": 2},
}
name, out, size = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
first = []

def respond(request):
    text = persona_text(request.prompt, np.random.default_rng(stable_int(request.key)))
    if not first:
        first.append(request.key)
        text = f"{text} {'x' * size} {text}"
    return text

study = get_study_type(name)
store = out / "run.sqlite"
summary = generate(study.build(name, BUILDS[name]), MockBackend(respond), store,
                   RunOptions(progress=False))
assert summary.complete
options = {} if name == "marked-personas" else {"bootstrap": 50, "seed": 1}
study.analyze(store, out / "results", options)
if name == "more-of-the-same":  # the same texts as a table, through the command line
    for args in (["export", str(store), str(out / "t.csv")],
                 ["analyze", str(out / "t.csv"), "--study", name, "--out", str(out / "table")]):
        sys.argv = ["gasp", *args]
        try:
            main()
        except SystemExit as exc:
            assert not exc.code, args
# this process's own peak (VmHWM starts again at exec; ru_maxrss keeps the peak of the
# forked copy of the test process it was before, as large as that process had grown)
with open("/proc/self/status") as status:
    print("PEAK_KB", next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")))
"""


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def test_words_longer_than_the_cap_are_dropped_by_the_one_tokenizer() -> None:
    text = f"A nurse {'y' * (MAX_WORD_CHARS + 1)} and {'z' * MAX_WORD_CHARS} x-{'q' * 60}."
    assert tokenize(text) == ["a", "nurse", "and", "z" * MAX_WORD_CHARS]
    counts = count_words([text, "b" * HUGE, "nurse"])
    assert counts.vocabulary.tolist() == ["a", "and", "nurse", "z" * MAX_WORD_CHARS]
    assert counts.matrix.toarray().tolist() == [[1, 1, 1, 1], [0, 0, 0, 0], [0, 0, 1, 0]]


@pytest.mark.parametrize(
    "study", ["more-of-the-same", "marked-personas", "narratives", "pronoun-pairs"]
)
def test_an_answer_holding_a_megabyte_word_is_stored_and_analysed_in_bounded_memory(
    tmp_path: Path, study: str
) -> None:
    script = tmp_path / "hostile.py"
    script.write_text(SCRIPT)
    result = subprocess.run(
        [sys.executable, str(script), study, str(tmp_path), str(HUGE)],
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=_limit,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    peak_kb = int(result.stdout.split("PEAK_KB")[1].split()[0])
    assert peak_kb * 1024 < PEAK
    with RunStore.open(tmp_path / "run.sqlite") as store:
        texts = store.samples()["text"]
    assert texts.str.len().max() > HUGE  # stored whole, not cut
    assert (tmp_path / "results").is_dir()
    if study == "more-of-the-same":
        assert len(pd.read_csv(tmp_path / "t.csv")) == len(texts)
        assert (tmp_path / "table").is_dir()
