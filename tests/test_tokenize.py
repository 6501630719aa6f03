import numpy as np

from gasp.text import count_words, tokenize


def test_tokenize_strips_non_letters_and_lowercases() -> None:
    assert tokenize("Almond-shaped eyes; she's 5'10\"  TALL!") == [
        "almondshaped",
        "eyes",
        "shes",
        "tall",
    ]


def test_tokenize_drops_empty_tokens() -> None:
    assert tokenize(" -- 123 ... ") == []
    assert tokenize("") == []


def test_count_words_matrix_and_vocabulary() -> None:
    counts = count_words(["a b b", "b c", ""])
    assert list(counts.vocabulary) == ["a", "b", "c"]
    assert counts.matrix.toarray().tolist() == [[1, 2, 0], [0, 1, 1], [0, 0, 0]]
    np.testing.assert_array_equal(counts.totals(), [1, 3, 1])
    np.testing.assert_array_equal(counts.totals(np.array([False, True, True])), [0, 1, 1])
    np.testing.assert_array_equal(counts.index_of(["c", "zz", "a"]), [2, -1, 0])
    np.testing.assert_array_equal(counts.word_counts(["b", "zz"]), [[2, 0], [1, 0], [0, 0]])


def test_count_words_all_empty() -> None:
    counts = count_words(["", "!!"])
    assert counts.matrix.shape == (2, 0)
    np.testing.assert_array_equal(counts.word_counts(["she"]), [[0], [0]])
