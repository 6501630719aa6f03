"""The generations analysed: from a run store or a user's table, one row per text with
its axis values, template, kind (persona or story) and group; refusals flagged.

A user's table needs the columns ``text``, ``prompt`` and one column per axis (the
built-in study: ``race`` and ``gender``, valued as in the published data); each row's
template and kind are derived from its prompt text (the published ``prompt_num`` is
often empty), and a ``template`` column the table already has is kept where filled.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from gasp.errors import DataError
from gasp.studies.marked_personas._model import PERSONA, MarkedPersonasStudy

#: Refusal pattern of Appendix D.3 (case-insensitive substring).
DEFAULT_REFUSAL_PATTERNS = ("language model",)
CUSTOM_TEMPLATE = "custom"


def prepare(frame: pd.DataFrame, study: MarkedPersonasStudy) -> pd.DataFrame:
    """Rows with ``text``, the axis columns (as strings), ``template``, ``text_kind`` and
    ``group``; rows without text dropped. Unknown axis values are kept as they are."""
    missing = [c for c in ("text", *(a.name for a in study.axes)) if c not in frame]
    if missing:
        raise DataError(
            f"the generations lack the column {missing[0]!r} "
            f"(needed: text, prompt, {', '.join(a.name for a in study.axes)})"
        )
    out = frame.copy()
    out = out[out["text"].notna() & (out["text"].astype(str).str.strip() != "")]
    out["text"] = out["text"].astype(str)
    for axis in study.axes:
        out[axis.name] = out[axis.name].astype(str)
    if "prompt" not in out:
        out["prompt"] = ""
    derived = [study.template_of(p) for p in out["prompt"].fillna("").astype(str)]
    kinds = {t.id: t.kind for t in study.prompts}
    given = out["template"] if "template" in out else pd.Series([None] * len(out), index=out.index)
    templates = []
    for g, d in zip(given.tolist(), derived, strict=True):
        if isinstance(g, str) and g.strip():
            templates.append(g.strip())
        else:
            templates.append(d[0] if d else CUSTOM_TEMPLATE)
    out["template"] = templates
    out["text_kind"] = [kinds.get(t, PERSONA) for t in templates]
    labels = {a.name: {v.value: v.label for v in a.values} for a in study.axes}
    out["group"] = [
        " ".join(labels[a.name].get(v, v) for a, v in zip(study.axes, row, strict=True))
        for row in out[[a.name for a in study.axes]].itertuples(index=False, name=None)
    ]
    return out.reset_index(drop=True)


def refusal_mask(texts: Sequence[str], patterns: Sequence[str]) -> np.ndarray:
    """Texts containing any pattern (case-insensitive substrings)."""
    if not patterns:
        return np.zeros(len(texts), dtype=bool)
    regex = re.compile("|".join(re.escape(p) for p in patterns), re.IGNORECASE)
    return np.array([bool(regex.search(str(t))) for t in texts], dtype=bool)


def refusal_table(
    frame: pd.DataFrame, refused: np.ndarray, study: MarkedPersonasStudy
) -> pd.DataFrame:
    """Per kind and template (in study order): texts, refusals and their share."""
    order = {t.id: i for i, t in enumerate(study.prompts)}
    rows = []
    for (kind, template), sub in frame.groupby(["text_kind", "template"], sort=False):
        r = refused[sub.index.to_numpy()]
        rows.append(
            {
                "kind": kind,
                "template": template,
                "texts": len(sub),
                "refusals": int(r.sum()),
                "share": float(r.mean()) if len(r) else 0.0,
            }
        )
    table = pd.DataFrame(rows, columns=["kind", "template", "texts", "refusals", "share"])
    key = table["template"].map(lambda t: order.get(t, len(order)))
    return (
        table.assign(_o=key).sort_values(["kind", "_o"]).drop(columns="_o").reset_index(drop=True)
    )


def store_frame(store: Path) -> tuple[pd.DataFrame, dict[str, object]]:
    """The generations of a run store and its manifest."""
    from gasp.store import RunStore

    with RunStore.open(store) as run:
        samples = run.samples()
        manifest = run.manifest()
    if samples.empty:
        raise DataError(f"{store} holds no generations yet; run `gasp generate` first")
    return samples, dict(manifest or {})
