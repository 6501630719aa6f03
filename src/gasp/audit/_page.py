"""The scorecard page ``index.html``: one table per study (models as columns), every
cell linking to the report that backs it, a forest plot of the differences against the
baseline, and every comparison with its test, p- and q-value. Built with the report
framework from the scorecard alone.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from gasp.audit._scorecard import Scorecard
from gasp.report import Section, escape, figure_html, new_figure, page_shell, save_figure

INDEX_FILE = "index.html"
FIGURES_DIR = "figures"


def _num(value: Any, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    return f"{float(value):.{digits}g}"


def _cell(row: Mapping[str, Any] | None, comparison: Mapping[str, Any] | None) -> str:
    if row is None:
        return "<td>not run</td>"
    text = _num(row["value"])
    if row["ci_low"] is not None and row["ci_high"] is not None:
        text += f" [{_num(row['ci_low'])}, {_num(row['ci_high'])}]"
    if row["report"]:
        text = f"<a href='{escape(row['report'])}'>{text}</a>"
    extra = []
    if row["excluded_share"] is not None:
        extra.append(f"excluded {100 * row['excluded_share']:.0f}%")
    if row["note"]:
        extra.append(escape(row["note"]))
    mark = ""
    if comparison is not None:
        direction = comparison["direction"]
        label = {"better": "better", "worse": "WORSE", "no difference": "no difference"}[direction]
        q = comparison["q_value"]
        mark = f"<br><strong class='mark-{direction.replace(' ', '-')}'>{label}</strong>"
        if q is not None:
            mark += f" <span class='note'>q = {_num(q, 2)}</span>"
    note = f"<br><span class='note'>{'; '.join(extra)}</span>" if extra else ""
    return f"<td>{text}{mark}{note}</td>"


def _study_section(card: Scorecard, study: Mapping[str, Any]) -> Section:
    name = study["study"]
    section = Section(name, ident=f"study-{name}")
    section.add_paragraph(study["description"])
    models = [m.name for m in card.models]
    rows = {(r["metric"], r["model"]): r for r in card.metric_rows if r["study"] == name}
    comps = {
        (c["metric"], c["model"]): c
        for c in card.comparison_rows
        if c["study"] == name and c["baseline"] == card.baseline
    }
    head = "<tr><th>metric</th><th>better</th>" + "".join(
        f"<th>{escape(m)}{' (baseline)' if m == card.baseline else ''}</th>" for m in models
    )
    body = []
    for metric in study["metrics"]:
        key = metric["metric"]
        about = (
            f"<strong>{escape(key)}</strong><br><span class='note'>{escape(metric['meaning'])}; "
            f"unit: {escape(metric['unit'])}; interval: {escape(metric['interval_scheme'])}; "
            f"denominator: {escape(metric['denominator'])}; leaves out: "
            f"{escape(metric['leaves_out'])}</span>"
        )
        cells = "".join(_cell(rows.get((key, m)), comps.get((key, m))) for m in models)
        body.append(f"<tr><td>{about}</td><td>{escape(metric['better'])}</td>{cells}</tr>")
    section.add(f"<table>{head}</tr>{''.join(body)}</table>")
    return section


def _forest(card: Scorecard, out: Path) -> str:
    rows = [
        c
        for c in card.comparison_rows
        if c["difference"] is not None and c["baseline"] == card.baseline
    ]
    if not rows:
        return "<p>No difference could be computed.</p>"
    height = 1.0 + 0.28 * len(rows)
    fig = new_figure(7.5, height)
    ax = fig.add_subplot()
    y = np.arange(len(rows))[::-1]
    colours = {"better": "#1a7f37", "worse": "#c62828", "no difference": "#555555"}
    for yi, row in zip(y, rows, strict=True):
        diff = float(row["difference"])
        low = row["ci_low"] if row["ci_low"] is not None else diff
        high = row["ci_high"] if row["ci_high"] is not None else diff
        scale = max(abs(low), abs(high), abs(diff), 1e-12)
        colour = colours[row["direction"]]
        ax.plot([low / scale, high / scale], [yi, yi], color=colour, lw=1.5)
        marker = {"better": "^", "worse": "v", "no difference": "o"}[row["direction"]]
        ax.plot([diff / scale], [yi], marker=marker, color=colour)
    ax.axvline(0.0, color="#999999", lw=0.8)
    labels = [f"{r['study']} · {r['metric']} · {r['model']} ({r['direction']})" for r in rows]
    ax.set_yticks(y, labels, fontsize=7)
    ax.set_xlabel("difference vs baseline, scaled per row to its largest end (0 = none)")
    png = save_figure(fig, out / FIGURES_DIR, "forest")
    return figure_html(
        png,
        "Forest plot of every difference against the baseline",
        "Each row: one metric of one model minus the baseline, with its 95% interval, "
        "scaled per row (units differ). Marks: triangle up = better, triangle down = "
        "worse, circle = no difference after the correction.",
        {"PNG": f"{FIGURES_DIR}/forest.png", "SVG": f"{FIGURES_DIR}/forest.svg"},
    )


def _comparisons_table(card: Scorecard) -> str:
    head = (
        "<tr><th>study</th><th>metric</th><th>model</th><th>baseline</th><th>compared</th>"
        "<th>difference [95% CI]</th><th>test</th><th>p</th><th>q</th><th>result</th></tr>"
    )
    body = "".join(
        f"<tr><td>{escape(c['study'])}</td><td>{escape(c['metric'])}</td>"
        f"<td>{escape(c['model'])}</td><td>{escape(c['baseline'])}</td>"
        f"<td>{escape(c['quantity'])}</td><td>{_num(c['difference'])} "
        f"[{_num(c['ci_low'])}, {_num(c['ci_high'])}]</td><td>{escape(c['test'])}</td>"
        f"<td>{_num(c['p_value'], 2)}</td><td>{_num(c['q_value'], 2)}</td>"
        f"<td>{escape(c['direction'])}</td></tr>"
        for c in card.comparison_rows
    )
    return f"<table>{head}{body}</table>"


def write_audit_page(card: Scorecard, out: Path) -> Path:
    """Write ``out/index.html`` from ``card``; return its path."""
    out.mkdir(parents=True, exist_ok=True)
    data = card.to_json()
    summary = Section("Scorecard", ident="summary")
    tested = data["n_comparisons"]
    worse = sum(c["direction"] == "worse" for c in card.comparison_rows)
    better = sum(c["direction"] == "better" for c in card.comparison_rows)
    against = f"against {card.baseline}" if card.baseline else "between every pair of models"
    if len(card.models) == 1:
        summary.add_paragraph(
            "One model: every headline metric with its interval, and no comparison (run "
            "gasp audit with more models for tested differences); each cell links to the "
            "study report behind it."
        )
    else:
        summary.add_paragraph(
            f"{len(card.models)} models, {tested} comparisons tested {against}; one "
            f"Benjamini-Hochberg correction over all of them at a false discovery rate of "
            f"{card.level:g}. Significantly better: {better}; significantly worse: {worse}. "
            "A difference is called only when its q-value is below the level; each cell "
            "links to the study report behind it."
        )
    models = "".join(
        f"<tr><td>{escape(m['name'])}</td><td>{escape(m['spec'])}</td>"
        f"<td>{escape(m['engine'])}</td><td>{escape(m['variant_prompt'] or '')}</td></tr>"
        for m in data["models"]
    )
    summary.add(
        "<table><tr><th>model</th><th>backend</th><th>engine</th><th>system prompt added</th>"
        f"</tr>{models}</table>"
    )
    missing = [r for r in data["runs"] if r["status"] not in {"complete"}]
    if missing:
        items = "".join(
            f"<li>{escape(r['model'])} / {escape(r['study'])}: {escape(r['status'])}"
            f"{' – ' + escape(r['reason']) if r['reason'] else ''}</li>"
            for r in missing
        )
        summary.add(f"<p>Runs not complete:</p><ul>{items}</ul>")
    sections = [summary]
    sections += [_study_section(card, study) for study in data["studies"]]
    if card.baseline is not None:
        forest = Section("Differences against the baseline", ident="forest")
        forest.add(_forest(card, out))
        sections.append(forest)
    if len(card.models) > 1:
        table = Section("Every comparison", ident="comparisons")
        table.add(_comparisons_table(card))
        sections.append(table)
    path = out / INDEX_FILE
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(page_shell("gasp audit scorecard", sections), encoding="utf-8")
    tmp.replace(path)
    return path


__all__ = ["INDEX_FILE", "write_audit_page"]
