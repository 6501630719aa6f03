"""Benchmark: the audit's family-wise false-positive share under the null.

Run ``python bench/bench_audit_null.py`` (options: ``--replicates``, ``--level``,
``--seed``, ``--shift``). Each replicate draws, for two models with the same behaviour,
the saved per-unit tables every study's headline metrics read (OccuGender's jobs, the
pronoun pairs' answers and triples, the narratives' stories, More of the Same's
occupations, SRB cells and counts, Marked Personas' summaries), reads the metrics with
the studies' own readers, tests every difference with the audit's tests and applies
the audit's one Benjamini-Hochberg correction. It prints the share of replicates with
at least one significant difference (target: at most 0.06 at level 0.05) and, with
``--shift``, the share of replicates where a planted shift of every metric is found.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pandas as pd

from gasp.auditing import DifferenceSettings, Scorecard, compare_readings, correct
from gasp.results import AuditResults
from gasp.studies import get_study_type

JOBS = 40
PAIRS = 24
STORIES = 200
SUBJECTS = 30


def _occugender(rng: np.random.Generator, mu: np.ndarray, shift: float) -> dict:
    group = np.where(np.arange(JOBS) < JOBS // 2, "female-dominated", "male-dominated")
    bls = np.linspace(95, 5, JOBS)
    rows = []
    for task in ("explicit", "implicit"):
        # the planted model mirrors BLS (a wider F-gap and a Spearman correlation near 1)
        # and names 15 points fewer women overall
        f = mu - 15 * shift + shift * 0.4 * (bls - 50) + rng.normal(0, 4, JOBS)
        d = np.clip(rng.normal(5, 1, JOBS), 0, None)
        rows.append(
            pd.DataFrame(
                {
                    "task": task, "condition": "none", "job": [f"job{i}" for i in range(JOBS)],
                    "group": group, "bls_pct_female": bls, "F": f, "M": 100 - d - f, "D": d,
                    "coverage": np.clip(0.8 - shift * 0.1 + rng.normal(0, 0.05, JOBS), 0, 1),
                }
            )
        )  # fmt: skip
    summary = pd.DataFrame(
        {"task": ["explicit", "implicit"], "condition": "none", "gap_low": 0.0, "gap_high": 0.0}
    )
    return {"jobs": pd.concat(rows, ignore_index=True), "summary": summary}


def _pairs(rng: np.random.Generator, shift: float) -> dict:
    keys = [
        (t, p, pr, 0)
        for t in ("late", "cake")
        for p in range(PAIRS)
        for pr in ("he", "she", "they")
    ]
    answers = pd.DataFrame(keys, columns=["template", "pair_id", "pronoun", "sample_index"])
    u = rng.random(len(answers)) < 0.1 + shift * 0.15
    correct_ = ~u & (rng.random(len(answers)) < 0.7 - shift * 0.2)
    answers["answer"] = np.where(u, "U", np.where(correct_, "B", "A"))
    answers["correct"] = correct_
    triples = answers.pivot_table(
        index=["template", "pair_id", "sample_index"], columns="pronoun", values="answer",
        aggfunc="first",
    ).reset_index()  # fmt: skip
    triples["complete"] = True
    triples["binary_complete"] = True
    triples["inconsistent"] = ~(
        (triples["he"] == triples["she"]) & (triples["she"] == triples["they"])
    )
    triples["binary_inconsistent"] = triples["he"] != triples["she"]
    overall: dict[str, object] = {"template": "Overall"}
    for col in ("incorrect", "unparsed", "inconsistent", "binary_inconsistent"):
        overall |= {f"{col}_low": 0.0, f"{col}_high": 1.0}
    return {
        "pairs_answers": answers,
        "pairs_triples": triples,
        "pairs_table3": pd.DataFrame([overall]),
    }


def _narratives(rng: np.random.Generator, shift: float) -> dict:
    keys = [
        (t, f"prof{p}", s) for t in ("once", "story") for p in range(STORIES // 4) for s in range(2)
    ]
    stories = pd.DataFrame(keys, columns=["template", "profession", "sample_index"])
    # parity at shift 0; the planted model names more women and more unknown names
    stories["gender"] = rng.choice(
        ["F", "M", "U"],
        size=len(stories),
        p=[0.45 + 0.3 * shift, 0.45 - 0.45 * shift, 0.1 + 0.15 * shift],
    )
    return {"narrative_stories": stories}


def _more_of_the_same(rng: np.random.Generator, bls: np.ndarray, shift: float) -> dict:
    subjects = [f"job{i}" for i in range(SUBJECTS)]
    n = 40
    # the planted model writes 25 points more women than BLS counts in every occupation
    women = rng.binomial(n, np.clip(bls / 100 + 0.25 * shift, 0, 1))
    rep = pd.DataFrame(
        {
            "subject": subjects, "template": "all", "n_generations": n, "n_unassigned": 0,
            "pct_female": 100 * women / n, "bls_pct_female": bls,
        }
    )  # fmt: skip
    srb = pd.DataFrame(
        [(s, "all", g) for s in subjects for g in ("F", "M")],
        columns=["subject", "template", "gender"],
    )
    srb["score"] = rng.normal(0.05 + 0.05 * shift, 0.03, len(srb))
    srb["score_names_removed"] = rng.normal(0.03 + 0.05 * shift, 0.03, len(srb))
    tests = 2000
    chance = pd.DataFrame(
        {"source": ["all"], "n_tests": [tests], "expected_by_chance": [tests * 0.05],
         "marked_words": [rng.poisson(tests * (0.05 + 0.02 * shift))]}
    )  # fmt: skip
    total = 400
    capture = pd.DataFrame(
        {"template": ["all"], "n_generations": [total], "unassigned_share": [0.0],
         "n_captured": [rng.binomial(total, 0.9 - 0.1 * shift)]}
    )  # fmt: skip
    return {
        "representation": rep,
        "srb_scores": srb,
        "chance_marked_words": chance,
        "capture_rate": capture,
    }


def _marked_personas(rng: np.random.Generator, shift: float) -> dict:
    n_test = 60
    acc = rng.binomial(n_test, 0.6 + 0.2 * shift, 4) / n_test
    svm = pd.DataFrame({"accuracy": acc, "baseline": 0.5, "n_test": n_test})
    means = rng.normal(1.0 + shift, 0.1, 2)
    lex = pd.DataFrame(
        {"counting": "tokens", "lexicon": ["Black", "White"], "group": ["Black", "White"],
         "n": 50, "mean_pct": means, "se_pct": 0.1}
    )  # fmt: skip
    groups = ["race: a White", "race: a Black", "gender: M", "gender: W"]
    sentiment = pd.DataFrame(
        {
            "group": groups,
            "n": 50,
            "mean": rng.normal(0.5, 0.3 / np.sqrt(50), 4) + np.array([0, shift * 0.3, 0, 0]),
            "sd": 0.3,
        }
    )
    texts = 200
    refusals = pd.DataFrame(
        {"texts": [texts], "refusals": [rng.binomial(texts, 0.05 + 0.1 * shift)]}
    )
    return {
        "persona_svm_accuracy": svm, "persona_lexicon_rates": lex,
        "persona_sentiment": sentiment, "refusals": refusals,
    }  # fmt: skip


def _tables(rng: np.random.Generator, base: dict, shift: float) -> dict[str, dict]:
    return {
        "occugender": _occugender(rng, base["mu"], shift),
        "pronoun-pairs": _pairs(rng, shift),
        "narratives": _narratives(rng, shift),
        "more-of-the-same": _more_of_the_same(rng, base["bls"], shift),
        "marked-personas": _marked_personas(rng, shift),
    }


def replicate(seed: int, level: float, shift: float, settings: DifferenceSettings) -> Scorecard:
    """One audit of a model against a baseline from simulated saved tables."""
    rng = np.random.default_rng(seed)
    # the jobs' baseline F shares, unrelated to their BLS shares (Spearman about 0)
    mu = 50 + np.random.default_rng(12345).permutation(np.linspace(-10, 10, JOBS))
    base = {"mu": mu, "bls": np.linspace(90, 10, SUBJECTS)}
    model_tables = _tables(rng, base, shift)
    base_tables = _tables(rng, base, 0.0)
    card = Scorecard([], "base", level)
    for study, tables in model_tables.items():
        add_study(card, study, tables, base_tables[study], settings)
    correct(card)
    return card


def add_study(
    card: Scorecard,
    study: str,
    model: dict[str, pd.DataFrame],
    base: dict[str, pd.DataFrame],
    settings: DifferenceSettings,
) -> None:
    """Test every headline metric of ``study`` between two runs' saved tables (the
    model's and the baseline's), one row each on ``card`` (corrected later)."""
    for metric in get_study_type(study).headline_metrics():
        a = metric.reading(AuditResults(tables=model))
        b = metric.reading(AuditResults(tables=base))
        diff = compare_readings(metric, a, b, settings)
        card.comparison_rows.append(
            {"study": study, "metric": metric.name, "model": "model", "baseline": "base",
             "better": metric.better, "difference": diff.difference,
             "p_value": diff.p_value if np.isfinite(diff.p_value) else None}
        )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Run the replicates and print the family-wise false-positive share."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument("--level", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shift", type=float, default=0.0, help="planted shift (0 = null)")
    args = parser.parse_args(argv)
    settings = DifferenceSettings()
    start = time.perf_counter()
    any_hit = 0
    tested = 0
    found: dict[str, int] = {}
    for r in range(args.replicates):
        card = replicate(args.seed * 100_003 + r, args.level, args.shift, settings)
        hits = [c for c in card.comparison_rows if c["significant"]]
        tested = sum(c["p_value"] is not None for c in card.comparison_rows)
        any_hit += bool(hits)
        for c in hits:
            # every planted shift makes the model worse: count the right direction only
            if args.shift == 0 or c["direction"] == "worse":
                key = f"{c['study']}.{c['metric']}"
                found[key] = found.get(key, 0) + 1
    share = any_hit / args.replicates
    seconds = time.perf_counter() - start
    kind = "null" if args.shift == 0 else f"planted shift {args.shift}"
    print(f"{kind}: {args.replicates} replicates, {tested} comparisons each, level {args.level}")
    print(f"replicates with at least one significant difference: {any_hit} ({share:.3f})")
    for key, count in sorted(found.items()):
        what = "significant" if args.shift == 0 else "significantly worse"
        print(f"  {key}: {what} in {count} replicates")
    print(f"{seconds:.1f} s")
    if args.shift == 0 and share > 0.06:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
