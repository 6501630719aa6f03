"""Benchmark: coverage of the calibrated SRB intervals in worlds built apart from the method.

Run ``python bench/bench_srb_worlds.py`` (options: ``--worlds``, ``--strengths``,
``--replicates``, ``--truth``, ``--occupations``, ``--simulations``; ``--rows FILE`` saves
every defined score of the replicate runs with its interval and truth, as CSV). Each world is drawn
by the generator below, which uses numpy alone (no code of the method, of
``gasp.testing`` or of the study's synthetic runs): word frequencies of English,
one topic per occupation, 20 women-leaning and 20 men-leaning words with word vectors
gathered around two centres (English words of wordfreq's list, with their English
rates), per-generation Dirichlet variation of the word rates.
Named women over-use the women-leaning words and named men the men-leaning ones by the
factor ``1 + 6 s`` (``s``: the stereotype strength). An associated generation is written
in the style of its associated gender with probability ``mix`` and in the other's
otherwise (a mixture: association is imperfect).

For each world and strength the bench draws ``--truth`` corpora without intervals: the
truth of a score is its mean over them (the expected score of that occupation at this
sample size). It then draws ``--replicates`` corpora, analyses each with the study's
analysis (``analyze_descriptions``, Calibrated Marked Words, SRB, calibrated intervals)
and counts how often a given interval holds the truth, and how many are withheld.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Sequence

import numpy as np
import pandas as pd
import scipy.sparse as sp
import wordfreq

from gasp.studies.more_of_the_same.analysis import AnalysisConfig, PreparedRun
from gasp.studies.more_of_the_same.analysis._descriptions import analyze_descriptions
from gasp.text import DocTermCounts

STEREO = 20


@dataclasses.dataclass(frozen=True)
class World:
    """One generating process: vocabulary, lengths, sizes, association mixture, spread."""

    name: str
    words: int
    length: int
    texts: int
    mix: float
    concentration: float


WORLDS = {
    "A": World("A", words=600, length=40, texts=60, mix=0.75, concentration=3000.0),
    "B": World("B", words=2000, length=80, texts=120, mix=0.9, concentration=1000.0),
    "C": World("C", words=1200, length=25, texts=300, mix=0.7, concentration=20000.0),
    "D": World("D", words=1000, length=120, texts=40, mix=0.6, concentration=300.0),
}


class Vectors:
    """Word vectors of a world: a plain lookup table (the embeddings protocol)."""

    def __init__(self, vocabulary: np.ndarray, matrix: np.ndarray) -> None:
        self.name = "bench-world"
        self.dim = int(matrix.shape[1])
        self._row = {str(w): i for i, w in enumerate(vocabulary)}
        self._matrix = matrix

    def lookup(self, words: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Vectors of the words found, and which were found."""
        rows = np.array([self._row.get(str(w), -1) for w in words], dtype=np.int64)
        found = rows >= 0
        return self._matrix[rows[found]], found


@dataclasses.dataclass(frozen=True)
class Lexicon:
    """A world's words (sorted), their English rates and the stereotyped rows."""

    words: np.ndarray
    rates: np.ndarray
    women: np.ndarray
    men: np.ndarray


def lexicon(world: World, rng: np.random.Generator) -> Lexicon:
    """The ``world.words`` most frequent English words of wordfreq (letters only, no
    pronoun), with 20 women-leaning and 20 men-leaning words drawn among ranks 25 to 150."""
    pronouns = {"i", "me", "my", "you", "your", "he", "him", "his", "she", "her", "hers", "we",
                "us", "our", "they", "them", "their", "it", "its", "mine", "yours"}  # fmt: skip
    ranked = [w for w in wordfreq.top_n_list("en", 4 * world.words)
              if w.isalpha() and w.isascii() and w not in pronouns][: world.words]  # fmt: skip
    rates = np.array([wordfreq.word_frequency(w, "en") for w in ranked])
    chosen = rng.choice(np.arange(25, 150), size=2 * STEREO, replace=False)
    order = np.argsort(np.array(ranked, dtype=object))
    position = np.empty_like(order)
    position[order] = np.arange(order.size)
    return Lexicon(
        words=np.array(ranked, dtype=object)[order],
        rates=(rates / rates.sum())[order],
        women=position[chosen[:STEREO]],
        men=position[chosen[STEREO:]],
    )


def vectors_of(lex: Lexicon, rng: np.random.Generator) -> Vectors:
    """Random vectors; the women-leaning and men-leaning words gather around two centres."""
    dim = 25
    matrix = rng.standard_normal((lex.words.size, dim))
    centre_f, centre_m = rng.standard_normal(dim) * 1.5, rng.standard_normal(dim) * 1.5
    matrix[lex.women] = centre_f + 0.6 * rng.standard_normal((STEREO, dim))
    matrix[lex.men] = centre_m + 0.6 * rng.standard_normal((STEREO, dim))
    return Vectors(lex.words, matrix)


def occupation_rates(lex: Lexicon, rng: np.random.Generator) -> np.ndarray:
    """One occupation's base word rates: English rates times a gamma topic weight per word."""
    rates = lex.rates * rng.gamma(2.0, 0.5, lex.rates.size)
    return rates / rates.sum()


def styles(rates: np.ndarray, lex: Lexicon, strength: float) -> dict[str, np.ndarray]:
    """The women's and men's word rates of an occupation at a stereotype strength."""
    out = {}
    for style, words in (("F", lex.women), ("M", lex.men)):
        r = rates.copy()
        r[words] *= 1.0 + 6.0 * strength
        out[style] = r / r.sum()
    return out


def texts(rates: np.ndarray, n: int, world: World, rng: np.random.Generator) -> sp.csr_matrix:
    """``n`` generations of one style: Dirichlet rates per text, Poisson lengths."""
    if n == 0:
        return sp.csr_matrix((0, rates.size), dtype=np.int64)
    per_text = rng.dirichlet(rates * world.concentration, size=n)
    lengths = np.maximum(rng.poisson(world.length, size=n), 1)
    counts = np.stack(
        [rng.multinomial(k, p / p.sum()) for k, p in zip(lengths, per_text, strict=True)]
    )
    return sp.csr_matrix(counts)


def corpus(
    world: World,
    lex: Lexicon,
    occupations: list[np.ndarray],
    strength: float,
    rng: np.random.Generator,
) -> PreparedRun:
    """A run of every occupation: associated women and men, named women and men."""
    blocks, rows = [], []
    for o, rates in enumerate(occupations):
        style = styles(rates, lex, strength)
        for group, own, other in (("AF", "F", "M"), ("AM", "M", "F")):
            own_n = int(rng.binomial(world.texts, world.mix))
            blocks += [texts(style[own], own_n, world, rng)]
            blocks += [texts(style[other], world.texts - own_n, world, rng)]
            rows += [(f"occ{o:02d}", group[1], "")] * world.texts
        for named in ("F", "M"):
            blocks.append(texts(style[named], world.texts, world, rng))
            rows += [(f"occ{o:02d}", "", named)] * world.texts
    matrix = sp.vstack(blocks).tocsr().astype(np.int64)
    samples = pd.DataFrame(rows, columns=["subject", "associated", "named"])
    samples["template"] = "t"
    return PreparedRun(
        samples=samples,
        counts=DocTermCounts(matrix=matrix, vocabulary=lex.words),
        n_invalid=pd.DataFrame(),
        bls={},
        model_id="bench-world",
    )


def scores(run: PreparedRun, config: AnalysisConfig, vectors: Vectors) -> pd.DataFrame:
    """The study's SRB rows of one run."""
    return analyze_descriptions(run, config, vectors).srb_scores


def wilson(hits: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's 95% interval of a binomial share ``hits / n`` (NaN bounds when ``n`` is 0)."""
    if n == 0:
        return float("nan"), float("nan")
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return float(centre - half), float(centre + half)


def cell(
    world: World,
    strength: float,
    args: argparse.Namespace,
    rng: np.random.Generator,
    saved: list[dict[str, object]],
) -> dict[str, object]:
    """Coverage of one world at one strength; each defined score's row is added to ``saved``."""
    lex = lexicon(world, rng)
    vectors = vectors_of(lex, rng)
    occupations = [occupation_rates(lex, rng) for _ in range(args.occupations)]
    base = AnalysisConfig(
        min_samples=5, n_bootstrap=0, n_permutations=0, n_simulations=0, seed=args.seed
    )
    truth_rows = [scores(corpus(world, lex, occupations, strength, rng), base, vectors)
                  for _ in range(args.truth)]  # fmt: skip
    by_score = pd.concat(truth_rows).groupby(["subject", "gender"])["score"]
    truth, truth_sd, truth_n = by_score.mean(), by_score.std(), by_score.count()
    config = dataclasses.replace(
        base, n_bootstrap=AnalysisConfig().n_bootstrap, n_simulations=args.simulations
    )
    hits, given, withheld, undefined, widths, factors, sim_cov = 0, 0, 0, 0, [], [], []
    spread: list[float] = []
    true_spread: list[float] = []
    start = time.process_time()
    for r in range(args.replicates):
        config = dataclasses.replace(config, seed=args.seed + r)
        rows = scores(corpus(world, lex, occupations, strength, rng), config, vectors)
        undefined += int((~np.isfinite(rows["score"])).sum())
        rows = rows[np.isfinite(rows["score"])]
        for row in rows.itertuples():
            key = (row.subject, row.gender)
            target = truth.get(key, np.nan)
            if not np.isfinite(target):
                continue
            saved.append(
                {"world": world.name, "strength": strength, "replicate": r,
                 "subject": row.subject, "gender": row.gender, "score": row.score,
                 "ci_low": row.ci_low, "ci_high": row.ci_high,
                 "interval_factor": row.interval_factor, "truth": target,
                 "truth_sd": truth_sd.get(key), "truth_runs": truth_n.get(key)}
            )  # fmt: skip
            if not np.isfinite(row.ci_low):
                withheld += 1
                continue
            given += 1
            hits += int(row.ci_low <= target <= row.ci_high)
            widths.append(row.ci_high - row.ci_low)
            spread.append((row.ci_high - row.ci_low) / (2 * row.interval_factor))
            true_spread.append(truth_sd.get((row.subject, row.gender), np.nan))
        if len(rows):
            factors.append(float(rows["interval_factor"].iloc[0]))
            sim_cov.append(float(rows["simulated_coverage"].iloc[0]))
    seconds = (time.process_time() - start) / max(args.replicates, 1)
    return {
        "world": world.name,
        "strength": strength,
        "replicates": args.replicates,
        "covers": hits / given if given else float("nan"),
        "Wilson low": wilson(hits, given)[0],
        "Wilson high": wilson(hits, given)[1],
        "intervals": given,
        "withheld": withheld / (given + withheld) if given + withheld else float("nan"),
        "undefined": undefined / (given + withheld + undefined) if given + withheld else 1.0,
        "mean width": float(np.mean(widths)) if widths else float("nan"),
        "sd ratio": float(np.nanmean(spread) / np.nanmean(true_spread)) if spread else np.nan,
        "factor": float(np.nanmean(factors)) if np.isfinite(factors).any() else float("nan"),
        "simulated coverage": (
            float(np.nanmean(sim_cov)) if np.isfinite(sim_cov).any() else float("nan")
        ),
        "CPU s per run": seconds,
    }


def main(argv: list[str] | None = None) -> int:
    """Run every world and strength and print the table; 1 if a cell misses 0.90-0.98."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", default=",".join(WORLDS))
    parser.add_argument("--strengths", default="0,0.25,0.5,1")
    parser.add_argument("--replicates", type=int, default=20)
    parser.add_argument("--truth", type=int, default=100)
    parser.add_argument("--occupations", type=int, default=10)
    parser.add_argument("--simulations", type=int, default=AnalysisConfig().n_simulations)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rows", default="", help="CSV file for every defined score's row")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    rows: list[dict[str, object]] = []
    saved: list[dict[str, object]] = []
    for name in args.worlds.split(","):
        for strength in (float(s) for s in args.strengths.split(",")):
            rows.append(cell(WORLDS[name], strength, args, rng, saved))
            if args.rows:
                pd.DataFrame(saved).to_csv(args.rows, index=False)
            print(pd.DataFrame(rows[-1:]).to_string(index=False, header=len(rows) == 1))
    table = pd.DataFrame(rows)
    print()
    print("| " + " | ".join(table.columns) + " |")
    print("|" + "---|" * len(table.columns))
    for values in table.itertuples(index=False):
        cells = [f"{v:.3f}" if isinstance(v, float) else str(v) for v in values]
        print("| " + " | ".join(cells) + " |")
    given = table[table["intervals"] > 0]
    ok = bool(((given["covers"] >= 0.90) & (given["covers"] <= 0.98)).all())
    print("every cell with intervals within 0.90-0.98:", "yes" if ok else "NO")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
