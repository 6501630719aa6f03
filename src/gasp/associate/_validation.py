"""Validation of the Gender Association Method on texts whose gender is named (seed ``000``).

Table 1 of seed ``000`` reports, for generations whose prompt names the gender, the
share of texts associated with the named gender (correct), with another gender
(incorrect) and with none (not captured). :func:`validate_association` computes the
same three rates per named gender and the full confusion matrix.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from gasp.associate._gender import GENDER_LABELS, GenderAssociation, associate_genders
from gasp.errors import DataError

UNASSIGNED = "unassigned"


@dataclass(frozen=True)
class AssociationValidation:
    """Rates and confusion matrix of the associated against the named gender.

    ``rates`` has one row per named gender (index ``F``, ``M``, ``N`` where present)
    and the columns ``n`` (texts), ``correct``, ``incorrect``, ``unassigned`` (shares of
    all texts of that gender, summing to one) and ``correct_among_assigned``
    (``correct / (correct + incorrect)``, NaN when nothing was assigned).
    ``confusion`` counts texts per named gender (rows) and associated gender (columns
    ``F``, ``M``, ``N``, ``unassigned``). ``association`` holds the per-text decisions.
    """

    rates: pd.DataFrame
    confusion: pd.DataFrame
    association: GenderAssociation

    @property
    def accuracy(self) -> float:
        """Share of all texts associated with their named gender."""
        total = int(self.confusion.to_numpy().sum())
        correct = sum(
            int(self.confusion.loc[g, g]) for g in self.confusion.index if g in GENDER_LABELS
        )
        return correct / total if total else float("nan")


def _confusion(named: pd.Series, associated: pd.Series) -> pd.DataFrame:
    present = [g for g in GENDER_LABELS if (named == g).any()]
    confusion = pd.crosstab(named, associated.fillna(UNASSIGNED))
    confusion = confusion.reindex(
        index=present, columns=[*GENDER_LABELS, UNASSIGNED], fill_value=0
    ).astype(np.int64)
    confusion.index.name = "named"
    confusion.columns.name = "associated"
    return confusion


def _rates(confusion: pd.DataFrame) -> pd.DataFrame:
    n = confusion.sum(axis=1)
    correct = pd.Series(
        [confusion.loc[g, g] for g in confusion.index], index=confusion.index, dtype=np.int64
    )
    unassigned = confusion[UNASSIGNED]
    incorrect = n - correct - unassigned
    assigned = correct + incorrect
    rates = pd.DataFrame(
        {
            "n": n.astype(np.int64),
            "correct": correct / n,
            "incorrect": incorrect / n,
            "unassigned": unassigned / n,
            "correct_among_assigned": (correct / assigned.where(assigned > 0)).astype(float),
        }
    )
    rates.index.name = "named"
    return rates


def validate_association(
    texts: Sequence[str], named_genders: Sequence[str]
) -> AssociationValidation:
    """Compare the Gender Association Method's decisions with the gender each prompt named.

    ``named_genders`` holds ``F``, ``M`` or ``N`` per text. Returns the correct /
    incorrect / unassigned rates per named gender (Table 1 of seed ``000``) and the
    confusion matrix. Raises :class:`~gasp.errors.DataError` for mismatched lengths,
    no texts, or a label other than ``F``, ``M``, ``N``.
    """
    texts_list = list(texts)
    named = pd.Series(list(named_genders), dtype=object, name="named")
    if len(texts_list) != len(named):
        raise DataError(
            f"{len(texts_list)} texts but {len(named)} named genders: one gender per text needed"
        )
    if not texts_list:
        raise DataError("no texts to validate the gender association on")
    unknown = sorted(set(named.dropna().astype(str)) - set(GENDER_LABELS)) + (
        ["missing"] if named.isna().any() else []
    )
    if unknown:
        raise DataError(f"named genders must be F, M or N; found {', '.join(unknown)}")
    association = associate_genders(texts_list)
    associated = association.genders.reset_index(drop=True).rename("associated")
    confusion = _confusion(named, associated)
    return AssociationValidation(
        rates=_rates(confusion), confusion=confusion, association=association
    )
