"""``gasp view``: a local, read-only browser over every run and audit under some folders.

:func:`view` serves it (Starlette on uvicorn, bound to 127.0.0.1 unless another host is
asked for) or, with ``export``, writes it as a static site that opens from disk;
:func:`build_app` gives the ASGI application itself (tests, other servers). Pages:
the index of runs and audits (status, live progress, headline metrics; sort, filter,
search), each audit's scorecard with forest plots, each metric's releases over time,
and the texts behind a number (a word's generations, a narrative's stories, two
models' pronoun-pair answers side by side, an OccuGender job's scored expressions),
paginated from the run stores. Charts are drawn by Plotly, whose script comes from
the installed ``plotly`` package: nothing is fetched from the network. Nothing under
the folders is ever written.

The public ``gasp.view`` is :func:`view`; the package is named ``viewing`` so that
importing it never replaces that function on ``gasp`` (as ``gasp.auditing`` keeps
``gasp.audit`` a function).
"""

from gasp.viewing._app import build_app
from gasp.viewing._catalog import Audit, Catalog, Run
from gasp.viewing._export import MAX_PAGES, export_site
from gasp.viewing._serve import LOCAL_HOST, view
from gasp.viewing._site import Site

__all__ = [
    "LOCAL_HOST",
    "MAX_PAGES",
    "Audit",
    "Catalog",
    "Run",
    "Site",
    "build_app",
    "export_site",
    "view",
]
