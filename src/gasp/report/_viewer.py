"""The wording of the text viewer (the panel that opens the saved texts behind a word or number).

The viewer's script knows no study: every sentence and label it shows comes from a
:class:`ViewerText` embedded in the page as JSON. The defaults speak of words found in
generations and of named and associated genders (the Gender Association Method's
studies); a study whose texts are opened by something else (a table cell, a name)
passes its own wording to :class:`gasp.report.ReportWriter`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class ViewerText:
    """Labels of the text viewer and of the look-up box above the page.

    ``title`` and ``summary`` may hold ``{key}`` (what was clicked), ``{cap}`` (texts
    kept per key) and ``{per_page}``; the script fills them in. Above each text a line
    shows ``template`` before the document's template, ``named`` before its named
    group and ``associated`` before its associated group; ``not_named`` and
    ``not_associated`` are shown whole where the document has no such group (an empty
    one shows nothing). An empty label leaves its part out, and an empty ``lookup``
    hides the look-up box.
    """

    title: str = "\u201c{key}\u201d in the generations"
    summary: str = (
        "Generations containing the word (highlighted), by the gender named in the prompt "
        "or, where none was named, the gender the generation was associated with. Counts "
        "are all matching generations; up to {cap} are kept per word, shared among the "
        "groups, {per_page} per page."
    )
    missing: str = "No example generations are stored for this word."
    template: str = "template"
    named: str = "named gender"
    not_named: str = "gender not named"
    associated: str = "associated gender"
    not_associated: str = "associated gender: none"
    lookup: str = "Look up a word:"
    lookup_placeholder: str = "e.g. empathy"
    lookup_button: str = "Show generations"

    def to_json(self) -> dict[str, str]:
        """The labels the page's script reads (every field, by name)."""
        return asdict(self)
