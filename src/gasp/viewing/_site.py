"""The browser's pages by name: one flat folder of ``.html`` names, the same for the live
server and for a static export, so links work both ways.

``index.html``, ``releases.html``, ``audit-<id>.html``, ``run-<id>.html``,
``releases-<study>--<metric>.html``, ``words-<run>-<hex word>-<page>.html``,
``stories-<run>-<gender>-<page>.html``, ``job-<run>-<hex job>-<page>.html`` and
``pairs-<audit>-<i>-<j>-<all|differ>-<page>.html``. A name that matches no page, or
names a run or audit not found under the folders, is None (a 404).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from gasp.errors import GaspError
from gasp.viewing._catalog import Catalog
from gasp.viewing._charts import metric_choices, releases
from gasp.viewing._html import document, error_box, esc, json_script, link
from gasp.viewing._pages import audit_page, index_page
from gasp.viewing._run_pages import (
    STORY_GENDERS,
    job_view,
    pairs_view,
    run_page,
    stories_view,
    words_page,
)

_KEY = r"[0-9a-f]{12}"
_SLUG = r"[A-Za-z0-9_.-]{1,100}"
_MAX_PAGE = 10**7


def _unhex(text: str) -> str | None:
    try:
        return bytes.fromhex(text).decode("utf-8")
    except ValueError:
        return None


class Site:
    """Renders the pages of the runs and audits under ``roots``."""

    def __init__(self, roots: list[Path], *, live: bool = True) -> None:
        self.catalog = Catalog(roots)
        self.live = live
        self._routes: list[tuple[re.Pattern[str], Callable[..., str | None]]] = [
            (re.compile(r"index\.html"), self._index),
            (re.compile(r"releases\.html"), self._releases_index),
            (re.compile(rf"audit-({_KEY})\.html"), self._audit),
            (re.compile(rf"run-({_KEY})\.html"), self._run),
            (re.compile(rf"releases-({_SLUG})--({_SLUG})\.html"), self._releases),
            (re.compile(rf"words-({_KEY})-([0-9a-f]{{2,400}})-([1-9][0-9]*)\.html"), self._words),
            (re.compile(rf"stories-({_KEY})-(all|F|M|unknown)-([1-9][0-9]*)\.html"), self._stories),
            (re.compile(rf"job-({_KEY})-([0-9a-f]{{2,400}})-([1-9][0-9]*)\.html"), self._job),
            (
                re.compile(rf"pairs-({_KEY})-([0-9]+)-([0-9]+)-(all|differ)-([1-9][0-9]*)\.html"),
                self._pairs,
            ),
        ]

    def scan(self) -> Catalog:
        """Look at the folders again."""
        return self.catalog.scan()

    def render(self, name: str) -> str | None:
        """The page ``name`` (see the module docstring), or None where there is none."""
        for pattern, handler in self._routes:
            found = pattern.fullmatch(name)
            if found:
                try:
                    return handler(*found.groups())
                except (GaspError, OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
                    # saved files of another shape than expected: said on the page, no crash
                    message = f"this page could not be made from the saved files: {exc!r}"
                    return document("Cannot show this page", error_box(message), live=self.live)
        return None

    def _index(self) -> str:
        return index_page(self.catalog, live=self.live)

    def _audit(self, key: str) -> str | None:
        audit = self.catalog.audits.get(key)
        return None if audit is None else audit_page(audit, self.catalog, live=self.live)

    def _run(self, key: str) -> str | None:
        run = self.catalog.runs.get(key)
        return None if run is None else run_page(run, self.catalog, live=self.live)

    def _words(self, key: str, word: str, page: str) -> str | None:
        run, text = self.catalog.runs.get(key), _unhex(word)
        if run is None or text is None or int(page) > _MAX_PAGE:
            return None
        return words_page(run, text, int(page), live=self.live)

    def _stories(self, key: str, gender: str, page: str) -> str | None:
        run = self.catalog.runs.get(key)
        if run is None or run.study != "narratives" or gender not in STORY_GENDERS:
            return None
        return stories_view(run, gender, min(int(page), _MAX_PAGE), live=self.live)

    def _job(self, key: str, job: str, page: str) -> str | None:
        run, text = self.catalog.runs.get(key), _unhex(job)
        if run is None or text is None or run.study != "occugender":
            return None
        return job_view(run, text, min(int(page), _MAX_PAGE), live=self.live)

    def _pairs(self, key: str, left: str, right: str, which: str, page: str) -> str | None:
        audit = self.catalog.audits.get(key)
        if audit is None:
            return None
        i, j = int(left), int(right)
        if not (i < len(audit.models) and j < len(audit.models)) or i == j:
            return None
        return pairs_view(
            audit, self.catalog, i, j, which, min(int(page), _MAX_PAGE), live=self.live
        )

    def _releases_index(self) -> str:
        choices = metric_choices(self.catalog)
        items = "".join(
            f"<li>{link(f'releases-{s}--{m}.html', f'{s} · {m}')} ({n} audits and runs)</li>"
            for s, m, n in choices
        )
        body = (
            "<p>Each chart puts every audit and run of a study on one axis, in time order: "
            "each model's value with its interval, and the differences an audit tested "
            "and called significant marked.</p>"
            + (f"<ul>{items}</ul>" if items else "<p>No saved headline metric found.</p>")
        )
        return document("Releases over time", body, live=self.live)

    def _releases(self, study: str, metric: str) -> str | None:
        data = releases(self.catalog, study, metric)
        if not data["sources"]:
            return None
        boxes = "".join(
            f'<label class="pick"><input type="checkbox" data-source="{esc(s["key"])}" checked> '
            f"{esc(s['date'][:19].replace('T', ' '))} {link(s['href'], s['label'])}</label>"
            for s in data["sources"]
        )
        body = (
            "<p>Audits and runs to include:</p>"
            f'<div class="controls picks">{boxes}</div>'
            '<figure class="chart"><div class="plot" id="releases" data-releases="releases-data">'
            "</div></figure>"
            + json_script("releases-data", data)
            + "<p>Points: each model's value in each audit or run, with its interval where the "
            "study saved one; a ring marks a difference the audit tested and called "
            "significant (its verdict in the hover text).</p>"
        )
        return document(
            f"Releases over time: {study} · {metric}", body, charts=True, live=self.live
        )

    def page_names(self) -> list[str]:
        """Every page reachable from the index (first pages of paginated views), for an export."""
        names = ["index.html", "releases.html"]
        names += [f"audit-{k}.html" for k in self.catalog.audits]
        names += [f"run-{k}.html" for k in self.catalog.runs]
        names += [f"releases-{s}--{m}.html" for s, m, _ in metric_choices(self.catalog)]
        return names


__all__ = ["Site"]
