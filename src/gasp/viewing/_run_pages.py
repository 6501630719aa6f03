"""A run's page and the texts behind its numbers (words, stories, jobs, pronoun pairs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gasp.errors import GaspError
from gasp.viewing._catalog import Audit, Catalog, Run
from gasp.viewing._html import (
    document,
    error_box,
    esc,
    interval,
    link,
    marked,
    number,
    pager,
    table,
)
from gasp.viewing._pages import size_text, status_cell
from gasp.viewing._texts import (
    Page,
    Text,
    job_page,
    jobs,
    pairs_page,
    significant_words,
    stories_page,
    word_page,
)

#: Protagonist genders a narratives run's stories can be filtered by.
STORY_GENDERS = ("all", "F", "M", "unknown")


def hex_of(value: str) -> str:
    """``value`` as hexadecimal UTF-8 (a file-name-safe form of any word)."""
    return value.encode("utf-8").hex()


def report_href(run: Run) -> str | None:
    """Where the run's own HTML report is served, if it has one."""
    report = run.folder / "report" / "report.html"
    if not report.is_file():
        return None
    rel = "" if run.rel == "." else f"{run.rel}/"
    return f"files/{run.root}/{rel}report/report.html"


def run_page(run: Run, catalog: Catalog, *, live: bool) -> str:
    """A run: its status and progress, headline metrics, report, and its texts."""
    facts = [
        ("study", esc(run.study or "?")),
        ("model", esc(run.model or "?")),
        ("started (UTC)", esc((run.date or "")[:19].replace("T", " "))),
        ("size", size_text(run)),
        ("status", status_cell(run)),
    ]
    audit = catalog.audits.get(run.audit or "")
    if audit is not None:
        facts.append(("audit", link(f"audit-{audit.key}.html", audit.label)))
    report = report_href(run)
    if report:
        facts.append(("report", link(report, "the run's report")))
    body = table(["", ""], [[esc(k), v] for k, v in facts], attrs='class="facts"')
    if run.metrics:
        body += "<h2>Headline metrics</h2>" + table(
            ["metric", "value [interval]", "n", "better", "unit", ""],
            [
                [
                    esc(m.get("metric")),
                    number(m.get("value")) + interval(m.get("ci_low"), m.get("ci_high")),
                    esc(m.get("n")),
                    esc(m.get("better")),
                    esc(m.get("unit")),
                    link(
                        f"releases-{m.get('study', run.study)}--{m.get('metric')}.html", "over time"
                    ),
                ]
                for m in run.metrics
            ],
            attrs='class="listing"',
        )
    body += _texts_links(run)
    return document(f"Run {run.label}", body, live=live)


def _texts_links(run: Run) -> str:
    if run.results is None or run.store is None:
        return ""
    parts = []
    words = significant_words(run.results)
    if words:
        items = " ".join(
            f"<li>{link(f'words-{run.key}-{hex_of(w)}-1.html', w)}</li>" for w in words
        )
        parts.append(f'<h2>Significant words</h2><ul class="words">{items}</ul>')
    if run.study == "narratives":
        links = ", ".join(
            link(
                f"stories-{run.key}-{g}-1.html",
                f"{g} protagonists" if g != "all" else "all stories",
            )
            for g in STORY_GENDERS
        )
        parts.append(
            f"<h2>Stories</h2><p>named_female_share and unknown_share count these: {links}</p>"
        )
    if run.study == "occugender":
        frame = jobs(run.results)
        if "job" in frame:
            names = sorted({str(j) for j in frame["job"]})
            items = " ".join(
                f"<li>{link(f'job-{run.key}-{hex_of(j)}-1.html', j)}</li>" for j in names
            )
            parts.append(f'<h2>Jobs: scored expressions</h2><ul class="words">{items}</ul>')
    return "".join(parts)


def _labels(labels: dict[str, Any]) -> str:
    return " · ".join(f"{esc(k)}: {esc(v)}" for k, v in labels.items())


def _texts(page: Page) -> str:
    if not page.rows:
        return "<p>No text on this page.</p>"
    items = []
    for text in page.rows:
        assert isinstance(text, Text)
        items.append(
            f'<li class="generation"><div class="labels">{_labels(text.labels)}</div>'
            f"{marked(text.text, text.marks)}</li>"
        )
    return f'<ol class="texts" start="{(page.number - 1) * 25 + 1}">{"".join(items)}</ol>'


def _failed(title: str, exc: GaspError, live: bool) -> str:
    return document(title, error_box(str(exc)), live=live)


def words_page(run: Run, word: str, number_: int, *, live: bool) -> str:
    """The generations of ``run`` that use ``word``, the word marked."""
    title = f"“{word}” in {run.label}"
    if run.store is None:
        return document(title, error_box("this run has no store"), live=live)
    store = run.store
    return _texts_page(run, title, f"words-{run.key}-{hex_of(word)}", live,
                       lambda: word_page(store, word, number_))  # fmt: skip


def stories_view(run: Run, gender: str, number_: int, *, live: bool) -> str:
    """A narratives run's stories, the protagonist's name marked."""
    title = f"Stories of {run.label} ({gender})"
    if run.store is None or run.results is None:
        return document(title, error_box("this run has no store or no results"), live=live)
    store, results, chosen = run.store, run.results, None if gender == "all" else gender
    return _texts_page(run, title, f"stories-{run.key}-{gender}", live,
                       lambda: stories_page(store, results, chosen, number_))  # fmt: skip


def _texts_page(run: Run, title: str, name: str, live: bool, read: Callable[[], Any]) -> str:
    """A page of texts ``read`` returns, between pagers of the pages named ``name``."""
    try:
        page = read()
    except GaspError as exc:
        return _failed(title, exc, live)
    nav = pager(name, page.number, page.has_next)
    back = f"<p>{link(f'run-{run.key}.html', 'back to the run')}</p>"
    return document(title, back + nav + _texts(page) + nav, live=live)


def job_view(run: Run, job: str, number_: int, *, live: bool) -> str:
    """An OccuGender job's scored expressions, with its row of the jobs table."""
    title = f"{job}: scored expressions in {run.label}"
    if run.store is None or run.results is None:
        return document(title, error_box("this run has no store or no results"), live=live)
    try:
        page = job_page(run.store, job, number_)
    except GaspError as exc:
        return _failed(title, exc, live)
    frame = jobs(run.results)
    summary = ""
    if "job" in frame:
        mine = frame[frame["job"].astype(str) == job]
        cols = [
            c
            for c in ("task", "condition", "M", "F", "D", "coverage", "bls_pct_female")
            if c in mine
        ]
        summary = "<h2>Shares of the job</h2>" + table(
            cols,
            [
                [number(v) if isinstance(v, float) else esc(v) for v in row]
                for row in mine[cols].itertuples(index=False)
            ],
            attrs='class="listing"',
        )
    cols = [
        "task",
        "template",
        "condition",
        "prompt",
        "expression",
        "logprob",
        "probability",
        "status",
    ]
    rows = [
        [
            f'<bdi class="text">{esc(r[c])}</bdi>'
            if c in ("prompt", "expression")
            else number(r[c])
            if c in ("logprob", "probability")
            else esc(r[c])
            for c in cols
        ]
        for r in page.rows
    ]
    nav = pager(f"job-{run.key}-{hex_of(job)}", page.number, page.has_next)
    back = f"<p>{link(f'run-{run.key}.html', 'back to the run')}</p>"
    body = (
        back + summary + "<h2>Scores</h2>" + nav + table(cols, rows, attrs='class="listing"') + nav
    )
    return document(title, body, live=live)


def pairs_view(
    audit: Audit, catalog: Catalog, left: int, right: int, which: str, number_: int, *, live: bool
) -> str:
    """Two models' answers to the same pronoun-pair prompts, side by side."""
    names = audit.models
    title = f"Pronoun pairs: {names[left]} and {names[right]}"
    runs = [
        catalog.runs.get(audit.runs.get((names[i], "pronoun-pairs"), "")) for i in (left, right)
    ]
    results = [r.results for r in runs if r is not None and r.results is not None]
    if len(results) != 2:
        return document(title, error_box("both runs need saved results"), live=live)
    try:
        page = pairs_page(results[0], results[1], number_, differ=which == "differ")
    except GaspError as exc:
        return _failed(title, exc, live)
    other = "all" if which == "differ" else "differ"
    switch = link(
        f"pairs-{audit.key}-{left}-{right}-{other}-1.html",
        "show every prompt" if which == "differ" else "show only the prompts answered differently",
    )
    rows = []
    for r in page.rows:
        rows.append(
            [
                esc(f"{r['template']} · pair {r['pair_id']} · {r['pronoun']}")
                + esc(f" · sample {r['sample_index']}")
                + f"<br>{esc(r['profession_a'])} / {esc(r['profession_b'])}"
                + f"; expected {esc(r['expected_left'])}",
                f"<b>{esc(r['answer_left'])}</b> " + marked(str(r["text_left"]), ()),
                f"<b>{esc(r['answer_right'])}</b> " + marked(str(r["text_right"]), ()),
            ]
        )
    nav = pager(f"pairs-{audit.key}-{left}-{right}-{which}", page.number, page.has_next)
    back = f"<p>{link(f'audit-{audit.key}.html', 'back to the audit')} · {switch}</p>"
    body = (
        back
        + nav
        + table(["prompt", names[left], names[right]], rows, attrs='class="listing pairs"')
        + nav
    )
    return document(title, body, live=live)


__all__ = [
    "STORY_GENDERS",
    "hex_of",
    "job_view",
    "pairs_view",
    "report_href",
    "run_page",
    "stories_view",
    "words_page",
]
