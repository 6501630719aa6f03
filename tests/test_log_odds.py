import math

import numpy as np

from gasp.stats import log_odds_z


def _reference(
    y_t: list[float], y_o: list[float], a_t: list[float], a_o: list[float]
) -> list[float]:
    """A plain per-word loop of the Monroe et al. formula."""
    n_t, n_o, big_a_t, big_a_o = sum(y_t), sum(y_o), sum(a_t), sum(a_o)
    out = []
    for w in range(len(y_t)):
        l1 = (y_t[w] + a_t[w]) / (n_t + big_a_t - y_t[w] - a_t[w])
        l2 = (y_o[w] + a_o[w]) / (n_o + big_a_o - y_o[w] - a_o[w])
        var = 1 / (y_t[w] + a_t[w]) + 1 / (y_o[w] + a_o[w])
        out.append((math.log(l1) - math.log(l2)) / math.sqrt(var))
    return out


def test_matches_hand_computed_value() -> None:
    # target [2, 0], other [0, 2], prior [2, 2]:
    # word 0: l1 = 4 / (2 + 4 - 4) = 2, l2 = 2 / (2 + 4 - 2) = 0.5, var = 1/4 + 1/2
    z = log_odds_z(np.array([2, 0]), np.array([0, 2]), np.array([2, 2]))
    expected0 = (math.log(2) - math.log(0.5)) / math.sqrt(0.75)
    assert z[0] == expected0
    assert z[1] == -expected0


def test_matches_reference_loop_and_broadcasts() -> None:
    rng = np.random.default_rng(0)
    y_t = rng.integers(0, 20, size=50).astype(float)
    y_o = rng.integers(0, 20, size=50).astype(float)
    a_t = rng.random(50) * 5 + 0.1
    a_o = rng.random(50) * 5 + 0.1
    z = log_odds_z(y_t, y_o, a_t, a_o)
    np.testing.assert_allclose(
        z, _reference(list(y_t), list(y_o), list(a_t), list(a_o)), atol=1e-12
    )
    batch = log_odds_z(
        np.stack([y_t, y_o]), np.stack([y_o, y_t]), np.stack([a_t, a_o]), np.stack([a_o, a_t])
    )
    np.testing.assert_allclose(batch[0], z, atol=1e-12)
    np.testing.assert_allclose(batch[1], -z, atol=1e-12)


def test_word_without_mass_is_nan() -> None:
    z = log_odds_z(np.array([1.0, 0.0]), np.array([1.0, 0.0]), np.array([1.0, 0.0]))
    assert np.isnan(z[1])
