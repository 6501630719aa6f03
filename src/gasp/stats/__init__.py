"""Statistics: Marked Words, Calibrated Marked Words, SRB scores and tests."""

from gasp.stats._log_odds import log_odds_z

__all__ = ["log_odds_z"]
