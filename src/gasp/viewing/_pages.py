"""The index (every run and audit) and the audit page (its scorecard)."""

from __future__ import annotations

from typing import Any

from gasp.viewing._catalog import Audit, Catalog, Run
from gasp.viewing._charts import forest_figures
from gasp.viewing._html import (
    document,
    error_box,
    esc,
    interval,
    json_script,
    link,
    number,
    table,
)


def size_text(run: Run) -> str:
    """Answers and bytes of a run's store, sortable by answers."""
    mib = run.size_bytes / 2**20
    return f'<span data-sort="{run.answers}">{run.answers:,} answers · {mib:.1f} MiB</span>'


def status_cell(run: Run) -> str:
    """The status of a run; a running one with its progress (updated live by the page)."""
    text = f'<span class="status s-{esc(run.status.replace(" ", "-"))}">{esc(run.status)}</span>'
    if run.status == "running":
        shown = max(run.expected, run.answers)
        text += (
            f' <progress data-run="{esc(run.key)}" value="{run.answers}" max="{shown}"></progress>'
            f' <span class="count" data-count="{esc(run.key)}">{run.answers:,} / {shown:,}</span>'
        )
    if run.error:
        text += error_box(run.error)
    elif run.note:
        text += f'<div class="note">{esc(run.note)}</div>'
    return text


def metrics_text(rows: list[dict[str, Any]], limit: int = 4) -> str:
    """The first headline metrics as ``name value [low, high]``."""
    parts = [
        f"{esc(r.get('metric'))} {number(r.get('value'))}"
        + interval(r.get("ci_low"), r.get("ci_high"))
        for r in rows[:limit]
    ]
    more = f" (+{len(rows) - limit})" if len(rows) > limit else ""
    return "<br>".join(parts) + more


def _run_row(run: Run, catalog: Catalog) -> tuple[list[str], str]:
    audit = catalog.audits.get(run.audit or "")
    where = link(f"run-{run.key}.html", run.label)
    if audit is not None:
        where += f' <span class="in">in {link(f"audit-{audit.key}.html", audit.label)}</span>'
    cells = [
        "run",
        where,
        esc(run.study or "?"),
        esc(run.model or "?"),
        esc((run.date or "")[:19].replace("T", " ")),
        size_text(run),
        status_cell(run),
        metrics_text(run.metrics),
    ]
    search = " ".join(str(x) for x in (run.label, run.study, run.model, run.status)).lower()
    attrs = (
        f'data-kind="run" data-study="{esc(run.study or "")}" data-model="{esc(run.model or "")}"'
        f' data-status="{esc(run.status)}" data-search="{esc(search)}"'
    )
    return cells, attrs


def _audit_row(audit: Audit) -> tuple[list[str], str]:
    card = audit.card or {}
    comparisons = card.get("comparisons", [])
    called = [c for c in comparisons if c.get("direction") in ("better", "worse", "differs")]
    summary = f"{len(comparisons)} comparisons, {len(called)} significant" if card else ""
    status = (
        f'<span class="status s-{esc(audit.status.replace(" ", "-"))}">{esc(audit.status)}</span>'
    )
    if audit.error:
        status += error_box(audit.error)
    cells = [
        "audit",
        link(f"audit-{audit.key}.html", audit.label),
        esc(", ".join(audit.studies)),
        esc(", ".join(audit.models)),
        esc((audit.date or "")[:19].replace("T", " ")),
        f'<span data-sort="{len(audit.runs)}">{len(audit.runs)} runs</span>',
        status,
        esc(summary),
    ]
    search = " ".join([audit.label, *audit.studies, *audit.models, audit.status]).lower()
    attrs = (
        f'data-kind="audit" data-study="{esc(" ".join(audit.studies))}"'
        f' data-model="{esc(" ".join(audit.models))}" data-status="{esc(audit.status)}"'
        f' data-search="{esc(search)}"'
    )
    return cells, attrs


def _select(name: str, label: str, values: set[str]) -> str:
    options = "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in sorted(values))
    return (
        f'<label>{esc(label)} <select data-filter="{esc(name)}"><option value="">all</option>'
        f"{options}</select></label>"
    )


def index_page(catalog: Catalog, *, live: bool) -> str:
    """Every run and audit under the folders, newest first, with filters and search."""
    rows = [_audit_row(a) for a in sorted(catalog.audits.values(), key=lambda a: a.date or "")]
    rows += [
        _run_row(r, catalog) for r in sorted(catalog.runs.values(), key=lambda r: r.date or "")
    ]
    rows.reverse()
    studies = {r.study for r in catalog.runs.values() if r.study}
    models = {r.model for r in catalog.runs.values() if r.model}
    statuses = {r.status for r in catalog.runs.values()} | {
        a.status for a in catalog.audits.values()
    }
    controls = (
        '<div class="controls"><label>search <input type="search" data-search-box '
        'placeholder="folder, study, model"></label>'
        + _select("kind", "kind", {"run", "audit"})
        + _select("study", "study", studies)
        + _select("model", "model", models)
        + _select("status", "status", statuses)
        + " <span data-shown></span></div>"
    )
    notes = "".join(f"<li>{esc(n)}</li>" for n in catalog.notes)
    if catalog.pending:
        notes += (
            f"<li>The headline metrics of {len(catalog.pending):,} runs are being read; "
            "reload to see them.</li>"
        )
    body = (
        f"<p>{len(catalog.audits)} audits and {len(catalog.runs)} runs under "
        f"{esc(', '.join(str(r) for r in catalog.roots))}.</p>"
        + controls
        + table(
            [
                "kind",
                "folder",
                "study",
                "model",
                "date (UTC)",
                "size",
                "status",
                "headline metrics",
            ],
            [cells for cells, _ in rows],
            attrs='class="listing sortable" id="listing"',
            row_attrs=lambda i: rows[i][1],
        )
        + (f'<h2>Notes</h2><ul class="notes">{notes}</ul>' if notes else "")
    )
    return document("Runs and audits", body, live=live)


def _run_link(audit: Audit, catalog: Catalog, model: str, study: str, text: str) -> str:
    key = audit.runs.get((model, study))
    return link(f"run-{key}.html", text) if key else esc(text)


def audit_page(audit: Audit, catalog: Catalog, *, live: bool) -> str:
    """The audit's scorecard: every comparison (filterable), metrics linked to their runs,
    a forest plot per metric, and the runs with their status."""
    if audit.error or audit.card is None:
        message = audit.error or "this audit has no scorecard yet (its runs are listed below)"
        return document(
            f"Audit {audit.label}", error_box(message) + _runs_table(audit, catalog), live=live
        )
    card = audit.card
    comparisons = card.get("comparisons", [])
    baseline = card.get("baseline")
    rows, attrs = [], []
    for c in comparisons:
        study, metric, model = str(c.get("study")), str(c.get("metric")), str(c.get("model"))
        diff = number(c.get("difference"))
        rows.append(
            [
                esc(study),
                esc(metric),
                _run_link(audit, catalog, model, study, model)
                + " vs "
                + _run_link(audit, catalog, str(c.get("baseline")), study, str(c.get("baseline"))),
                esc(c.get("quantity")),
                (diff + interval(c.get("ci_low"), c.get("ci_high"))) if diff else "",
                number(c.get("q_value")),
                f'<span class="verdict v-{esc(str(c.get("direction")).replace(" ", "-"))}">'
                f"{esc(c.get('direction'))}</span>",
                esc(c.get("test")),
            ]
        )
        attrs.append(
            f'data-study="{esc(study)}" data-direction="{esc(c.get("direction"))}"'
            f' data-search="{esc((study + " " + metric + " " + model).lower())}"'
        )
    controls = (
        '<div class="controls"><label>search <input type="search" data-search-box></label>'
        + _select("study", "study", {str(c.get("study")) for c in comparisons})
        + _select("direction", "verdict", {str(c.get("direction")) for c in comparisons})
        + " <span data-shown></span></div>"
    )
    figures = forest_figures(card)
    charts = "".join(
        f'<figure class="chart"><div class="plot" data-figure="forest-{i}"></div></figure>'
        + json_script(f"forest-{i}", fig)
        for i, fig in enumerate(figures)
    )
    head = (
        f"<p>Models: {esc(', '.join(audit.models))}; baseline: {esc(baseline or 'none')}; "
        f"{esc(card.get('correction', ''))} at level {number(card.get('level'))}; "
        f"{len(comparisons)} comparisons.</p>"
    )
    body = head
    if comparisons:
        body += (
            "<h2>Comparisons</h2>"
            + controls
            + table(
                [
                    "study",
                    "metric",
                    "model vs baseline",
                    "quantity",
                    "difference [95%]",
                    "q",
                    "verdict",
                    "test",
                ],
                rows,
                attrs='class="listing sortable" id="comparisons"',
                row_attrs=lambda i: attrs[i],
            )
        )
    body += "<h2>Metrics</h2>" + _metrics_table(audit, catalog)
    body += _pairs_links(audit)
    body += "<h2>Forest plots</h2>" + (charts or "<p>No metric to plot.</p>")
    body += "<h2>Runs</h2>" + _runs_table(audit, catalog)
    return document(f"Audit {audit.label}", body, charts=bool(figures), live=live)


def _metrics_table(audit: Audit, catalog: Catalog) -> str:
    card = audit.card or {}
    models = audit.models
    cells: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for row in card.get("metrics", []):
        key = (str(row.get("study")), str(row.get("metric")))
        cells.setdefault(key, {})[str(row.get("model"))] = row
    rows = []
    for (study, metric), by_model in cells.items():
        line = [esc(study), esc(metric)]
        for model in models:
            r = by_model.get(model)
            text = (
                ""
                if r is None
                else number(r.get("value")) + interval(r.get("ci_low"), r.get("ci_high"))
            )
            line.append(_run_link(audit, catalog, model, study, text) if text else "")
        line.append(link(f"releases-{study}--{metric}.html", "over time"))
        rows.append(line)
    return table(["study", "metric", *models, ""], rows, attrs='class="listing"')


def _pairs_links(audit: Audit) -> str:
    if "pronoun-pairs" not in audit.studies or len(audit.models) < 2:
        return ""
    baseline = (audit.card or {}).get("baseline")
    base = audit.models.index(baseline) if baseline in audit.models else 0
    links = [
        link(f"pairs-{audit.key}-{base}-{i}-differ-1.html", f"{audit.models[base]} and {m}")
        for i, m in enumerate(audit.models)
        if i != base
        and (audit.models[base], "pronoun-pairs") in audit.runs
        and (m, "pronoun-pairs") in audit.runs
    ]
    if not links:
        return ""
    return (
        "<h2>Pronoun pairs side by side</h2><p>Answers to the same prompts: "
        + ", ".join(links)
        + "</p>"
    )


def _runs_table(audit: Audit, catalog: Catalog) -> str:
    rows = []
    for (model, study), key in sorted(audit.runs.items()):
        run = catalog.runs[key]
        rows.append([esc(model), esc(study), link(f"run-{key}.html", run.label), status_cell(run)])
    for record in (audit.card or {}).get("runs", []):
        if record.get("status") == "not served":
            rows.append(
                [
                    esc(record.get("model")),
                    esc(record.get("study")),
                    "",
                    esc(f"not served: {record.get('reason')}"),
                ]
            )
    return table(["model", "study", "run", "status"], rows, attrs='class="listing"')


__all__ = ["audit_page", "index_page", "metrics_text", "size_text", "status_cell"]
