"""The Marked Personas study: axes of identity with their unmarked defaults, the persona
and story prompts, and the runner items (one per prompt and group).

The built-in study (``data/study.toml``) is the paper's: race (unmarked: White) x
gender (unmarked: man), the six persona prompts of Table A9 and the two story prompts
of Table A14, 15 samples per prompt and group. A study file (``study =
"marked-personas"``) may give its own ``axes`` and ``prompts`` in the same format.
"""

from __future__ import annotations

import itertools
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from gasp.errors import ConfigError
from gasp.runner import Completion, FixedN, Item, StudyPlan

STUDY_KIND = "marked-personas"
PERSONA = "persona"
STORY = "story"
KINDS = (PERSONA, STORY)
#: The completion form of each kind of prompt, for a base model (``{group}`` as in the
#: prompts): the text a description or a story follows; the answer is its first
#: paragraph (:data:`COMPLETION_STOP`). Every prompt of a kind shares it.
COMPLETIONS = {
    PERSONA: "Here is a short description of {group}.\n\n",
    STORY: "Here is a short story about {group}.\n\n",
}
COMPLETION_STOP = ("\n\n",)
#: The verb after "that they" in the Kambhatla-style prompt: the published data's "is"
#: (default, for reproduction) or "are".
THEY_VERBS = ("is", "are")
_PLACEHOLDERS = ("group", "object", "subject", "be")


@dataclass(frozen=True)
class AxisValue:
    """One value of an axis: as stored (``value``), as shown (``label``), as said in a
    prompt (``phrase``, or ``phrase_by[<value of another axis>]``), and the pronouns."""

    value: str
    label: str
    phrase: str
    phrase_by: Mapping[str, str] = field(default_factory=dict)
    object: str | None = None
    subject: str | None = None
    be: str = "is"
    be_plural: str | None = None


@dataclass(frozen=True)
class Axis:
    """An axis of identity (race, gender, ...) and its unmarked default value."""

    name: str
    values: tuple[AxisValue, ...]
    unmarked: str

    def value(self, value: str) -> AxisValue:
        """The value stored as ``value``."""
        for v in self.values:
            if v.value == value:
                return v
        raise ConfigError(f"axis {self.name!r} has no value {value!r}")

    @property
    def marked(self) -> tuple[AxisValue, ...]:
        """The values other than the unmarked default."""
        return tuple(v for v in self.values if v.value != self.unmarked)


@dataclass(frozen=True)
class PromptTemplate:
    """A prompt with placeholders, its id and its kind (persona or story)."""

    id: str
    kind: str
    text: str

    def pattern(self) -> re.Pattern[str]:
        """A regular expression matching this prompt rendered for any group."""
        parts = re.split(r"(\{(?:group|object|subject|be)\})", self.text)
        regex = ""
        for part in parts:
            if part == "{group}":
                regex += r"(.+)"
            elif part in ("{object}", "{subject}"):
                regex += r"(\w+)"
            elif part == "{be}":
                regex += r"(?:is|are)"
            else:
                regex += re.escape(part)
        return re.compile(regex, re.DOTALL)

    def literal_length(self) -> int:
        """Characters outside placeholders (the more, the more specific the prompt)."""
        return len(re.sub(r"\{(?:group|object|subject|be)\}", "", self.text))


def _check_text(template: PromptTemplate) -> None:
    for name in re.findall(r"\{([^{}]*)\}", template.text):
        if name not in _PLACEHOLDERS:
            raise ConfigError(
                f"prompt {template.id!r}: unknown placeholder {{{name}}} "
                f"(use {', '.join('{' + p + '}' for p in _PLACEHOLDERS)})"
            )
    if "{group}" not in template.text:
        raise ConfigError(f"prompt {template.id!r} must name the group with {{group}}")


@dataclass(frozen=True)
class MarkedPersonasStudy:
    """Axes, prompts and samples per prompt and group; :meth:`to_plan` for the runner."""

    name: str
    axes: tuple[Axis, ...]
    prompts: tuple[PromptTemplate, ...]
    n: int = 15
    they_verb: str = "is"

    def groups(self) -> list[dict[str, str]]:
        """Every combination of axis values (axis name -> stored value), in study order."""
        combos = itertools.product(*(axis.values for axis in self.axes))
        return [{a.name: v.value for a, v in zip(self.axes, c, strict=True)} for c in combos]

    def group_label(self, group: Mapping[str, str]) -> str:
        """``Black woman``: the labels of the group's values, unmarked ones included."""
        return " ".join(a.value(group[a.name]).label for a in self.axes if a.name in group)

    def fill(self, group: Mapping[str, str]) -> dict[str, str]:
        """The placeholder values of ``group``."""
        values = [a.value(group[a.name]) for a in self.axes]
        stored = set(group.values())
        words = []
        for v in values:
            chosen = [p for key, p in v.phrase_by.items() if key in stored]
            words.append(chosen[0] if chosen else v.phrase)
        obj = next((v.object for v in values if v.object), "them")
        subj = next((v.subject for v in values if v.subject), "they")
        speaker = next((v for v in values if v.subject), None)
        be = "is"
        if speaker is not None:
            be = (
                speaker.be_plural if (speaker.be_plural and self.they_verb == "are") else speaker.be
            )
        elif self.they_verb == "are":
            be = "are"
        return {"group": " ".join(words), "object": obj, "subject": subj, "be": be}

    def render(self, template: PromptTemplate, group: Mapping[str, str]) -> str:
        """The prompt of ``template`` for ``group``."""
        return template.text.format(**self.fill(group))

    def items(self) -> list[Item]:
        """One item per prompt and group (prompts in order, groups in order)."""
        out = []
        for template in self.prompts:
            for group in self.groups():
                out.append(
                    Item(
                        key=(template.id, *(group[a.name] for a in self.axes)),
                        prompt=self.render(template, group),
                        attributes={
                            "template": template.id,
                            "text_kind": template.kind,
                            "group": self.group_label(group),
                            **group,
                        },
                        n=self.n,
                        completion=Completion(
                            COMPLETIONS[template.kind].format(**self.fill(group)),
                            COMPLETION_STOP,
                        ),
                    )
                )
        return out

    def to_dict(self) -> dict[str, Any]:
        """The study's settings as plain JSON (recorded in the run manifest)."""
        return {
            "name": self.name,
            "n": self.n,
            "they_verb": self.they_verb,
            "axes": [
                {
                    "name": a.name,
                    "unmarked": a.unmarked,
                    "values": [
                        {k: v for k, v in vars(x).items() if v not in (None, {})} for x in a.values
                    ],
                }
                for a in self.axes
            ],
            "prompts": [vars(p) for p in self.prompts],
        }

    def to_plan(self) -> StudyPlan:
        """The runner's plan: every item with exactly ``n`` samples, no system prompt."""
        return StudyPlan(
            kind=STUDY_KIND,
            name=self.name,
            items=tuple(self.items()),
            spec=self.to_dict(),
            stopping=FixedN(),
            system_prompt=None,
        )

    def restrict(
        self,
        *,
        values: Mapping[str, Sequence[str]] | None = None,
        kinds: Sequence[str] | None = None,
        prompts: Sequence[str] | None = None,
        n: int | None = None,
        they_verb: str | None = None,
    ) -> MarkedPersonasStudy:
        """A smaller study: some values per axis, some kinds or prompts, another ``n``."""
        axes = list(self.axes)
        for name, keep in (values or {}).items():
            index = next((i for i, a in enumerate(axes) if a.name == name), None)
            if index is None:
                raise ConfigError(f"the study has no axis {name!r}")
            axis = axes[index]
            chosen = tuple(axis.value(v) for v in keep)
            if axis.unmarked not in {v.value for v in chosen}:
                raise ConfigError(f"keep the unmarked {name} {axis.unmarked!r}")
            axes[index] = replace(axis, values=chosen)
        chosen_prompts = [p for p in self.prompts if kinds is None or p.kind in kinds]
        if prompts is not None:
            unknown = set(prompts) - {p.id for p in self.prompts}
            if unknown:
                raise ConfigError(f"unknown prompt {sorted(unknown)[0]!r}")
            chosen_prompts = [p for p in chosen_prompts if p.id in prompts]
        if not chosen_prompts:
            raise ConfigError("no prompt left to run")
        if they_verb is not None and they_verb not in THEY_VERBS:
            raise ConfigError(f"they_verb must be one of {', '.join(THEY_VERBS)}")
        return replace(
            self,
            axes=tuple(axes),
            prompts=tuple(chosen_prompts),
            n=self.n if n is None else n,
            they_verb=self.they_verb if they_verb is None else they_verb,
        )

    def template_of(self, prompt: str) -> tuple[str, str] | None:
        """(template id, kind) of a rendered prompt, derived from its text; None if none fits."""
        text = str(prompt).strip()
        fits = [t for t in self.prompts if t.pattern().fullmatch(text)]
        if not fits:
            return None
        best = max(fits, key=lambda t: t.literal_length())
        return best.id, best.kind


def _axis(data: Mapping[str, Any]) -> Axis:
    try:
        values = tuple(
            AxisValue(
                value=str(v["value"]),
                label=str(v.get("label", v["value"])),
                phrase=str(v.get("phrase", v["value"])),
                phrase_by=dict(v.get("phrase_by", {})),
                object=v.get("object"),
                subject=v.get("subject"),
                be=str(v.get("be", "is")),
                be_plural=v.get("be_plural"),
            )
            for v in data["values"]
        )
        axis = Axis(name=str(data["name"]), values=values, unmarked=str(data["unmarked"]))
    except (KeyError, TypeError) as exc:
        raise ConfigError(f"an axis needs name, unmarked and values with value: {exc}") from None
    axis.value(axis.unmarked)
    if len(axis.values) < 2:
        raise ConfigError(f"axis {axis.name!r} needs a marked value beside the unmarked one")
    return axis


def study_from_mapping(
    data: Mapping[str, Any], base: MarkedPersonasStudy | None = None
) -> MarkedPersonasStudy:
    """A study from the keys of a study file (``axes``, ``prompts``, ``n``, ``name``);
    keys left out come from ``base`` (the built-in study)."""
    axes = tuple(_axis(a) for a in data["axes"]) if "axes" in data else None
    prompts = None
    if "prompts" in data:
        prompts = tuple(
            PromptTemplate(id=str(p["id"]), kind=str(p.get("kind", PERSONA)), text=str(p["text"]))
            for p in data["prompts"]
        )
        for p in prompts:
            _check_text(p)
            if p.kind not in KINDS:
                raise ConfigError(f"prompt {p.id!r}: kind must be one of {', '.join(KINDS)}")
    if base is None and (axes is None or prompts is None):
        raise ConfigError("a study needs axes and prompts")
    n = int(data.get("n", base.n if base else 15))
    if n < 1:
        raise ConfigError(f"n must be a positive integer, got {n}")
    return MarkedPersonasStudy(
        name=str(data.get("name", base.name if base else STUDY_KIND)),
        axes=axes if axes is not None else base.axes,  # type: ignore[union-attr]
        prompts=prompts if prompts is not None else base.prompts,  # type: ignore[union-attr]
        n=n,
        they_verb=str(data.get("they_verb", "is")),
    )


@cache
def marked_personas() -> MarkedPersonasStudy:
    """The paper's study (``data/study.toml``)."""
    path = resources.files("gasp.studies.marked_personas") / "data" / "study.toml"
    return study_from_mapping(tomllib.loads(path.read_text(encoding="utf-8")))


def load_study(source: str | Path) -> MarkedPersonasStudy:
    """The built-in study (its name) or a study file's (missing keys from the built-in)."""
    if str(source) == STUDY_KIND:
        return marked_personas()
    from gasp.studies import read_study_file

    return study_from_mapping(read_study_file(source), base=marked_personas())
