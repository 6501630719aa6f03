"""Statistics: Marked Words, Calibrated Marked Words, SRB scores, tests and intervals.

One significance rule (:class:`SignificanceRule`) and one choice between Marked Words
and Calibrated Marked Words (:func:`marked_words_many`, :class:`PairScorer`) serve
every caller.
"""

from gasp.stats._calibrated import (
    CALIBRATION_FUNCTION_WORDS,
    DEFAULT_ALPHA,
    DEFAULT_C_ENGLISH,
    DEFAULT_C_TOPIC,
    CalibratedConfig,
    CalibratedMarkedWords,
    CalibratedTerms,
    Comparison,
    calibrated_marked_words,
    calibrated_marked_words_many,
    calibrated_terms,
)
from gasp.stats._calibration import IDENTITY_WORDS, CalibrationReport, calibrate
from gasp.stats._english_prior import BROWN_CORPUS_TOKENS, common_english_words, english_prior
from gasp.stats._groups import group_mask, parse_selector, selector_name
from gasp.stats._log_odds import log_odds_z
from gasp.stats._marked_words import MarkedWords, marked_words, marked_words_table
from gasp.stats._method import PairScorer, marked_words_many
from gasp.stats._multiple_testing import bh_reject, two_sided_p
from gasp.stats._multiplicity import (
    CHANCE_FIELDS,
    ChanceCount,
    bh_p_cutoff,
    chance_count,
    chance_table,
    reselect,
    study_rule,
    z_cutoff,
)
from gasp.stats._paired import (
    EXACT_UNITS,
    PairedResult,
    SignFlipResult,
    paired_test,
    sign_flip_test,
)
from gasp.stats._resampling import (
    BOOTSTRAP,
    CLUSTER,
    SCHEMES,
    SHARE_BOUNDS,
    SUBSAMPLE,
    IntervalScheme,
    bootstrap_mean,
    describe_interval,
    draw_weights,
    expansion,
    interval_from_draws,
    mean_interval,
    subsample_scale,
    subsample_size,
)
from gasp.stats._rule import (
    DEFAULT_STUDY_FDR,
    DEFAULT_THRESHOLD,
    FDR_SCOPES,
    SignificanceRule,
    study_fdr_level,
)
from gasp.stats._significance import (
    BootstrapResult,
    PermutationResult,
    WelchResult,
    bernoulli_se,
    bootstrap_ci,
    percent_change,
    permutation_test,
    welch_t_test,
)
from gasp.stats._srb import SRBResult, chamfer_distance, srb_score, srb_scores

__all__ = [
    "BOOTSTRAP",
    "BROWN_CORPUS_TOKENS",
    "CALIBRATION_FUNCTION_WORDS",
    "CHANCE_FIELDS",
    "CLUSTER",
    "DEFAULT_ALPHA",
    "DEFAULT_C_ENGLISH",
    "DEFAULT_C_TOPIC",
    "DEFAULT_STUDY_FDR",
    "DEFAULT_THRESHOLD",
    "EXACT_UNITS",
    "FDR_SCOPES",
    "IDENTITY_WORDS",
    "SCHEMES",
    "SHARE_BOUNDS",
    "SUBSAMPLE",
    "BootstrapResult",
    "CalibratedConfig",
    "CalibratedMarkedWords",
    "CalibratedTerms",
    "CalibrationReport",
    "ChanceCount",
    "Comparison",
    "IntervalScheme",
    "MarkedWords",
    "PairScorer",
    "PairedResult",
    "PermutationResult",
    "SRBResult",
    "SignFlipResult",
    "SignificanceRule",
    "WelchResult",
    "bernoulli_se",
    "bh_p_cutoff",
    "bh_reject",
    "bootstrap_ci",
    "bootstrap_mean",
    "calibrate",
    "calibrated_marked_words",
    "calibrated_marked_words_many",
    "calibrated_terms",
    "chamfer_distance",
    "chance_count",
    "chance_table",
    "common_english_words",
    "describe_interval",
    "draw_weights",
    "english_prior",
    "expansion",
    "group_mask",
    "interval_from_draws",
    "log_odds_z",
    "marked_words",
    "marked_words_many",
    "marked_words_table",
    "mean_interval",
    "paired_test",
    "parse_selector",
    "percent_change",
    "permutation_test",
    "reselect",
    "selector_name",
    "sign_flip_test",
    "srb_score",
    "srb_scores",
    "study_fdr_level",
    "study_rule",
    "subsample_scale",
    "subsample_size",
    "two_sided_p",
    "welch_t_test",
    "z_cutoff",
]
