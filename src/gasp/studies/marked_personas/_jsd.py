"""Jensen-Shannon divergence word shift (Marked Personas, Section 3.2.1 and Appendix B).

The paper ranks words with Shifterator's JSD word shift (Gallagher et al. 2021), which
does not import on current Python; this is the same quantity in NumPy. With relative
frequencies ``p1`` (unmarked texts) and ``p2`` (marked texts), weights ``w1 = w2 =
1/2`` and the mixture ``m = w1 p1 + w2 p2``, the contribution of word ``i`` is

    w1 p1_i log2(p1_i / m_i) + w2 p2_i log2(p2_i / m_i)      (0 log 0 = 0),

which is Shifterator's ``p2_i s2_i - p1_i s1_i`` with its JSD type scores
``s1_i = w1 (log2 m_i - log2 p1_i)`` and ``s2_i = w2 (log2 p2_i - log2 m_i)``; the
contributions sum to the divergence. The top words of a marked group are the words
with the largest contributions among those more frequent in the marked texts.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def _xlogy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = np.zeros_like(x, dtype=np.float64)
    ok = x > 0
    out[ok] = x[ok] * np.log2(y[ok])
    return out


def jsd_contributions(
    counts_1: np.ndarray, counts_2: np.ndarray, weight_1: float = 0.5
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(contribution, p1, p2) of every word, from raw counts of the two systems."""
    c1 = np.asarray(counts_1, dtype=np.float64)
    c2 = np.asarray(counts_2, dtype=np.float64)
    p1 = c1 / c1.sum() if c1.sum() > 0 else c1
    p2 = c2 / c2.sum() if c2.sum() > 0 else c2
    w1, w2 = weight_1, 1.0 - weight_1
    m = w1 * p1 + w2 * p2
    safe_m = np.where(m > 0, m, 1.0)
    contribution = w1 * _xlogy(p1, p1 / safe_m) + w2 * _xlogy(p2, p2 / safe_m)
    return contribution, p1, p2


def jsd_top_words(
    vocabulary: np.ndarray, unmarked_counts: np.ndarray, marked_counts: np.ndarray, k: int = 10
) -> pd.DataFrame:
    """The ``k`` words of largest contribution among those more frequent in the marked
    texts: columns ``rank``, ``word``, ``contribution``, ``p_marked``, ``p_unmarked``."""
    contribution, p1, p2 = jsd_contributions(unmarked_counts, marked_counts)
    candidates = np.flatnonzero(p2 > p1)
    order = candidates[np.lexsort((np.asarray(vocabulary)[candidates], -contribution[candidates]))]
    top = order[:k]
    return pd.DataFrame(
        {
            "rank": np.arange(1, len(top) + 1),
            "word": np.asarray(vocabulary, dtype=object)[top],
            "contribution": contribution[top],
            "p_marked": p2[top],
            "p_unmarked": p1[top],
        }
    )
