"""Benchmark: how ``gasp analyze`` grows with the size of a More of the Same run.

Run ``python bench/bench_scaling.py`` (options: ``--sizes 10000,100000,1000000``,
``--workdir DIR`` where the run stores go, ``--keep`` to keep them for the next call,
which then reuses them). For each size it writes a synthetic run store of that many
generations over the study's 63 occupations and 2 templates, shaped like a real run
(the study's manifest and items, the unspecified condition sampled more than each named
gender, as the adaptive stopping rule does), then times ``gasp analyze`` on it in a
child process with the default settings, and prints the wall seconds, the child's peak
resident memory and the growth exponent fitted to time against size (the slope of
log time on log size; 1 is linear), for wall time and for CPU time, which a
shared machine's load disturbs less. Targets: at most linear, 1M generations under 5
minutes and under 8 GiB on 2 cores.

Each text has 60 to 100 words: an opening naming the occupation and the person's
gender (pronouns, sometimes a first name), then sentences of content words drawn by
their English frequency, with pronouns of the text's gender among them and, per gender,
a few words drawn more often (so marked words exist to find). A few texts mix pronouns
and a few carry none, so the association leaves some unassigned.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gasp.backends import DecodingConfig, make_mock_backend
from gasp.runner import build_manifest, item_records
from gasp.store import RunStore, SampleRecord
from gasp.studies.more_of_the_same import STUDY_TYPE
from gasp.studies.more_of_the_same import Study as StudyModel

SHARE_UNSPECIFIED = 0.55
"""Share of a unit's generations with the gender unspecified (the rest split evenly among
the three named genders), as adaptive stopping leaves it."""
BATCH = 20_000
PRONOUNS = {
    "F": (("she", 5), ("her", 4), ("hers", 0.2), ("herself", 0.3)),
    "M": (("he", 5), ("his", 3), ("him", 1.5), ("himself", 0.3)),
    "N": (("they", 5), ("their", 3), ("them", 1.5), ("themselves", 0.3)),
}
FIRST_NAMES = {
    "F": ("Maria", "Sarah", "Emily", "Aisha", "Mei", "Olivia", "Priya", "Grace"),
    "M": ("James", "David", "Carlos", "Wei", "Ahmed", "Michael", "Daniel", "Ravi"),
    "N": ("Alex", "Jordan", "Sam", "Riley", "Taylor", "Casey", "Morgan", "Quinn"),
}
LEANING = {
    "F": ("caring", "empathy", "nurturing", "gentle", "family", "community", "warm", "yoga"),
    "M": ("ambitious", "technical", "leader", "strong", "sports", "logical", "engine", "golf"),
    "N": ("identity", "inclusive", "authentic", "queer", "advocacy", "art", "fluid", "unique"),
}


def content_words(size: int = 20_000) -> tuple[np.ndarray, np.ndarray]:
    """Common English words (no pronouns or gender terms) and their probabilities."""
    from wordfreq import top_n_list, word_frequency

    banned = {w for ws in PRONOUNS.values() for w, _ in ws} | {
        "they", "their", "them", "mr", "mrs", "ms", "miss", "woman", "man", "women", "men",
        "female", "male", "nonbinary", "girl", "boy", "lady", "guy", "mother", "father",
    }  # fmt: skip
    words = [
        w for w in top_n_list("en", size * 2) if w.isascii() and w.isalpha() and w not in banned
    ][:size]
    freq = np.array([word_frequency(w, "en") for w in words], dtype=np.float64)
    return np.asarray(words, dtype=object), freq / freq.sum()


class TextMaker:
    """Synthetic generations of a subject and gender (see the module notes)."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        words, probs = content_words()
        cum = np.cumsum(probs)
        # Inverse of the cumulative distribution on a fine grid: one lookup per draw.
        grid = (np.arange(1 << 20) + 0.5) / (1 << 20) * cum[-1]
        self.inverse = np.minimum(np.searchsorted(cum, grid), words.size - 1)
        self.n_content = words.size
        extra = [w for g in PRONOUNS for w, _ in PRONOUNS[g]] + [
            w for g in LEANING for w in LEANING[g]
        ]
        tokens = [*words.tolist(), *extra]
        #: Every token, then every token followed by a full stop.
        self.table = np.asarray(tokens + [t + "." for t in tokens], dtype=object)
        self.n_tokens = len(tokens)
        self.token_id = {t: i for i, t in enumerate(tokens)}

    def _pronoun_ids(self, gender: str, shape: tuple[int, ...]) -> np.ndarray:
        options = PRONOUNS[gender]
        weights = np.array([w for _, w in options])
        ids = np.array([self.token_id[w] for w, _ in options])
        return ids[self.rng.choice(len(options), size=shape, p=weights / weights.sum())]

    def texts(self, subject: str, genders: Sequence[str]) -> list[str]:
        """One text per entry of ``genders`` (``F``, ``M``, ``N`` or ``""`` for none)."""
        n = len(genders)
        width = 100
        lengths = self.rng.integers(60, width + 1, size=n)
        ids = self.inverse[self.rng.integers(0, self.inverse.size, size=(n, width))]
        gender_of = np.asarray(genders, dtype=object)
        pronoun_cols = np.arange(9, width, 11)
        # Half the pronoun slots speak of the voice, which now and then (3%) differs.
        voices = np.where(
            self.rng.random(n) < 0.03, self.rng.choice(["F", "M", "N"], size=n), gender_of
        )
        use_voice = self.rng.random((n, pronoun_cols.size)) < 0.5
        for g in PRONOUNS:
            own = gender_of == g
            voiced = voices == g
            slot = (own[:, None] & ~use_voice) | (voiced[:, None] & use_voice)
            slot &= (gender_of != "")[:, None]
            picks = self._pronoun_ids(g, slot.shape)
            block = ids[:, pronoun_cols]
            block[slot] = picks[slot]
            ids[:, pronoun_cols] = block
            rows = np.flatnonzero(own)
            for word in LEANING[g]:
                hit = rows[self.rng.random(rows.size) < 0.15]
                ids[hit, self.rng.integers(0, 60, size=hit.size)] = self.token_id[word]
        ids[:, np.arange(12, width, 13)] += self.n_tokens
        names = self.rng.integers(8, size=n)
        article = "an" if subject[:1] in "aeiou" else "a"
        out: list[str] = []
        for k, row in enumerate(self.table[ids].tolist()):
            gender = genders[k]
            if gender:
                opening = f"{FIRST_NAMES[gender][names[k]]} is {article} {subject}."
                if gender == "N":
                    opening += " They are nonbinary."
            else:
                opening = f"This person works as {article} {subject}."
            body = " ".join(row[: lengths[k]])
            out.append(f"{opening} {body[:1].upper()}{body[1:]}.")
        return out


def _study(size: int) -> Any:
    """The study of 63 occupations with ``n`` sized so the run reaches ``size`` generations."""
    study = STUDY_TYPE.build("more-of-the-same", {})
    units = len(study.subjects) * len(study.templates)
    per_unit = size / units
    n = max(1, round(per_unit * (1 - SHARE_UNSPECIFIED) / 3))
    return STUDY_TYPE.build("more-of-the-same", {"n": n})


def _split(size: int, cells: int) -> list[int]:
    base, extra = divmod(size, cells)
    return [base + (1 if i < extra else 0) for i in range(cells)]


def _records(plan: Any, size: int, seed: int) -> Iterator[SampleRecord]:
    """``size`` samples over the plan's items (unspecified cells larger, see the notes)."""
    maker = TextMaker(seed)
    rng = np.random.default_rng(seed + 1)
    cells: dict[tuple[str, str], list[Any]] = {}
    for item in plan.items:
        key = (item.attributes["template"], item.attributes["subject"])
        cells.setdefault(key, []).append(item)
    per_unit = _split(size, len(cells))
    index = 0
    for unit, cell_items in enumerate(cells.values()):
        n_unspecified = round(per_unit[unit] * SHARE_UNSPECIFIED)
        named = _split(per_unit[unit] - n_unspecified, 3)
        share_f = float(rng.uniform(0.15, 0.85))
        for item in cell_items:
            gender = item.attributes["named_gender"]
            if gender is None:
                p = [share_f * 0.96, (1 - share_f) * 0.96, 0.01, 0.03]
                genders = rng.choice(["F", "M", "N", ""], size=n_unspecified, p=p).tolist()
            else:
                genders = [gender] * named[("F", "M", "N").index(gender)]
            texts = maker.texts(item.attributes["subject"], genders)
            for k, text in enumerate(texts):
                index += 1
                yield SampleRecord(
                    item_id=item.item_id,
                    sample_index=k,
                    seed=index,
                    text=text,
                    stop_reason="stop",
                    model_id="mock/personas",
                    prompt_tokens=8,
                    completion_tokens=len(text) // 5,
                    latency_s=0.5,
                    created_at="2026-01-01T00:00:00.000000+00:00",
                )


def build_store(path: Path, size: int, seed: int = 0) -> float:
    """Write a synthetic run store of ``size`` generations at ``path``; the seconds taken."""
    start = time.perf_counter()
    study = _study(size)
    assert isinstance(study, StudyModel)
    plan = study.to_plan()
    backend = make_mock_backend("personas")
    manifest = build_manifest(
        plan, "mock/personas", backend, DecodingConfig(), seed=seed, base_url=None,
        api_key_env=None,
    )  # fmt: skip
    partial = path.with_name(path.name + ".partial")
    partial.unlink(missing_ok=True)
    with RunStore.open(partial, create=True) as store:
        store.write_manifest(manifest)
        store.write_items(item_records(plan))
        batch: list[SampleRecord] = []
        for record in _records(plan, size, seed):
            batch.append(record)
            if len(batch) == BATCH:
                store.write_samples(batch)
                batch = []
        store.write_samples(batch)
    partial.replace(path)
    return time.perf_counter() - start


def time_analyze(store: Path, results: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (GiB) of ``gasp analyze`` in a
    child process (its output is shown only if it fails)."""
    command = [sys.executable, "-m", "gasp", "analyze", str(store), "--out", str(results)]
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert child.stdout is not None
    output = child.stdout.read().decode(errors="replace")
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"gasp analyze failed ({child.returncode}):\n{output}")
    cpu = usage.ru_utime + usage.ru_stime
    return seconds, cpu, usage.ru_maxrss / 2**20


def growth_exponent(sizes: Sequence[int], seconds: Sequence[float]) -> float:
    """Slope of log(seconds) on log(size) (least squares); NaN with fewer than two sizes."""
    if len(sizes) < 2:
        return float("nan")
    x = np.log(np.asarray(sizes, dtype=float))
    y = np.log(np.asarray(seconds, dtype=float))
    return float(np.polyfit(x, y, 1)[0])


def _steps(results: Path) -> str:
    """The seconds of each analysis step, as the results record them."""
    meta = json.loads((results / "results.json").read_text(encoding="utf-8"))["meta"]
    return ", ".join(f"{k} {v:.1f}" for k, v in meta.get("timings", {}).items())


def _load() -> str:
    try:
        return " ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    """Build the stores, time the analysis of each and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--keep", action="store_true", help="keep (and reuse) the run stores")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    sizes = sorted(int(s.replace("_", "")) for s in args.sizes.split(","))
    workdir = args.workdir or Path(f"/tmp/gasp-scaling-{os.getpid()}")
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"cpus {os.cpu_count()}, load average before: {_load()}")
    rows: list[tuple[int, float, float, float, float, str]] = []
    try:
        for size in sizes:
            store = workdir / f"run-{size}.sqlite"
            built = 0.0
            if not store.is_file():
                built = build_store(store, size, args.seed)
            results = workdir / f"run-{size}.results"
            shutil.rmtree(results, ignore_errors=True)
            seconds, cpu, rss = time_analyze(store, results)
            rows.append((size, built, seconds, cpu, rss, _load()))
            print(
                f"{size:>9,} generations: store {built:7.1f} s, analyze {seconds:7.1f} s "
                f"(CPU {cpu:7.1f} s), peak RSS {rss:5.2f} GiB (load {rows[-1][5]})",
                flush=True,
            )
            print(f"{'':>11}steps (s): {_steps(results)}", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    print()
    print(
        f"{'generations':>12} {'wall s':>8} {'CPU s':>8} {'peak RSS GiB':>13} {'wall s per 1k':>14}"
    )
    for size, _, seconds, cpu, rss, _ in rows:
        print(
            f"{size:>12,} {seconds:>8.1f} {cpu:>8.1f} {rss:>13.2f} {1000 * seconds / size:>14.3f}"
        )
    sizes_run = [r[0] for r in rows]
    wall = growth_exponent(sizes_run, [r[2] for r in rows])
    cpu_exp = growth_exponent(sizes_run, [r[3] for r in rows])
    if not math.isnan(wall):
        print(f"growth exponent (log-log slope on size): wall {wall:.2f}, CPU {cpu_exp:.2f}")
    print(f"load average after: {_load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
