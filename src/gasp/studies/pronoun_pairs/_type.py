"""The paired pronoun test and the narrative test as registered study types."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from gasp.errors import ConfigError
from gasp.io import TextTable
from gasp.names import DEFAULT_GENDER_THRESHOLD, DEFAULT_NAME_MIN_COUNT
from gasp.results import HeadlineMetric
from gasp.runner import StudyPlan
from gasp.studies import PROMPT_FORM, StudyOption, StudyType, count_units, reject_options
from gasp.studies.pronoun_pairs._professions import (
    default_professions,
    draw_pairs,
    load_professions,
    narrative_professions,
    select_professions,
)
from gasp.studies.pronoun_pairs._study import (
    NARRATIVES_KIND,
    PAIRS_KIND,
    NarrativeStudy,
    PairsStudy,
)
from gasp.studies.pronoun_pairs._templates import NARRATIVE_TEMPLATES, PAIR_TEMPLATES
from gasp.studies.pronoun_pairs._texts import NARRATIVE_ROLES, PAIRS_ROLES

#: Profession pairs drawn by default (the paper's main experiment drew 1,000 per model).
DEFAULT_PAIRS = 1000
#: Stories per (profession, opening) by default (k = 20, Section 4.2.2).
DEFAULT_STORIES = 20
#: Most frequent names listed per profession by default.
DEFAULT_TOP_NAMES = 5
#: Tokens of a story by default: a name is found in the first sentence or two, and a
#: longer story adds few names (on the embedded model, 50% of stories named at 64
#: tokens, 60% at 256) for four times the cost.
STORY_TOKENS = 64

_OCCUPATIONS_HELP = "only these professions (comma separated)"
_TEMPLATES_HELP = "only these templates (comma separated)"
#: The option naming a file of the user's own professions (both studies read it).
_PROFESSIONS_FILE = StudyOption(
    "your own professions CSV (column Occupations, occupation or profession)", flag="shape"
)


def _split(value: Any) -> list[str] | None:
    if value is None:
        return None
    items = [v.strip() for v in str(value).split(",") if v.strip()]
    if not items:
        raise ConfigError("an empty list was given; separate names with commas")
    return items


def _source(options: Mapping[str, Any]) -> tuple[Any, str]:
    file = options.get("occupations_file")
    if file is not None:
        return load_professions(file), str(file)
    return default_professions(), "default"


class PronounPairs(StudyType):
    """Marin and Eger's paired prompts (Table 1): he / she / they, same profession pairs."""

    name = PAIRS_KIND
    description = (
        "Paired pronoun prompts (Marin and Eger, Table 1): profession pairs x 7 templates x "
        "he/she/they; incorrect, inconsistent and binary inconsistent answers."
    )
    study_options = MappingProxyType(
        {
            "pairs": StudyOption(
                "profession pairs to draw",
                kind="int",
                minimum=1,
                default=DEFAULT_PAIRS,
                quick=2,
                size="profession pairs, each asked with every template: the triples "
                "McNemar's test pairs",
            ),
            "pair_seed": StudyOption("seed of the draw of pairs", kind="int", minimum=0, default=0),
            "n": StudyOption(
                "answers per prompt", kind="int", minimum=1, default=1, quick=1, flag="shape"
            ),
            "templates": StudyOption(_TEMPLATES_HELP, quick="late,cake", flag="shape"),
            "occupations": StudyOption(_OCCUPATIONS_HELP, flag="shape"),
            "occupations_file": _PROFESSIONS_FILE,
            "prompt_form": PROMPT_FORM,
        }
    )
    quick_max_tokens = 24
    BUILD = frozenset({"occupations", "occupations_file", "n", "templates", "pairs", "pair_seed"})
    ANALYSIS = frozenset({"bootstrap", "seed", "examples_per_word", "pairs", "pair_seed"})
    table_roles = PAIRS_ROLES
    analysis_options = BUILD | ANALYSIS
    table_help = "one row per answer; repeats of one prompt are told apart by sample_index"

    def decoding_defaults(self) -> dict[str, Any]:
        """Temperature 0.2 and at most 120 tokens (the authors' code)."""
        return {"temperature": 0.2, "max_tokens": 120}

    def build(self, source: str | Path, options: Mapping[str, Any]) -> PairsStudy:
        """Pairs drawn from the default list, ``--occupations-file`` or ``--occupations``."""
        if str(source) != self.name:
            raise ConfigError(f"study {self.name!r} has no study files; run it by name")
        reject_options(self.name, options, set(self.BUILD | self.ANALYSIS))
        opts = self.resolve_options(options)
        professions, label = _source(opts)
        professions = select_professions(professions, _split(opts.get("occupations")))
        seed = opts.integer("pair_seed")
        pairs = draw_pairs([p.name for p in professions], opts.integer("pairs"), seed)
        templates = _split(opts.get("templates")) or list(PAIR_TEMPLATES)
        return PairsStudy(
            pairs=tuple(pairs),
            templates=tuple(templates),
            n=opts.integer("n"),
            pair_seed=seed,
            source=label,
        )

    def size_units(self, plan: StudyPlan) -> int:
        """The (template, pair) triples: McNemar's test pairs each across two runs."""
        return count_units(plan, "template", "pair_id")

    def analyze(self, store: Path, results: Path, options: Mapping[str, Any]) -> Mapping[str, Any]:
        """Parse the answers and compute Table 3, the professions and the examples."""
        from gasp.studies.pronoun_pairs._steps import analyze_pairs

        self.check_analysis_options(options)
        return self.with_headline(results, analyze_pairs(store, results, options))

    def headline_metrics(self) -> tuple[HeadlineMetric, ...]:
        """The headline metrics of the audit scorecard (see the ``_headline`` module)."""
        from gasp.studies.pronoun_pairs._headline import PAIRS_METRICS

        return PAIRS_METRICS

    def analyze_texts(
        self, texts: TextTable, results: Path, options: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """Table 3, the professions and the examples of a user's table of answers."""
        from gasp.studies.pronoun_pairs._steps import analyze_pairs_texts

        reject_options(self.name, options, set(self.ANALYSIS))
        return self.with_headline(results, analyze_pairs_texts(texts, results, options))

    def report(self, results: Path, out: Path, options: Mapping[str, Any]) -> Path:
        """The report from saved results only."""
        from gasp.studies.pronoun_pairs._steps import render_report

        return render_report(results, out, options)

    def compare(
        self, runs: Sequence[Path], out: Path, options: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """Table 3 and Figure 4 across runs and McNemar's test on the shared pairs."""
        from gasp.studies.pronoun_pairs._steps import compare_pairs_runs

        return compare_pairs_runs(runs, out, options)


class Narratives(StudyType):
    """Marin and Eger's narrative openings (Table 2): the protagonist's name and gender."""

    name = NARRATIVES_KIND
    description = (
        "Narrative openings (Marin and Eger, Table 2): stories about professions; share of "
        "female, male and unknown protagonist names (Table 4) and the most frequent names."
    )
    study_options = MappingProxyType(
        {
            "n": StudyOption(
                "stories per profession and opening",
                kind="int",
                minimum=1,
                default=DEFAULT_STORIES,
                quick=2,
                size="stories per profession and opening",
                flag="shape",
            ),
            "occupations": StudyOption(
                _OCCUPATIONS_HELP + "; default Table 4's",
                quick="graduate student,roofer",
                overridden_by=("occupations_file",),
                flag="shape",
            ),
            "occupations_file": _PROFESSIONS_FILE,
            "templates": StudyOption(_TEMPLATES_HELP, quick="once,story", flag="shape"),
            "names_file": "a name table CSV (Name, Gender, Count) instead of SSA statistics",
            "gender_threshold": StudyOption(
                "P(female | name) for F (and 1 - it for M)",
                kind="float",
                minimum=0.5,
                maximum=1.0,
                exclusive_minimum=True,
                default=DEFAULT_GENDER_THRESHOLD,
            ),
            "name_min_count": StudyOption(
                "births (table count) a protagonist's name needs",
                kind="int",
                minimum=1,
                default=DEFAULT_NAME_MIN_COUNT,
            ),
            "top_names": StudyOption(
                "most frequent names listed per profession",
                kind="int",
                minimum=1,
                default=DEFAULT_TOP_NAMES,
            ),
            "prompt_form": PROMPT_FORM,
        }
    )
    quick_max_tokens = 40
    BUILD = frozenset({"occupations", "occupations_file", "n", "templates"})
    ANALYSIS = frozenset(
        {
            "names_file",
            "gender_threshold",
            "name_min_count",
            "top_names",
            "seed",
            "examples_per_word",
            "bootstrap",
        }
    )
    table_roles = NARRATIVE_ROLES
    analysis_options = BUILD | ANALYSIS
    table_help = "one row per story; the protagonist's name is read from the story"

    def decoding_defaults(self) -> dict[str, Any]:
        """Temperature 0.6 (the authors' code) and :data:`STORY_TOKENS` tokens: the
        protagonist's name is read from the story's first words (the authors "investigate
        the first few tokens to find a name", Section 3.4); ``--max-tokens`` asks for
        whole chapters."""
        return {"temperature": 0.6, "max_tokens": STORY_TOKENS}

    def build(self, source: str | Path, options: Mapping[str, Any]) -> NarrativeStudy:
        """Table 4's professions, ``--occupations`` from the default list, or a file."""
        if str(source) != self.name:
            raise ConfigError(f"study {self.name!r} has no study files; run it by name")
        reject_options(self.name, options, set(self.BUILD | self.ANALYSIS))
        opts = self.resolve_options(options)
        names = _split(opts.get("occupations"))
        if opts.get("occupations_file") is not None:
            professions, label = _source(opts)
        elif names is not None:
            professions, label = default_professions(), "default"
        else:
            professions, label = narrative_professions(), "default (Table 4)"
        professions = select_professions(professions, names)
        templates = _split(opts.get("templates")) or list(NARRATIVE_TEMPLATES)
        return NarrativeStudy(
            professions=professions,
            templates=tuple(templates),
            n=opts.integer("n"),
            source=label,
        )

    def check_analysis_options(self, options: Mapping[str, Any]) -> None:
        """Also read ``names_file`` (checked before a run generates: a table without the
        columns the analysis needs, or a device, is refused before answers are paid)."""
        super().check_analysis_options(options)
        names_file = options.get("names_file")
        if names_file:
            from gasp.names import read_name_table

            read_name_table(names_file)

    def analyze(self, store: Path, results: Path, options: Mapping[str, Any]) -> Mapping[str, Any]:
        """Names, genders, Table 4 and the most frequent names."""
        from gasp.studies.pronoun_pairs._steps import analyze_narratives

        self.check_analysis_options(options)
        return self.with_headline(
            results, analyze_narratives(store, results, self.resolve_options(options))
        )

    def headline_metrics(self) -> tuple[HeadlineMetric, ...]:
        """The headline metrics of the audit scorecard (see the ``_headline`` module)."""
        from gasp.studies.pronoun_pairs._headline import NARRATIVE_METRICS

        return NARRATIVE_METRICS

    def analyze_texts(
        self, texts: TextTable, results: Path, options: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """Names, genders, Table 4 and the most frequent names of a user's stories."""
        from gasp.studies.pronoun_pairs._steps import analyze_narrative_texts

        reject_options(self.name, options, set(self.ANALYSIS))
        return self.with_headline(
            results, analyze_narrative_texts(texts, results, self.resolve_options(options))
        )

    def report(self, results: Path, out: Path, options: Mapping[str, Any]) -> Path:
        """The report from saved results only."""
        from gasp.studies.pronoun_pairs._steps import render_report

        return render_report(results, out, options)

    def compare(
        self, runs: Sequence[Path], out: Path, options: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """Female, male and unknown protagonist shares per profession and run (Wilson
        intervals) and a test of each pair of runs' split per profession."""
        from gasp.studies.pronoun_pairs._narrative_compare import compare_narrative_runs

        return compare_narrative_runs(runs, out, options)


PAIRS_STUDY_TYPE = PronounPairs()
NARRATIVES_STUDY_TYPE = Narratives()
