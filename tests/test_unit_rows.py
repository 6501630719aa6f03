"""The one unit-vector helper of the package (``gasp.embeddings.unit_rows``)."""

from __future__ import annotations

import numpy as np
import pytest

from gasp.embeddings import unit_rows
from gasp.probe import unit_rows as probe_unit_rows


def test_rows_get_unit_length_and_zero_rows_stay_zero() -> None:
    x = np.array([[3.0, 4.0], [0.0, 0.0], [0.0, -2.0]])
    got = unit_rows(x)
    np.testing.assert_allclose(got, [[0.6, 0.8], [0.0, 0.0], [0.0, -1.0]])
    assert got.dtype == np.float64 and got.shape == x.shape
    assert np.isfinite(got).all()


def test_shapes_dtypes_and_input_untouched() -> None:
    ints = np.array([[1, 0, 0], [2, 2, 1]])
    got = unit_rows(ints)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), [1.0, 1.0])
    assert ints.tolist() == [[1, 0, 0], [2, 2, 1]]
    assert unit_rows(np.zeros((0, 5))).shape == (0, 5)
    np.testing.assert_allclose(unit_rows(np.array([0.0, 5.0])), [0.0, 1.0])
    np.testing.assert_allclose(unit_rows([[1.0, 1.0]]), [[2**-0.5, 2**-0.5]])
    with pytest.raises(ValueError):
        unit_rows(np.float64(3.0))


def test_probe_uses_the_same_helper() -> None:
    assert probe_unit_rows is unit_rows
