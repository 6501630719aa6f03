"""The report of the paired pronoun and narrative tests, rendered from saved results only."""

from gasp.studies.pronoun_pairs.report._render import render

__all__ = ["render"]
