"""The browser's static files: its own script and stylesheet (in this package) and
Plotly's ``plotly.min.js`` (shipped inside the ``plotly`` wheel; never fetched)."""

from __future__ import annotations

from pathlib import Path

from gasp.errors import ConfigError

_HERE = Path(__file__).with_name("static")
#: The files served under ``static/``.
ASSETS = ("view.js", "view.css", "plotly.min.js")


def plotly_js() -> Path:
    """The path of ``plotly.min.js`` inside the installed ``plotly`` package."""
    try:
        import plotly
    except ImportError:
        raise ConfigError(
            "gasp view draws its charts with plotly: pip install 'gasp[all]' (or plotly)"
        ) from None
    path = Path(plotly.__file__).with_name("package_data") / "plotly.min.js"
    if not path.is_file():
        raise ConfigError(f"the plotly package has no {path.name}: reinstall plotly")
    return path


def asset_path(name: str) -> Path | None:
    """The file of the static asset ``name``, or None for any other name."""
    if name not in ASSETS:
        return None
    return plotly_js() if name == "plotly.min.js" else _HERE / name


__all__ = ["ASSETS", "asset_path", "plotly_js"]
