"""Benchmark: every Marked Personas analysis of the 1,350 published GPT-3.5 personas.

Run ``python bench/bench_marked_personas.py [PERSONAS_CSV]`` (default
``../shared/data/marked_personas_gpt35/personas.csv``). Loading the table is not timed;
timed are each method, then all analyses together (:func:`analyze_kind`: Marked Words,
the 23 one-vs-rest SVMs, JSD top words, stereotype lexicons, resilience, VADER text and
word sentiment, after refusals are flagged) against the target of 5 s, then, apart, the
whole :func:`analyze_frame` with the report's example index of every word.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

from gasp.studies.marked_personas import (
    analyze_frame,
    analyze_kind,
    marked_personas,
    prepare,
    refusal_mask,
)
from gasp.studies.marked_personas._analysis import (
    Settings,
    _jsd,
    _lexicons,
    _marked,
    _sentiment,
    _svm,
    marked_tables,
)
from gasp.text import count_words

DEFAULT = (
    Path(__file__).resolve().parents[1].parent / "shared/data/marked_personas_gpt35/personas.csv"
)
TARGET_S = 5.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table", nargs="?", type=Path, default=DEFAULT)
    args = parser.parse_args()
    if not args.table.is_file():
        print(f"no table at {args.table}", file=sys.stderr)
        return 2
    table = pd.read_csv(args.table)
    study = marked_personas()
    settings = Settings()
    frame = prepare(table, study)
    counts = count_words(frame["text"].tolist())
    analyze_frame(table.head(60), study, {})  # warm up imports and the VADER lexicon
    rule = settings.rule()
    words = sorted(set(_marked(marked_tables(frame, counts, study, settings), rule)["word"]))
    scheme = settings.interval_scheme()
    steps = {
        "marked words": lambda: _marked(marked_tables(frame, counts, study, settings), rule),
        "svm (23 classifiers)": lambda: _svm(frame, study, settings),
        "jsd": lambda: _jsd(frame, counts, study, settings),
        "lexicons": lambda: _lexicons(frame, study, settings),
        "sentiment": lambda: _sentiment(frame, counts, words, study, scheme),
    }
    for name, step in steps.items():
        start = time.perf_counter()
        step()
        print(f"{name:>22}: {time.perf_counter() - start:6.2f} s")
    start = time.perf_counter()
    refusal_mask(frame["text"].tolist(), settings.refusal_patterns)
    analyze_kind(prepare(table, study), study, settings)
    total = time.perf_counter() - start
    print(
        f"{'all analyses':>22}: {total:6.2f} s (target < {TARGET_S:.0f} s, {len(frame)} personas)"
    )
    start = time.perf_counter()
    analyze_frame(table, study, {})
    whole = time.perf_counter() - start
    print(f"{'with example index':>22}: {whole:6.2f} s")
    return 0 if total < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
