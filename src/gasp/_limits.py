"""Bounds on the work one setting may ask for, shared by every setting that asks for it."""

#: The most resamples (bootstrap draws, permutations) an analysis draws: each holds the
#: statistics of every unit, so 10^9 of them asked for tens of gigabytes.
MAX_RESAMPLES = 100_000
#: The most example texts kept per word (each is copied into the results).
MAX_EXAMPLES_PER_WORD = 1_000
