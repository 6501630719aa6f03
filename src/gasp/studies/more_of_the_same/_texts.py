"""More of the Same on texts a user already has: the columns it reads and the
analysis of a table (who is represented and how), with the notes of what was read."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gasp.io import TableRole, TextTable

TABLE_ROLES = (
    TableRole("text", "the persona or biography"),
    TableRole("subject", "the occupation the text is about"),
    TableRole("template", "the prompt template id"),
    TableRole("condition", "the gender the prompt named: unspecified, woman, man or nonbinary"),
    TableRole("sample_index", "the text's number among repeats of one prompt", False),
    TableRole("item_id", "the prompt's id (default: one per subject, template, condition)", False),
)


def analyze_texts_step(
    texts: TextTable, results: Path, options: Mapping[str, Any]
) -> dict[str, Any]:
    """The analysis of a user's texts, saved to ``results``; the BLS figures are those
    of the built-in study's occupations."""
    from gasp.studies.more_of_the_same._load import load_study
    from gasp.studies.more_of_the_same._model import STUDY_KIND
    from gasp.studies.more_of_the_same._steps import analysis_overrides
    from gasp.studies.more_of_the_same._summary import audit_summary
    from gasp.studies.more_of_the_same.analysis import analysis_config_for_run, analyze_samples

    config = analysis_config_for_run(None, **analysis_overrides(options))
    frame, model = texts.frame, texts.model()
    if model is not None and "model_id" not in frame.columns:
        frame = frame.assign(model_id=model)  # the column the analysis names its model by
    audit = analyze_samples(frame, load_study(STUDY_KIND), config)
    audit.meta["study_kind"] = STUDY_KIND
    audit.meta["source_table"] = texts.source
    audit.meta["settings"]["input"] = texts.record()
    folder = audit.save(results)
    return {"lines": [*texts.notes, *audit_summary(audit), f"results written to {folder}"]}
