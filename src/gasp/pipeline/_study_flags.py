"""The flags of ``gasp run`` made from the studies' own options.

A study may give one of its options a flag of its own (``StudyOption(flag=...)``):
``gasp run more-of-the-same --min-share 0.2`` is ``--study-option min_share=0.2``, and
``gasp.run(..., min_share=0.2)`` its keyword. The option is declared once, in its
study's package; :func:`study_flag_settings` makes one :class:`Setting` per flag name
(several studies may declare the same name, ``n``: one flag, its help naming each).

The command line builds its flags when it starts, and importing every study imports the
statistics stack, so the flags' declarations are compiled into :data:`FLAGS_FILE`:
:func:`compile_study_flags` reads them from the studies, ``python
scripts/declared.py`` writes the file, and a test fails when it differs from the
studies' declarations.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from gasp.pipeline._declaration import Group, Setting

#: The compiled declarations of the studies' flags (package data).
FLAGS_FILE = Path(__file__).with_name("study_flags.json")


def compile_study_flags() -> list[dict[str, Any]]:
    """The flags the built-in studies declare, one entry per name (its kind, step, old
    names, each declaring study's help, and the range they share), read from the
    studies themselves."""
    from gasp.studies import BUILTIN_STUDY_MODULES, StudyOption, get_study_type

    flags: dict[str, dict[str, Any]] = {}
    for study in BUILTIN_STUDY_MODULES:
        for name, option in get_study_type(study).study_options.items():
            if not isinstance(option, StudyOption) or not option.flag:
                continue
            entry = flags.setdefault(
                name, {"name": name, "kind": option.kind, "step": option.flag,
                       "old_names": [], "studies": {}},
            )  # fmt: skip
            if (entry["kind"], entry["step"]) != (option.kind, option.flag):
                raise ValueError(f"studies declare the flag {name!r} with different kinds or steps")
            if option.kind == "bool" and option.default is not False:
                raise ValueError(f"the flag {name!r} switches on: its default must be False")
            entry["old_names"] = sorted({*entry["old_names"], *option.old_names})
            entry["studies"][study] = option.help
            entry.setdefault("ranges", []).append(_range(option))
    for entry in flags.values():
        ranges = entry.pop("ranges")
        entry["range"] = ranges[0] if all(r == ranges[0] for r in ranges) else {}
    return [flags[name] for name in sorted(flags)]


def _range(option: Any) -> dict[str, Any]:
    """The range or choices a study declares for an option (only those it sets)."""
    fields = ("minimum", "maximum", "exclusive_minimum", "exclusive_maximum", "choices")
    found = {name: getattr(option, name) for name in fields}
    found["choices"] = list(found["choices"])
    return {k: v for k, v in found.items() if v is not None and v is not False and v != []}


def write_study_flags(path: Path = FLAGS_FILE) -> Path:
    """Write the compiled flags (:func:`compile_study_flags`) to ``path``."""
    path.write_text(json.dumps(compile_study_flags(), indent=1, sort_keys=True) + "\n")
    return path


def _help(studies: Mapping[str, str]) -> str:
    """One study's help as a sentence; several studies' helps each after the studies
    that share it."""
    by_help: dict[str, list[str]] = {}
    for study, text in studies.items():
        by_help.setdefault(text, []).append(study)
    if len(by_help) == 1:
        text = next(iter(by_help))
        return text[:1].upper() + text[1:] + "."
    return "; ".join(f"{', '.join(names)}: {text}" for text, names in by_help.items()) + "."


def _panel(studies: Iterable[str]) -> str:
    names = list(studies)
    return f"{names[0]} only" if len(names) == 1 else "Study options"


@functools.cache
def _compiled() -> tuple[dict[str, Any], ...]:
    """The entries of :data:`FLAGS_FILE`, read once."""
    return tuple(json.loads(FLAGS_FILE.read_text()))


@functools.cache
def study_flag_settings() -> tuple[Setting, ...]:
    """One :class:`Setting` per flag the studies declare (from :data:`FLAGS_FILE`): its
    kind and step from the declarations, its help each declaring study's, and its range
    where every declaring study gives the same one (else each study checks its own)."""
    settings = []
    for entry in _compiled():
        group: Group = entry["step"]
        range_fields: dict[str, Any] = {
            k: tuple(v) if k == "choices" else v for k, v in entry["range"].items()
        }
        settings.append(
            Setting(
                entry["name"],
                _help(entry["studies"]),
                group,
                kind=entry["kind"],
                default=False if entry["kind"] == "bool" else None,
                panel=_panel(entry["studies"]),
                old_flags=tuple("--" + o.replace("_", "-") for o in entry["old_names"]),
                study_option=True,
                **range_fields,
            )
        )
    return tuple(settings)


def study_flag_old_names() -> dict[str, str]:
    """Old spellings of the studies' flags, by the name they stand for."""
    return {old: e["name"] for e in _compiled() for old in e["old_names"]}


__all__ = [
    "FLAGS_FILE",
    "compile_study_flags",
    "study_flag_old_names",
    "study_flag_settings",
    "write_study_flags",
]
