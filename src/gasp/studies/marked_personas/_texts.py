"""Marked Personas on texts a user already has: the columns it reads, the groups it
checks, and the notes of everything assumed."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gasp.errors import ConfigError
from gasp.io import TableRole, TextTable
from gasp.studies.marked_personas._frame import CUSTOM_TEMPLATE
from gasp.studies.marked_personas._model import STUDY_KIND, MarkedPersonasStudy, load_study

_AXIS_HELP = {
    "race": "the race of the persona asked for ('a White', 'a Black', 'an Asian', ...)",
    "gender": "the gender asked for: M, W or N",
}


def table_roles(study: MarkedPersonasStudy) -> tuple[TableRole, ...]:
    """The columns a table of ``study``'s texts needs: text, one per axis; the prompt and
    template optional."""
    axes = tuple(
        TableRole(a.name, _AXIS_HELP.get(a.name, f"the {a.name} asked for")) for a in study.axes
    )
    return (
        TableRole("text", "the generated persona or story"),
        *axes,
        TableRole(
            "prompt",
            "the prompt the text answers (tells its template and kind: persona or story)",
            required=False,
        ),
        TableRole("template", "the prompt template id (e.g. describe)", required=False),
    )


def study_of(options: Mapping[str, Any]) -> MarkedPersonasStudy:
    """The built-in study, or the one of the ``study_file`` option."""
    return load_study(options.get("study_file") or STUDY_KIND)


def check_groups(texts: TextTable, study: MarkedPersonasStudy, allow_new: bool) -> list[str]:
    """Refuse axis values outside the study's groups unless ``allow_new`` (then one note
    per axis naming them)."""
    notes = []
    for axis in study.axes:
        known = {v.value for v in axis.values}
        values = texts.frame[axis.name].astype(str)
        stray = values[~values.isin(known)].value_counts()
        if stray.empty:
            continue
        listed = ", ".join(f"{v!r} ({n} row{'' if n == 1 else 's'})" for v, n in stray.items())
        if not allow_new:
            raise ConfigError(
                f"{texts.source}: {axis.name} labels outside the study's groups: {listed} "
                f"(groups: {', '.join(sorted(known))}); fix them, leave them out with "
                f"--where, or keep them as new groups with --allow-new-groups"
            )
        notes.append(f"{axis.name} labels kept as new groups: {listed}")
    return notes


def groups_present(
    texts: TextTable, study: MarkedPersonasStudy
) -> tuple[MarkedPersonasStudy, list[str]]:
    """The study reduced to the axis values the texts hold (as ``gasp run`` reduces it
    with ``--study-option race=...``), where the unmarked value and another are among
    them."""
    values: dict[str, list[str]] = {}
    for axis in study.axes:
        present = set(texts.frame[axis.name].astype(str))
        keep = [v.value for v in axis.values if v.value in present]
        if axis.unmarked in keep and 1 < len(keep) < len(axis.values):
            values[axis.name] = keep
    if not values:
        return study, []
    notes = [
        f"the study's {name} groups reduced to those in the table: {', '.join(keep)}"
        for name, keep in values.items()
    ]
    return study.restrict(values=values), notes


def template_notes(texts: TextTable, study: MarkedPersonasStudy) -> list[str]:
    """How many texts get the template ``custom``, and why."""
    frame = texts.frame
    given = (
        frame["template"].fillna("").astype(str).str.strip() != "" if "template" in frame else None
    )
    if "prompt" not in frame:
        if given is not None and bool(given.all()):
            return []
        return [f"no prompt column: texts without a template are of template {CUSTOM_TEMPLATE!r}"]
    derived = [study.template_of(p) for p in frame["prompt"].fillna("").astype(str)]
    unmatched = sum(
        1 for i, d in enumerate(derived) if not d and (given is None or not given.iloc[i])
    )
    if unmatched:
        return [
            f"{unmatched} texts whose prompt matches no template of the study are of "
            f"template {CUSTOM_TEMPLATE!r}"
        ]
    return []


def analyze_texts_step(
    texts: TextTable, results: Path, options: Mapping[str, Any]
) -> dict[str, Any]:
    """Every analysis of a user's texts, saved to ``results`` with the notes of what was
    read, left out or assumed."""
    from gasp.studies.marked_personas._steps import analyze_frame, summary_lines

    study = study_of(options)
    notes = [*texts.notes, *check_groups(texts, study, bool(options.get("allow_new_groups")))]
    study, reduced = groups_present(texts, study)
    notes += [*reduced, *template_notes(texts, study)]
    texts.notes[:] = notes
    analysis = {k: v for k, v in options.items() if k != "allow_new_groups"}
    audit = analyze_frame(texts.frame, study, analysis)
    audit.meta["source_table"] = texts.source
    audit.meta["settings"]["input"] = texts.record()
    audit.meta["settings"]["allow_new_groups"] = bool(options.get("allow_new_groups"))
    folder = audit.save(results)
    return {"lines": [*notes, *summary_lines(audit, folder)]}
