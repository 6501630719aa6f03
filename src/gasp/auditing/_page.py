"""The scorecard page ``index.html``: one table per study (models as columns; each
cell the value, and against the baseline the difference with its interval and q in the
metric's unit, or "not tested"), the sizes that ran, a forest plot with one panel per
metric in its own unit, and every comparison with its test, p- and q-value. Built with
the report framework from the scorecard alone; every cell links to the report behind it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from gasp.auditing._scorecard import Scorecard
from gasp.report import Section, escape, figure_html, new_figure, page_shell, save_figure
from gasp.results import replace_with

INDEX_FILE = "index.html"
FIGURES_DIR = "figures"


def _num(value: Any, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    return f"{float(value):.{digits}g}"


#: Fewest paired units with which a comparison is read as able to detect a difference.
MIN_UNITS = 5


def _excluded(row: Mapping[str, Any], leaves_out: str) -> str | None:
    share = row.get("excluded_share")
    if share is None or not math.isfinite(float(share)):
        return None
    return f"excluded {100 * float(share):.0f}% ({escape(leaves_out)})"


def _verdict(comparison: Mapping[str, Any], unit: str) -> str:
    """The comparison against the baseline, in the metric's unit."""
    direction = comparison["direction"]
    if direction == "not tested":
        why = str(comparison["test"]).removeprefix("none: ")
        return (
            "<br><strong class='mark-not-tested'>not tested</strong> "
            f"<span class='note'>({escape(why)})</span>"
        )
    label = "WORSE" if direction == "worse" else direction
    diff = f"{float(comparison['difference']):+.3g}"
    low, high = comparison["ci_low"], comparison["ci_high"]
    interval = f" [{_num(low)}, {_num(high)}]" if low is not None and high is not None else ""
    text = (
        f"<br><span class='note'>vs baseline: {escape(comparison['quantity'])} {diff}"
        f"{interval} {escape(unit)}, q = {_num(comparison['q_value'], 2)}</span>"
        f"<br><strong class='mark-{direction.replace(' ', '-')}'>{label}</strong>"
    )
    n = int(comparison.get("n_shared") or 0)
    if direction == "no difference" and 0 < n < MIN_UNITS:
        text += f" <span class='note'>(too few units, {n}, to detect a difference)</span>"
    return text


def _cell(
    row: Mapping[str, Any] | None,
    comparison: Mapping[str, Any] | None,
    metric: Mapping[str, Any],
) -> str:
    if row is None:
        return "<td>not run</td>"
    valued = row["value"] is not None and math.isfinite(float(row["value"]))
    text = _num(row["value"]) if valued else "not tested"
    bounded = all(
        row[k] is not None and math.isfinite(float(row[k])) for k in ("ci_low", "ci_high")
    )
    if valued and bounded:
        text += f" [{_num(row['ci_low'])}, {_num(row['ci_high'])}]"
    if row["report"]:
        text = f"<a href='{escape(row['report'])}'>{text}</a>"
    extra = [e for e in (_excluded(row, metric["leaves_out"]),) if e]
    why = str(row.get("interval_note") or "")
    if valued and not bounded:
        extra.append("no interval: " + escape(why or "none was saved for this metric"))
    if row["note"]:
        extra.append(escape(row["note"]))
    elif not valued:
        extra.append(escape(why or "no value was read from this run"))
    mark = _verdict(comparison, metric["unit"]) if comparison is not None else ""
    note = f"<br><span class='note'>{'; '.join(extra)}</span>" if extra else ""
    return f"<td>{text}{mark}{note}</td>"


def _times(runs: list[Mapping[str, Any]]) -> str:
    """The summary's line of how long each study's run took (its steps, on this machine)."""
    timed = [r for r in runs if r.get("seconds") is not None]
    if not timed:
        return "<p>Time per study: not recorded.</p>"
    parts = ", ".join(
        f"{escape(r['model'])} / {escape(r['study'])} {float(r['seconds']):.1f} s" for r in timed
    )
    total = sum(float(r["seconds"]) for r in timed)
    return (
        f"<p>Time per study (its steps, from the model's start to its report; a study "
        f"finished before and not redone keeps the time of its run): {parts}; "
        f"{total:.1f} s in all.</p>"
    )


def _sizes(card: Scorecard, study: Mapping[str, Any]) -> str:
    """What ran, per model: each distinct denominator of the study's metrics with its n."""
    denominators = {m["metric"]: m["denominator"] for m in study["metrics"]}
    parts = []
    for model in card.models:
        seen: dict[str, int] = {}
        for row in card.metric_rows:
            if row["study"] == study["study"] and row["model"] == model.name and row["n"]:
                seen.setdefault(denominators.get(row["metric"], "units"), int(row["n"]))
        if seen:
            sizes = "; ".join(f"{n} {what}" for what, n in seen.items())
            parts.append(f"{escape(model.name)}: {escape(sizes)}")
    return "Sizes that ran: " + (" · ".join(parts) if parts else "none") + "."


def _study_section(card: Scorecard, study: Mapping[str, Any]) -> Section:
    name = study["study"]
    section = Section(name, ident=f"study-{name}")
    section.add_paragraph(study["description"])
    section.add(f"<p>{_sizes(card, study)}</p>")
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
        cells = "".join(_cell(rows.get((key, m)), comps.get((key, m)), metric) for m in models)
        body.append(f"<tr><td>{about}</td><td>{escape(metric['better'])}</td>{cells}</tr>")
    section.add(f"<table>{head}</tr>{''.join(body)}</table>")
    return section


_COLOURS = {
    "better": "#1a7f37",
    "worse": "#c62828",
    "differs": "#8a5a00",
    "no difference": "#555555",
}
_MARKERS = {"better": "^", "worse": "v", "differs": "D", "no difference": "o"}


def _forest(card: Scorecard, out: Path) -> str:
    units = {(s["study"], m["metric"]): m["unit"] for s in card.studies for m in s["metrics"]}
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for c in card.comparison_rows:
        if c["p_value"] is not None and c["baseline"] == card.baseline:
            groups.setdefault((c["study"], c["metric"]), []).append(c)
    if not groups:
        return "<p>No difference could be tested.</p>"
    heights = [0.55 + 0.3 * len(rows) for rows in groups.values()]
    fig = new_figure(7.5, sum(heights) + 0.2)
    axes = fig.subplots(len(groups), 1, gridspec_kw={"height_ratios": heights}, squeeze=False)
    for ax, ((study, metric), rows) in zip(axes[:, 0], groups.items(), strict=True):
        y = np.arange(len(rows))[::-1]
        for yi, row in zip(y, rows, strict=True):
            diff = float(row["difference"])
            colour = _COLOURS[row["direction"]]
            if row["ci_low"] is not None and row["ci_high"] is not None:
                ax.plot([row["ci_low"], row["ci_high"]], [yi, yi], color=colour, lw=1.5)
            ax.plot([diff], [yi], marker=_MARKERS[row["direction"]], color=colour)
        ax.axvline(0.0, color="#999999", lw=0.8)
        ax.set_yticks(y, [f"{r['model']} ({r['direction']})" for r in rows], fontsize=7)
        ax.set_ylim(-0.6, len(rows) - 0.4)
        ax.tick_params(axis="x", labelsize=7)
        ax.set_xlabel(
            f"{study} · {metric}: {rows[0]['quantity']}, model - baseline "
            f"({units.get((study, metric), '')})",
            fontsize=7,
        )
    png = save_figure(fig, out / FIGURES_DIR, "forest")
    return figure_html(
        png,
        "Forest plot of every tested difference against the baseline",
        "One panel per metric, in the metric's own unit: each model minus the baseline "
        "(of the value, or of its distance to 0 or to the reference: a negative distance "
        "difference is an improvement), with its 95% interval. Marks: triangle up = "
        "better, triangle down = worse, diamond = differs (significant, with no better "
        "side: a signed shift, or a gap whose guard share moved), circle = no difference "
        "after the correction. "
        "Comparisons that were not tested are not drawn.",
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
    summary.add(_times(data["runs"]))
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
    text = page_shell("gasp audit scorecard", sections)
    replace_with(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return path


__all__ = ["INDEX_FILE", "write_audit_page"]
