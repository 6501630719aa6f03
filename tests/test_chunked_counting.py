"""Counting words a chunk at a time gives exactly the counts and results of counting at once.

The reference is the single-pass counting the package used before (scikit-learn's
``CountVectorizer`` with the package's tokenizer), kept here as the oracle.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer

from _analysis_helpers import PLANTED, random_embeddings
from gasp.associate import associate_counts
from gasp.errors import DataError
from gasp.results import build_example_index
from gasp.store import ItemRecord, RunStore, SampleRecord
from gasp.studies.more_of_the_same.analysis import AnalysisConfig, analyze_samples
from gasp.studies.more_of_the_same.analysis import _prepare as prepare_module
from gasp.studies.more_of_the_same.analysis._synthetic import synthetic_samples
from gasp.text import DocTermCounts, count_words, normalize, normalize_many

TRICKY = [
    "She's a NURSE; he is 2 good_ones!",
    "",
    None,
    "ΟΔΟΣ ΣΑΣ Σ σ",  # final sigma depends on the letters around it
    "İstanbul café — naïve\u00a0co-op",
    "record\x1eseparator inside",
    "line\u2028separator\x1cand\x1dunit",
    "   \t\n ",
    "½ ² 3rd ⅷ",
    "e\u0301te\u0301 déjà vu",
    "they/them nonbinary Ms. Smith",
    42,
]


def reference_counts(texts: list[object]) -> DocTermCounts:
    """The counts as the package computed them in one pass (the oracle)."""
    vectorizer = CountVectorizer(
        lowercase=False,
        preprocessor=normalize,
        tokenizer=str.split,
        token_pattern=None,
        dtype=np.int64,
    )
    plain = [t if isinstance(t, str) else "" for t in texts]
    try:
        matrix = vectorizer.fit_transform(plain).tocsr()
    except ValueError:
        return DocTermCounts(sp.csr_matrix((len(plain), 0), dtype=np.int64), np.array([], object))
    vocabulary = np.asarray(vectorizer.get_feature_names_out(), dtype=object)
    order = np.argsort(vocabulary)
    return DocTermCounts(matrix=matrix[:, order], vocabulary=vocabulary[order])


def assert_same_counts(got: DocTermCounts, want: DocTermCounts) -> None:
    assert got.vocabulary.tolist() == want.vocabulary.tolist()
    assert got.matrix.shape == want.matrix.shape
    assert got.matrix.dtype == np.int64
    assert (got.matrix != want.matrix).nnz == 0
    assert got.matrix.has_sorted_indices


def test_normalize_many_is_normalize_of_each_text() -> None:
    texts = [t for t in TRICKY if isinstance(t, str)] * 3
    assert normalize_many(texts) == [normalize(t) for t in texts]
    ascii_only = ["A-b c_d 9!", "x\x1cy\x0bz", "Hello, World."]
    assert normalize_many(ascii_only) == [normalize(t) for t in ascii_only]


@pytest.mark.parametrize("chunk_size", [1, 2, 7, 1000])
def test_chunked_counts_equal_the_single_pass(chunk_size: int) -> None:
    texts = TRICKY * 3
    assert_same_counts(count_words(texts, chunk_size=chunk_size), reference_counts(texts))


def test_counts_of_a_column_and_a_generator() -> None:
    texts = synthetic_samples(2, n_unspecified=30, n_named=10, seed=3)["text"]
    want = reference_counts(texts.tolist())
    assert_same_counts(count_words(texts, chunk_size=7), want)
    assert_same_counts(count_words((t for t in texts), chunk_size=7), want)
    assert_same_counts(count_words(texts.astype(object).tolist()), want)


def test_counts_without_words() -> None:
    texts = ["", None, "!!"]
    assert_same_counts(count_words(texts, chunk_size=2), reference_counts(texts))
    assert count_words([]).matrix.shape == (0, 0)
    with pytest.raises(ValueError):
        count_words(["a"], chunk_size=0)


def test_association_of_a_column_equals_that_of_a_list() -> None:
    texts = [t for t in TRICKY if isinstance(t, str)] * 2
    counts = count_words(texts)
    from_list = associate_counts(texts, counts).table
    from_column = associate_counts(pd.Series(texts, dtype="str"), counts).table
    pd.testing.assert_frame_equal(from_list, from_column)


def test_analysis_results_are_unchanged_by_chunked_counting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    samples = synthetic_samples(
        3, n_unspecified=120, n_named=50, seed=5, planted=PLANTED, planted_rate=0.3
    )
    config = AnalysisConfig(min_samples=20, n_bootstrap=3, n_permutations=4)
    embeddings = random_embeddings()

    def run(counter: object) -> object:
        monkeypatch.setattr(prepare_module, "count_words", counter)
        return analyze_samples(samples, config=config, embeddings=embeddings)

    before = run(lambda texts: reference_counts(list(texts)))
    after = run(lambda texts: count_words(texts, chunk_size=7))
    assert sorted(before.tables) == sorted(after.tables)
    assert len(before.tables["marked_words"]) > 0
    for name, table in before.tables.items():
        pd.testing.assert_frame_equal(table, after.tables[name], obj=name)
    assert before.examples == after.examples


def test_examples_from_a_column_match_those_from_counting_again() -> None:
    samples = synthetic_samples(2, n_unspecified=60, n_named=20, seed=8, planted=PLANTED)
    words = [*PLANTED["F"], *PLANTED["M"]]
    given = build_example_index(samples, words, cap=6, seed=1, counts=count_words(samples["text"]))
    recounted = build_example_index(samples.astype({"text": object}), words, cap=6, seed=1)
    assert given == recounted
    assert given["words"]


def _store(path: Path) -> RunStore:
    store = RunStore.open(path, create=True)
    store.write_items(
        [
            ItemRecord(f"item{i}", i, "generate", f"prompt {i}", {"subject": f"s{i}"})
            for i in range(3)
        ]
    )
    store.write_samples(
        SampleRecord(f"item{i % 3}", i // 3, None, f"text {i}", "stop") for i in range(20)
    )
    store.write_samples([SampleRecord("item0", 99, None, None, "error", error="boom")])
    return store


def test_store_reads_chosen_columns_in_chunks(tmp_path: Path) -> None:
    with _store(tmp_path / "run.sqlite") as store:
        whole = store.samples(include_errors=True)
        pd.testing.assert_frame_equal(store.samples(include_errors=True, chunk_size=7), whole)
        some = store.samples(include_errors=True, columns=["text", "error"], chunk_size=7)
        assert list(some.columns) == [
            "run_id", "study", "item_id", "subject", "sample_index", "text", "error",
        ]  # fmt: skip
        pd.testing.assert_frame_equal(some, whole[list(some.columns)])
        assert len(store.samples(columns=["text"])) == 20
        with pytest.raises(DataError, match="unknown sample column"):
            store.samples(columns=["nope"])


def test_word_spans_by_hand() -> None:
    from gasp.results import word_spans

    text = "She's a nurse; she is."
    assert word_spans(text, "she") == [15, 18]
    assert word_spans(text, "shes") == [0, 5]
    assert word_spans(text, "nurse") == [8, 14]
    assert word_spans("Café — she", "she") == [7, 10]
    assert word_spans("\U0001f600 she, She", "she") == [3, 7, 8, 11]  # the emoji is 2 units


def test_examples_keep_the_lowest_ranked_generations() -> None:
    samples = synthetic_samples(2, n_unspecified=80, n_named=30, seed=9, planted=PLANTED)
    counts = count_words(samples["text"])
    common = str(counts.vocabulary[int(np.argmax(counts.totals()))])
    index = build_example_index(samples, ["yoga", common], cap=5, seed=4)
    rank = np.random.default_rng(4).permutation(len(samples))
    texts = samples["text"].tolist()
    for entry in index["words"].values():
        for items in entry["g"].values():
            chosen = [index["docs"][doc][0] for doc, _ in items]
            ranks = [rank[texts.index(t)] for t in chosen]
            assert ranks == sorted(ranks)
    assert sum(len(v) for v in index["words"][common]["g"].values()) == 5


def test_first_ranked_is_the_sorted_prefix() -> None:
    from gasp.results._examples import _first_ranked

    rng = np.random.default_rng(2)
    rank = rng.permutation(1000)
    rows = rng.choice(1000, size=300, replace=False)
    for count in (0, 1, 5, 299, 300, 400):
        want = rows[np.argsort(rank[rows], kind="stable")[:count]]
        np.testing.assert_array_equal(_first_ranked(rows, rank, count), want)
