"""Defaults and bounds shared by the settings of several packages, in one light module
(the command line and the public functions' signatures read them without importing the
statistics stack)."""

#: The z-score a word's test must exceed to be significant (two-sided 5%), unless a
#: false discovery rate is asked for instead.
DEFAULT_THRESHOLD = 1.96

#: The most resamples (bootstrap draws, permutations) an analysis draws: each holds the
#: statistics of every unit, so 10^9 of them asked for tens of gigabytes.
MAX_RESAMPLES = 100_000
#: The most example texts kept per word (each is copied into the results).
MAX_EXAMPLES_PER_WORD = 1_000
