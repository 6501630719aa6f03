"""Figure legends never cover plotted data: every report figure with a legend is drawn from
tables that fill its axes, and the legend's box must not overlap any plotted artist's box."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import Collection, LineCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.transforms import Bbox

from gasp.report import new_figure, outside_legend
from gasp.studies.marked_personas.report import _figures as personas
from gasp.studies.more_of_the_same.report import _figures as mots
from gasp.studies.occugender.report import _figures as occugender
from gasp.studies.pronoun_pairs.report import _narratives as narratives
from gasp.studies.pronoun_pairs.report import _pairs as pairs

RNG = np.random.default_rng(7)
PROFESSIONS = [f"profession number {i}" for i in range(20)]
TEMPLATES = ["late", "cake", "marriage", "award", "cash", "book borrower", "book owner"]
MODELS = ["openai/gpt-4o-mini-2024-07-18", "anthropic/claude-3-5-haiku", "local/llama-3.1-8b"]


def _line_boxes(line: Line2D) -> Iterator[Bbox]:
    xy = line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float))
    xy = xy[np.isfinite(xy).all(axis=1)]
    if len(xy):
        pad = line.get_markersize() * line.figure.dpi / 72 / 2 if line.get_marker() else 0.0
        yield Bbox([xy.min(axis=0) - pad, xy.max(axis=0) + pad])


def _collection_boxes(coll: Collection) -> Iterator[Bbox]:
    if isinstance(coll, LineCollection):
        for path in coll.get_paths():
            yield path.transformed(coll.get_transform()).get_extents()
        return
    offsets = coll.get_offset_transform().transform(np.asarray(coll.get_offsets(), dtype=float))
    given = np.asarray(getattr(coll, "get_sizes", lambda: [])(), dtype=float)
    sizes = given if len(given) else np.array([36.0])
    pad = float(np.sqrt(sizes.max())) * coll.figure.dpi / 72 / 2
    for x, y in offsets[np.isfinite(offsets).all(axis=1)]:
        yield Bbox([[x - pad, y - pad], [x + pad, y + pad]])


def data_boxes(fig: Figure) -> list[Bbox]:
    """Display-space boxes of every plotted artist: bars, lines and markers (each point's
    marker, each error bar), scatter points, images and texts inside the axes."""
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    boxes: list[Bbox] = []
    for ax in fig.axes:
        boxes += [p.get_window_extent(renderer) for p in ax.patches]
        boxes += [im.get_window_extent(renderer) for im in ax.images]
        boxes += [t.get_window_extent(renderer) for t in ax.texts]
        for line in ax.lines:
            boxes += list(_line_boxes(line))
        for coll in ax.collections:
            boxes += list(_collection_boxes(coll))
    return [b for b in boxes if b.width > 0 or b.height > 0]


def overlaps(a: Bbox, b: Bbox, tolerance: float = 0.5) -> bool:
    """Whether the boxes share an area wider and taller than ``tolerance`` pixels."""
    width = min(a.x1, b.x1) - max(a.x0, b.x0)
    height = min(a.y1, b.y1) - max(a.y0, b.y0)
    return width > tolerance and height > tolerance


def legend_clashes(fig: Figure) -> list[Bbox]:
    """The plotted artists' boxes the figure's legends overlap (drawn at the report's dpi)."""
    FigureCanvasAgg(fig)
    fig.set_dpi(130)
    fig.canvas.draw()
    found = [*fig.legends, *(ax.get_legend() for ax in fig.axes)]
    legends = [leg for leg in found if leg is not None]
    assert legends, "the figure has no legend to check"
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    boxes = data_boxes(fig)
    assert boxes, "the figure has no plotted artists to check"
    return [b for leg in legends for b in boxes if overlaps(leg.get_window_extent(renderer), b)]


# -- tables that fill the axes ----------------------------------------------------


def _table3(models: list[str] = MODELS, templates: list[str] = TEMPLATES) -> pd.DataFrame:
    rows = []
    for model in models:
        for t in templates:
            v = float(RNG.uniform(0.85, 1.0))
            rows.append(
                {
                    "template": t,
                    "model": model,
                    "inconsistent": v,
                    "inconsistent_low": v - 0.1,
                    "inconsistent_high": min(1.0, v + 0.1),
                }
            )
    return pd.DataFrame(rows)


def _professions() -> pd.DataFrame:
    n = len(PROFESSIONS)
    return pd.DataFrame(
        {
            "profession": PROFESSIONS,
            "inconsistent": np.full(n, 30),
            "chosen_under_he": np.full(n, 29),
            "chosen_under_she": np.full(n, 30),
        }
    )


def _shares() -> pd.DataFrame:
    female = RNG.uniform(0, 1, len(PROFESSIONS))
    male = (1 - female) * RNG.uniform(0, 1, len(PROFESSIONS))
    return pd.DataFrame(
        {
            "profession": PROFESSIONS,
            "template": "Overall",
            "female_share": female,
            "male_share": male,
            "unknown_share": 1 - female - male,
        }
    )


def _representation() -> pd.DataFrame:
    rows = []
    for i, s in enumerate(PROFESSIONS):
        base = 100 * i / (len(PROFESSIONS) - 1)
        for t in ("all", "t1", "t2", "t3"):
            rows.append(
                {
                    "subject": s,
                    "template": t,
                    "pct_female": 100 - base,
                    "se_F": 0.05,
                    "bls_pct_female": base,
                    "share_N": 0.05 + 0.9 * i / len(PROFESSIONS),
                    "se_N": 0.02,
                }
            )
    return pd.DataFrame(rows)


def _deciles() -> pd.DataFrame:
    rows = [
        {
            "measure": "female",
            "template": t,
            "bls_group": g,
            "bin_label": f"{10 * b}-{10 * b + 10}",
            "bin_low": 10 * b,
            "n_subjects": 9,
        }
        for t in ("t1", "t2", "t3")
        for g in ("male-dominated", "female-dominated")
        for b in range(10)
    ]
    return pd.DataFrame(rows)


def _jobs() -> pd.DataFrame:
    x = np.linspace(0, 100, 40)
    return pd.DataFrame(
        {
            "condition": "none",
            "task": np.repeat(["choice", "pronoun"], 20),
            "group": np.tile(["female-dominated", "male-dominated"], 20),
            "bls_pct_female": x,
            "F": 100 - x,
        }
    )


FIGURES: dict[str, Callable[[], Figure | None]] = {
    "pronoun pairs: Figure 4": lambda: pairs.figure4(_table3()),
    "pronoun pairs: Figure 4, five long model names on a narrow figure": lambda: pairs.figure4(
        _table3([f"{m}-variant-{i}" for i, m in enumerate(MODELS + MODELS[:2])], TEMPLATES[:2])
    ),
    "pronoun pairs: professions": lambda: pairs.profession_figure(_professions()),
    "narratives: protagonist genders": lambda: narratives.share_figure(_shares()),
    "more of the same: representation": lambda: mots.representation_figure(_representation()),
    "more of the same: by template": lambda: mots.representation_by_template_figure(
        _representation()
    ),
    "more of the same: deciles": lambda: mots.deciles_figure(_deciles(), per_template=True),
    "more of the same: non-binary": lambda: mots.nonbinary_figure(_representation()),
    "more of the same: silhouette": lambda: mots.silhouette_figure(
        pd.DataFrame(
            {"k": range(2, 12), "silhouette": RNG.uniform(0, 1, 10), "chosen": False}
        ).assign(chosen=lambda d: d["k"] == 5)
    ),
    "more of the same: percent change": lambda: mots.percent_change_figure(
        pd.DataFrame(
            {
                "subject": np.repeat(PROFESSIONS, 2),
                "gender": ["F", "M"] * len(PROFESSIONS),
                "percent_change": RNG.uniform(-100, 100, 2 * len(PROFESSIONS)),
            }
        )
    ),
    "marked personas: lexicon rates": lambda: personas.figure_lexicon_rates(
        pd.DataFrame(
            {
                "counting": "tokens",
                "lexicon": ["Black", "Black", "White", "White"],
                "group": ["Black", "White", "Black", "White"],
                "mean_pct": [2.0, 1.9, 2.0, 1.95],
                "se_pct": [0.1, 0.1, 0.1, 0.1],
            }
        )
    ),
    "marked personas: lexicon words": lambda: personas.figure_lexicon_words(
        pd.DataFrame(
            {
                "lexicon": "Black",
                "group": np.tile(["Black", "White"], 8),
                "word": np.repeat([f"word{i}" for i in range(8)], 2),
                "occurrences": 5,
                "share_containing": RNG.uniform(0.8, 1.0, 16),
            }
        )
    ),
    "marked personas: SVM": lambda: personas.figure_svm(
        pd.DataFrame(
            {
                "group": [f"group {i}" for i in range(8)],
                "accuracy": RNG.uniform(0.9, 1.0, 8),
                "baseline": RNG.uniform(0.0, 1.0, 8),
                "balanced_accuracy": RNG.uniform(0.0, 1.0, 8),
            }
        )
    ),
    "occugender: jobs": lambda: occugender.jobs_figure(_jobs(), "none", False),
}


@pytest.mark.parametrize("name", list(FIGURES))
def test_the_legend_covers_no_plotted_data(name: str) -> None:
    fig = FIGURES[name]()
    assert fig is not None
    assert legend_clashes(fig) == []
    for legend in fig.legends:  # and the legend is within the figure, nothing cut off
        box = legend.get_window_extent()
        assert box.x0 >= 0 and box.x1 <= fig.bbox.width and box.y1 <= fig.bbox.height


def test_the_check_finds_a_legend_over_data() -> None:
    fig = new_figure(4, 3)
    ax = fig.add_subplot()
    ax.bar(range(5), [1, 1, 1, 1, 1], width=1.0, label="bars")
    ax.legend(loc="center")
    assert legend_clashes(fig)
    fig = new_figure(4, 3)
    fig.add_subplot().bar(range(5), [1, 1, 1, 1, 1], width=1.0, label="bars")
    outside_legend(fig)
    assert legend_clashes(fig) == []


def test_outside_legend_lists_a_label_once_and_fits_the_width() -> None:
    fig = new_figure(6, 3)
    for ax in fig.subplots(1, 2):
        ax.plot([0, 1], [0, 1], label="same label")
        ax.plot([0, 1], [1, 0], label="other")
    legend = outside_legend(fig)
    assert legend is not None
    assert [t.get_text() for t in legend.get_texts()] == ["same label", "other"]
    fig.canvas.draw()
    box = legend.get_window_extent()
    assert box.x0 >= 0 and box.x1 <= fig.bbox.width
    empty = new_figure(3, 2)
    empty.add_subplot().plot([0, 1], [0, 1])
    assert outside_legend(empty) is None
