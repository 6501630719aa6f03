"""One-vs-rest SVMs (Marked Personas, Section 3.2.1): how separable the groups' texts are
and which words separate them.

Texts are lowercased, ``[^\\w\\s]`` is deleted and the pronoun, race and gender terms of
``data/svm_anonymizer.json`` are removed. Two anonymizers:

* ``paper``: as the authors' notebooks do it: pronoun terms as whole words, then race
  and gender terms as *substrings* (one regex alternation each, in list order), so
  ``person`` becomes ``per`` and ``blackness`` becomes ``ness``, as in the published
  tables;
* ``clean``: every term of the three lists as a whole word only (``*`` fragments
  match any word they begin), so no word is cut.

Features are raw word counts (``CountVectorizer(min_df=0.001)`` fitted on the training
texts of each split, which reproduces every published top word; fitted on all texts,
4 of the about 100 published SVM-only words fall just outside the top 10; the paper
says relative frequencies, but only raw counts reproduce its accuracy). For each
grouping (for example race, gender, race x gender) one stratified 80/20 split with a
fixed seed (42 by default: the split that reproduces the published top words word for
word); for each group of the grouping a linear
``SVC(C=1)`` of that group against the rest; its accuracy on the held-out 20%, the
majority-class baseline of that test set, the balanced accuracy, and the 10 words
with the largest positive coefficients.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd

from gasp.errors import ConfigError
from gasp.stats import SHARE_BOUNDS, IntervalScheme, mean_interval

ANONYMIZERS = ("paper", "clean")
_TOKEN = re.compile(r"(?u)\b\w\w+\b")


def _tokens(tokens: list[str]) -> list[str]:
    return tokens


_NON_WORD = re.compile(r"[^\w\s]")


@cache
def anonymizer_terms() -> dict[str, Any]:
    """The package's word lists (``pronoun_terms``, ``race_terms``, ``gender_terms``)."""
    path = resources.files("gasp.studies.marked_personas") / "data" / "svm_anonymizer.json"
    return dict(json.loads(path.read_text(encoding="utf-8")))


def _alternation(terms: Sequence[str]) -> str:
    return "|".join(terms)


@cache
def _paper_patterns() -> tuple[re.Pattern[str], ...]:
    lists = anonymizer_terms()
    pronouns = re.compile(r"\b(?:" + _alternation(lists["pronoun_terms"]) + r")\b")
    race = re.compile(_alternation(lists["race_terms"]))
    gender = re.compile(_alternation(lists["gender_terms"]))
    return pronouns, race, gender


@cache
def _clean_pattern() -> re.Pattern[str]:
    lists = anonymizer_terms()
    terms: set[str] = set()
    for key in ("pronoun_terms", "race_terms", "gender_terms"):
        for term in lists[key]:
            word = _NON_WORD.sub("", term.lower())
            if word.strip():
                terms.add(word + ("*" if term.endswith("*") else ""))
    parts = sorted(
        (re.escape(t[:-1]) + r"\w*" if t.endswith("*") else re.escape(t) for t in terms),
        key=len,
        reverse=True,
    )
    return re.compile(r"\b(?:" + "|".join(parts) + r")\b")


def anonymize(text: str, anonymizer: str = "paper") -> str:
    """``text`` lowercased, without ``[^\\w\\s]`` and without the anonymizer's terms."""
    clean = _NON_WORD.sub("", str(text).lower())
    if anonymizer == "paper":
        for pattern in _paper_patterns():
            clean = pattern.sub("", clean)
        return clean
    if anonymizer == "clean":
        return _clean_pattern().sub("", clean)
    raise ConfigError(f"unknown anonymizer {anonymizer!r}; use one of {', '.join(ANONYMIZERS)}")


@dataclass(frozen=True)
class SvmResult:
    """Accuracies (one row per classifier) and top words (one row per group and rank)."""

    accuracy: pd.DataFrame
    top_words: pd.DataFrame

    def summary(self) -> dict[str, float]:
        """Mean and SD (ddof 0) of the accuracies, baselines and balanced accuracies."""
        acc = self.accuracy
        if acc.empty:
            return {}
        return {
            "n_classifiers": len(acc),
            "accuracy_mean": float(acc["accuracy"].mean()),
            "accuracy_sd": float(acc["accuracy"].std(ddof=0)),
            "baseline_mean": float(acc["baseline"].mean()),
            "balanced_accuracy_mean": float(acc["balanced_accuracy"].mean()),
        }


def one_vs_rest_svm(
    texts: Sequence[str],
    groupings: Mapping[str, Sequence[str]],
    *,
    anonymizer: str = "paper",
    min_df: float = 0.001,
    test_size: float = 0.2,
    seed: int = 42,
    top_k: int = 10,
    label: Callable[[str], str] | None = None,
    scheme: IntervalScheme | None = None,
) -> SvmResult:
    """One-vs-rest linear SVMs for each grouping (name -> one group label per text).

    With ``scheme`` (a bootstrap of the held-out texts: accuracy is a mean of per-text
    hits) each accuracy gets ``accuracy_low`` and ``accuracy_high``, an interval for
    the accuracy of the fitted classifier on new texts (the split and fit held fixed).

    A grouping with a group of fewer than 2 texts, or with a single group, is left out
    (a stratified split needs two texts per group and a classifier two classes).
    """
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.model_selection import train_test_split
    from sklearn.svm import SVC

    # CountVectorizer's default tokens (two or more word characters), found once.
    docs = [_TOKEN.findall(anonymize(t, anonymizer)) for t in texts]
    rng = scheme.rng() if scheme is not None else None
    acc_rows: list[dict[str, Any]] = []
    top_rows: list[dict[str, Any]] = []
    for grouping, labels in groupings.items():
        y_all = np.asarray([str(v) for v in labels], dtype=object)
        groups, sizes = np.unique(y_all, return_counts=True)
        n_test = int(np.ceil(test_size * len(y_all)))
        if len(groups) < 2 or sizes.min() < 2 or n_test < len(groups):
            continue
        train, test = train_test_split(
            np.arange(len(y_all)), test_size=test_size, random_state=seed, stratify=y_all
        )
        try:  # the vocabulary of the training texts (min_df of their number)
            vectorizer = CountVectorizer(analyzer=_tokens, min_df=min_df)
            vectorizer.fit([docs[i] for i in train])
        except ValueError:  # no word survives
            continue
        sparse = vectorizer.transform(docs).astype(np.float64).tocsr()
        vocab = np.asarray(vectorizer.get_feature_names_out(), dtype=object)
        # The linear kernel, computed once for the grouping's classifiers: the same libsvm
        # problem as SVC(kernel="linear") without recomputing dot products per classifier.
        gram = (sparse @ sparse.T).toarray()
        k_train = gram[np.ix_(train, train)]
        k_test = gram[np.ix_(test, train)]
        x_train = sparse[train]
        for group in groups:
            y_train = y_all[train] == group
            y_test = y_all[test] == group
            clf = SVC(kernel="precomputed", C=1.0).fit(k_train, y_train)
            pred = clf.predict(k_test).astype(bool)
            coef = np.asarray(x_train[clf.support_].T @ clf.dual_coef_.ravel()).ravel()
            order = [j for j in np.argsort(-coef, kind="stable")[:top_k] if coef[j] > 0]
            pos, neg = y_test, ~y_test
            recalls = [float((pred[m] == y_test[m]).mean()) for m in (pos, neg) if m.any()]
            name = label(group) if label else str(group)
            acc_rows.append(
                {
                    "grouping": grouping,
                    "group": name,
                    "n_train": len(train),
                    "n_test": len(test),
                    "n_test_group": int(pos.sum()),
                    "accuracy": float((pred == y_test).mean()),
                    **_accuracy_interval(pred == y_test, scheme, rng),
                    "baseline": float(max(pos.mean(), neg.mean())),
                    "balanced_accuracy": float(np.mean(recalls)),
                    "top_words": ", ".join(str(vocab[j]) for j in order),
                }
            )
            top_rows.extend(
                {
                    "grouping": grouping,
                    "group": name,
                    "rank": rank,
                    "word": str(vocab[j]),
                    "coefficient": float(coef[j]),
                }
                for rank, j in enumerate(order, start=1)
            )
    return SvmResult(
        pd.DataFrame(acc_rows, columns=_ACC_COLUMNS), pd.DataFrame(top_rows, columns=_TOP_COLUMNS)
    )


def _accuracy_interval(
    hits: np.ndarray, scheme: IntervalScheme | None, rng: np.random.Generator | None
) -> dict[str, float]:
    """``accuracy_low`` and ``accuracy_high`` of per-text hits (NaN without a scheme)."""
    if scheme is None:
        return {"accuracy_low": float("nan"), "accuracy_high": float("nan")}
    _, low, high = mean_interval(hits.astype(float), scheme, rng, SHARE_BOUNDS)
    return {"accuracy_low": low, "accuracy_high": high}


_ACC_COLUMNS = [
    "grouping",
    "group",
    "n_train",
    "n_test",
    "n_test_group",
    "accuracy",
    "accuracy_low",
    "accuracy_high",
    "baseline",
    "balanced_accuracy",
    "top_words",
]
_TOP_COLUMNS = ["grouping", "group", "rank", "word", "coefficient"]
