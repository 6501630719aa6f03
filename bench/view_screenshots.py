"""The screenshots of ``docs/view.md``: a tree of mock runs and audits (the one the
tests browse), a run still generating, and the browser's pages in headless Chromium.

Run ``python bench/view_screenshots.py [--out docs/images/view]``; it needs Debian's
``chromium`` and ``chromium-driver`` and Selenium (``scripts/setup.sh --dev``). The
PNGs are reduced to 64 colours to keep them small.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from PIL import Image  # noqa: E402

from _browser import chromium  # noqa: E402
from _view_server import serving  # noqa: E402
from _view_tree import make_tree  # noqa: E402


def shoot(driver: object, url: str, path: Path, height: int = 820) -> None:
    """Open ``url`` and save the window as a 64-colour PNG at ``path``."""
    driver.set_window_size(1200, height)  # type: ignore[attr-defined]
    driver.get(url)  # type: ignore[attr-defined]
    time.sleep(1.5)  # charts drawn, live progress polled once
    raw = path.with_suffix(".raw.png")
    driver.save_screenshot(str(raw))  # type: ignore[attr-defined]
    Image.open(raw).convert("RGB").quantize(colors=64).save(path, optimize=True)
    raw.unlink()
    print(f"{path}: {path.stat().st_size / 1024:.0f} KiB")


def link(driver: object, text: str) -> str:
    """The address a link with ``text`` points to."""
    return driver.execute_script(  # type: ignore[attr-defined]
        "return Array.from(document.querySelectorAll('a'))"
        ".find(a => a.textContent === arguments[0]).href",
        text,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images" / "view")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="gasp-view-shots-"))
    tree = make_tree(work)
    live = tree.root / "live-narratives"
    code = (
        f"import gasp; gasp.run('narratives', 'mock/personas', out={str(live)!r}, quick=True,"
        " n=60, max_concurrency=1, model_options={'latency_s': 0.1})"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.DEVNULL)
    try:
        while not (live / "run.sqlite.lock").exists():
            time.sleep(0.2)
        time.sleep(3)
        with serving([tree.root]) as url, chromium(work / "profile") as driver:
            driver.get(url)
            time.sleep(2)
            shoot(driver, url, args.out / "index.png", 900)
            shoot(driver, link(driver, "releases/release-1"), args.out / "audit.png", 1100)
            shoot(
                driver,
                url + "releases-narratives--named_female_share.html",
                args.out / "releases.png",
                760,
            )
            driver.get(url)
            driver.get(link(driver, "more-of-the-same"))
            word = driver.find_elements("css selector", "ul.words a")[-3]
            shoot(driver, word.get_attribute("href"), args.out / "word.png", 760)
            driver.get(url)
            driver.get(link(driver, "hostile"))
            shoot(driver, link(driver, "all stories"), args.out / "hostile.png", 560)
    finally:
        proc.kill()
        proc.wait(30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
