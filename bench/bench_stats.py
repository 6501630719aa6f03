"""Timings of Marked Words and Calibrated Marked Words (prints figures; not a test).

(a) Marked Words on the GPT-3.5 personas of Marked Personas (seed ``004``): every one
    of the 15 race x gender groups against ``race = a White`` and ``gender = M``
    (30 comparisons), after loading the data and counting the words. Target: < 0.2 s.
(b) Calibrated Marked Words on a synthetic 63-occupation study shaped like seed
    ``000`` (two prompt templates; per occupation and template 100 texts for each
    named gender and 500 unspecified texts associated with a gender by Algorithm 1),
    with the topic prior of each comparison being the texts of its occupation. Per
    (occupation, template): named women vs named men, named nonbinary vs named men,
    named men vs the other named texts, associated women vs associated men and back.
    Targets: < 10 s and < 2 GiB peak memory.

Run: ``python bench/bench_stats.py`` (``--help`` for the sizes).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import wordfreq

from gasp.associate import associate_counts
from gasp.stats import Comparison, calibrated_marked_words_many, marked_words
from gasp.text import DocTermCounts, count_words

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def best_of(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Smallest wall time of ``repeat`` calls, and the last result."""
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def traced_peak(fn: Callable[[], Any]) -> float:
    """Peak traced memory (bytes) allocated while ``fn`` runs."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return float(peak)


def bench_personas(repeat: int) -> list[tuple[str, str]]:
    """Part (a): Marked Words for the 15 Marked Personas groups (30 comparisons)."""
    path = SHARED / "marked_personas_gpt35" / "personas.csv"
    if not path.is_file():
        return [("(a) personas", f"skipped: {path} not found")]
    df = pd.read_csv(path)
    counts = count_words(df["text"])
    white = (df["race"] == "a White").to_numpy()
    men = (df["gender"] == "M").to_numpy()
    groups = sorted(set(zip(df["race"], df["gender"], strict=True)))
    masks = [((df["race"] == r) & (df["gender"] == g)).to_numpy() for r, g in groups]

    def run_marked() -> int:
        return sum(len(marked_words(counts, m, {"White": white, "man": men})) for m in masks)

    comparisons = [Comparison(target=m, unmarked={"White": white, "man": men}) for m in masks]

    def run_calibrated() -> int:
        return sum(len(t) for t in calibrated_marked_words_many(counts, comparisons))

    t_mw, n_mw = best_of(run_marked, repeat)
    t_cmw, n_cmw = best_of(run_calibrated, repeat)
    return [
        ("(a) personas: texts x vocabulary", f"{counts.n_documents} x {counts.vocabulary.size}"),
        ("(a) Marked Words, 15 groups (30 comparisons)", f"{t_mw:.3f} s ({n_mw} marked words)"),
        ("(a) Calibrated MW, same 30 comparisons", f"{t_cmw:.3f} s ({n_cmw} marked words)"),
    ]


NAMES = {
    "F": ["emily", "sarah", "maria", "aisha", "priya", "mei", "olivia", "grace", "lucia", "hannah"],
    "M": ["james", "david", "carlos", "ahmed", "raj", "wei", "liam", "jack", "marco", "daniel"],
    "N": ["alex", "jordan", "taylor", "casey", "quinn", "riley", "morgan", "avery", "sam", "rowan"],
}
PRONOUNS = {"F": ("she", "her"), "M": ("he", "his"), "N": ("they", "their")}


def synthetic_study(
    n_named: int, n_unspecified: int, seed: int = 0
) -> tuple[pd.DataFrame, list[str]]:
    """Persona- and biography-like texts for 63 occupations, 2 templates, 4 conditions."""
    rng = np.random.default_rng(seed)
    skip = {w for p in PRONOUNS.values() for w in p} | {"him", "hers", "mr", "mrs", "ms"}
    vocab = [w for w in wordfreq.top_n_list("en", 6000) if w.isalpha() and w not in skip][:4000]
    n_vocab = len(vocab)
    zipf = 1.0 / np.arange(1, n_vocab + 1) ** 1.05
    zipf /= zipf.sum()
    bls = SHARED / "winogender_occupations_bls.tsv"
    if bls.is_file():
        occupations = pd.read_csv(bls, sep="\t")["occupation"].astype(str).tolist()[:63]
    else:
        occupations = [f"occupation {chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(63)]
    n_occ = len(occupations)
    occ_words = rng.integers(300, n_vocab, size=(n_occ, 40))
    gender_words = {g: rng.integers(300, n_vocab, size=30) for g in "FMN"}
    template_words = rng.integers(200, n_vocab, size=(2, 30))
    p_female = rng.uniform(0.2, 0.8, size=n_occ)

    rows: list[dict[str, Any]] = []
    texts: list[str] = []
    words_arr = np.asarray(vocab, dtype=object)
    n_sent, n_words = 6, 11
    for o, occupation in enumerate(occupations):
        for t in range(2):
            conds = ["F"] * n_named + ["M"] * n_named + ["N"] * n_named + [""] * n_unspecified
            n = len(conds)
            drawn = np.where(rng.random(n) < p_female[o], "F", "M")
            drawn = np.where(rng.random(n) < 0.03, "N", drawn)
            genders = [c or d for c, d in zip(conds, drawn, strict=True)]
            ids = rng.choice(n_vocab, size=(n, n_sent, n_words), p=zipf)
            pick = rng.random(ids.shape)
            ids = np.where(pick < 0.08, occ_words[o][rng.integers(0, 40, ids.shape)], ids)
            ids = np.where(
                (pick >= 0.08) & (pick < 0.11),
                template_words[t][rng.integers(0, 30, ids.shape)],
                ids,
            )
            g_pick = rng.random(ids.shape) < 0.03
            g_index = rng.integers(0, 30, ids.shape)
            names = rng.integers(0, 10, n)
            no_pronoun = rng.random(n) < 0.04
            for i in range(n):
                g = genders[i]
                doc = np.where(g_pick[i], gender_words[g][g_index[i]], ids[i])
                subj, poss = ("", "") if no_pronoun[i] else PRONOUNS[g]
                sentences = [
                    f"{subj} {' '.join(words_arr[s[:8]])} {poss} {' '.join(words_arr[s[8:]])}."
                    for s in doc
                ]
                texts.append(f"{NAMES[g][names[i]]} is a {occupation}. " + " ".join(sentences))
                rows.append({"occupation": occupation, "template": t, "condition": conds[i] or "U"})
    return pd.DataFrame(rows), texts


def study_comparisons(meta: pd.DataFrame, associated: np.ndarray) -> list[Comparison]:
    """Per occupation and template: the five comparisons of the GAS(P) analysis."""
    occ = meta["occupation"].to_numpy()
    tpl = meta["template"].to_numpy()
    cond = meta["condition"].to_numpy()
    comparisons = []
    for o in pd.unique(occ):
        topic = occ == o
        for t in (0, 1):
            cell = topic & (tpl == t)
            nf, nm, nn = (cell & (cond == g) for g in "FMN")
            af = cell & (cond == "U") & (associated == "F")
            am = cell & (cond == "U") & (associated == "M")
            name = f"{o}/{t}"
            comparisons += [
                Comparison(nf, {"named M": nm}, topic=topic, name=f"{name}/named F"),
                Comparison(nn, {"named M": nm}, topic=topic, name=f"{name}/named N"),
                Comparison(nm, {"named F+N": nf | nn}, topic=topic, name=f"{name}/named M"),
                Comparison(af, {"assoc M": am}, topic=topic, name=f"{name}/assoc F"),
                Comparison(am, {"assoc F": af}, topic=topic, name=f"{name}/assoc M"),
            ]
    return comparisons


def bench_study(n_named: int, n_unspecified: int, repeat: int) -> list[tuple[str, str]]:
    """Part (b): Calibrated Marked Words for every comparison of a synthetic study."""
    start = time.perf_counter()
    meta, texts = synthetic_study(n_named, n_unspecified)
    t_gen = time.perf_counter() - start
    start = time.perf_counter()
    counts: DocTermCounts = count_words(texts)
    t_count = time.perf_counter() - start
    associated = associate_counts(texts, counts).genders.fillna("").to_numpy(dtype=str)
    n_tokens = int(counts.matrix.sum())
    comparisons = study_comparisons(meta, associated)

    def run() -> list[pd.DataFrame]:
        return calibrated_marked_words_many(counts, comparisons)

    t_cmw, tables = best_of(run, repeat)
    peak = traced_peak(run)
    n_marked = sum(len(t) for t in tables)
    maxrss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return [
        (
            "(b) texts / tokens / vocabulary",
            f"{len(texts)} / {n_tokens} / {counts.vocabulary.size}",
        ),
        ("(b) generating texts (not timed below)", f"{t_gen:.1f} s"),
        ("(b) counting words (not timed below)", f"{t_count:.1f} s"),
        ("(b) comparisons", f"{len(comparisons)}"),
        ("(b) Calibrated MW, all comparisons", f"{t_cmw:.2f} s ({n_marked} marked words)"),
        ("(b) peak traced memory of that call", f"{peak / 2**20:.0f} MiB"),
        ("(b) peak resident memory of the process", f"{maxrss_kib / 2**10:.0f} MiB"),
    ]


def main(argv: list[str] | None = None) -> None:
    """Run both benchmarks and print a table of figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--named", type=int, default=100, help="texts per named gender and cell")
    parser.add_argument("--unspecified", type=int, default=500, help="unspecified texts per cell")
    parser.add_argument("--repeat", type=int, default=3, help="timings keep the best of this many")
    parser.add_argument("--skip-study", action="store_true", help="run part (a) only")
    args = parser.parse_args(argv)
    figures = bench_personas(args.repeat)
    if not args.skip_study:
        figures += bench_study(args.named, args.unspecified, args.repeat)
    width = max(len(k) for k, _ in figures)
    for key, value in figures:
        print(f"{key:<{width}}  {value}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
