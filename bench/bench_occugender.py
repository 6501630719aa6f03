"""The default OccuGender study on the embedded model: wall time and candidates per second,
against a bare forward-pass loop over the same contexts and candidates.

The default study is 40 jobs x 2 templates x 7 debiasing conditions (None and the six
prompts of Table 5) = 560 raw-text score items, 27 candidates for each explicit item and
6 for each implicit one (9,240 candidates). Legs:

* ``load``: loading the embedded model (once);
* ``runner``: the study's items through :func:`gasp.runner.generate` into a fresh run
  store (what ``gasp run occugender -m embedded`` spends in its generate step);
* ``analysis`` and ``report``: the study's analysis of that store (1000 bootstrap
  resamples) and its report;
* ``bare``: the loop a user would write (per context, one right-padded forward pass over
  its context + candidate rows, chain-rule sum) over every ``--bare-every``-th item, its
  rate compared with the runner's; the log-probabilities of both are checked to agree.

    python bench/bench_occugender.py                 # the default study, bare loop on 1/4
    python bench/bench_occugender.py --bare-every 1  # the bare loop over every item
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import torch

from bench_scoring import bare_leg  # the plain forward-pass loop a user would write
from gasp.backends import ScoreRequest
from gasp.backends._embedded import embedded_backend
from gasp.runner import RunOptions, generate
from gasp.store import RunStore
from gasp.studies.occugender import Bootstrap, analyze_scores, build_study
from gasp.studies.occugender.report import render_report

TARGET_S = 300.0


def main() -> None:
    """Run the legs and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bare-every", type=int, default=4, help="bare loop on every k-th item")
    parser.add_argument("--batch-size", type=int, default=16, help="requests per backend call")
    parser.add_argument("--out", type=Path, default=None, help="keep the run folder here")
    args = parser.parse_args()
    plan = build_study("occugender", {}).to_plan()
    n_candidates = sum(len(i.candidates) for i in plan.items)
    folder = args.out or Path(tempfile.mkdtemp(prefix="bench-occugender-"))
    folder.mkdir(parents=True, exist_ok=True)
    store = folder / "run.sqlite"
    if store.exists():
        store.unlink()

    started = time.perf_counter()
    backend = embedded_backend({"device": "cpu", "batch_size": args.batch_size})
    backend.load()
    load_s = time.perf_counter() - started

    t0 = time.perf_counter()
    summary = generate(plan, backend, store, RunOptions(progress=False))
    runner_s = time.perf_counter() - t0
    assert summary.complete, summary

    t0 = time.perf_counter()
    with RunStore.open(store) as run:
        scores, manifest = run.scores(), run.manifest()
    results = analyze_scores(scores, manifest, Bootstrap())
    results.save(folder / "results")
    analysis_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    render_report(folder / "results", folder / "report")
    report_s = time.perf_counter() - t0

    subset = list(plan.items[:: args.bare_every])
    requests = [ScoreRequest(i.item_id, i.prompt, i.candidates) for i in subset]
    bare_candidates = sum(len(r.candidates) for r in requests)
    t0 = time.perf_counter()
    bare = bare_leg(backend, requests)
    bare_s = time.perf_counter() - t0

    stored = scores.groupby("item_id", sort=False)["logprob"].apply(list)
    worst = max(
        abs(a - float(b))
        for item, values in zip(subset, bare, strict=True)
        for a, b in zip(values, stored[item.item_id], strict=True)
    )
    total = load_s + runner_s + analysis_s + report_s
    print(f"default OccuGender study: {len(plan.items)} items, {n_candidates} candidates")
    print(f"torch threads: {torch.get_num_threads()}")
    print(f"{'leg':10s} {'seconds':>9s} {'candidates/s':>13s}")
    print(f"{'load':10s} {load_s:9.1f}")
    print(f"{'runner':10s} {runner_s:9.1f} {n_candidates / runner_s:13.1f}")
    print(f"{'analysis':10s} {analysis_s:9.1f}")
    print(f"{'report':10s} {report_s:9.1f}")
    print(f"{'bare':10s} {bare_s:9.1f} {bare_candidates / bare_s:13.1f}  ({len(requests)} items)")
    ratio = (n_candidates / runner_s) / (bare_candidates / bare_s)
    print(f"runner rate / bare rate: {ratio:.2f}; max |logprob difference|: {worst:.2e}")
    verdict = "under" if total < TARGET_S else "OVER"
    print(f"wall time load+runner+analysis+report: {total:.1f} s ({verdict} {TARGET_S:.0f} s)")


if __name__ == "__main__":
    main()
