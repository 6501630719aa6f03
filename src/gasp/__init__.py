"""gasp: audit large language models for representational harms in generated text.

The package implements the GAS(P) methodology (Generate, Associate, Statistically
test, Probe) and the related Marked Personas, OccuGender and paired-pronoun studies.
"""

from gasp.errors import GaspError

__version__ = "0.1.0"

__all__ = ["GaspError", "__version__"]
