"""Write what is generated from the declared settings: the compiled flags of the studies'
own options (``src/gasp/pipeline/study_flags.json``, read by the command line when it
starts) and the page of every setting (``docs/options.md``).

Run it after changing a setting or a study option; a test fails while either is stale::

    python scripts/declared.py
"""

from pathlib import Path

from gasp._api._options_page import options_page
from gasp.pipeline._study_flags import write_study_flags

PAGE = Path(__file__).resolve().parents[1] / "docs" / "options.md"

if __name__ == "__main__":
    print(f"wrote {write_study_flags()}")
    PAGE.write_text(options_page())
    print(f"wrote {PAGE}")
