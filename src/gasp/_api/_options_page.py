"""The page of every setting of ``gasp run`` (``docs/options.md``), made from the
declarations: the generic settings by group, then each built-in study's own options."""

from __future__ import annotations

from typing import Any

_GROUPS = {
    "decoding": "Decoding",
    "runner": "Runner",
    "analysis": "Analysis (every study that reads it)",
}


def _cell(value: Any) -> str:
    text = "-" if value is None or value == "" else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def options_page() -> str:
    """The Markdown of ``docs/options.md``: every generic setting and every built-in
    study's options, each with its kind, default, ``--quick`` value, range and flag."""
    from gasp._api._studies import describe_study
    from gasp.pipeline import SETTINGS
    from gasp.studies import BUILTIN_STUDY_MODULES

    lines = [
        "# Every setting",
        "",
        "This page is generated from the declarations (`python scripts/declared.py`; a test",
        "fails when it is stale). The flags of `gasp run` and the keywords of `gasp.run` are",
        "the settings below; a study's own option is `--study-option KEY=VALUE` (and",
        '`study_options={"KEY": VALUE}` in Python), and those with a flag take it too.',
        "",
    ]
    for group, title in _GROUPS.items():
        lines += [f"## {title}", "", "| setting | flag | kind | default | what it sets |",
                  "| --- | --- | --- | --- | --- |"]  # fmt: skip
        for s in (s for s in SETTINGS if s.group == group):
            flags = ", ".join(f"`{f}`" for f in s.flags)
            cells = [f"`{s.name}`", flags, s.kind, _cell(s.default), _cell(s.help)]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    for study in BUILTIN_STUDY_MODULES:
        info = describe_study(study)
        lines += [f"## {study}", "", _cell(info.description), "",
                  "| option | flag | kind | default | --quick | range | what it sets |",
                  "| --- | --- | --- | --- | --- | --- | --- |"]  # fmt: skip
        for o in info.options:
            flag = f"`{o.flag}`" if o.flag else "-"
            row = (f"`{o.name}`", flag, o.kind, _cell(o.default), _cell(o.quick),
                   _cell(o.range), _cell(o.what_it_sets))  # fmt: skip
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
    return "\n".join(lines)


__all__ = ["options_page"]
