"""The paired-pronoun and narrative reports in headless Chromium: no console error, every
number opens its texts, model text stays text."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from _browser import chromium, require_chromium, severe_console_entries
from gasp.backends import GenerationRequest, MockBackend
from gasp.runner import RunOptions, generate
from gasp.studies import get_study_type

pytestmark = pytest.mark.browser


require_chromium(module_level=True)

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

INJECT = '<img src=x onerror="window.__pwned=1"> The nurse was late.'


def _pairs_answer(request: GenerationRequest) -> str:
    _t, _p, pronoun, _i = json.loads(request.key)
    return INJECT if pronoun == "he" else "I do not know."


def _story(request: GenerationRequest) -> str:
    return "Elena. She <script>window.__pwned=1</script>"


def _report(tmp: Path, study: str, responder, options: dict) -> Path:  # type: ignore[no-untyped-def]
    kind = get_study_type(study)
    store = tmp / f"{study}.sqlite"
    generate(kind.build(study, options), MockBackend(responder), store, RunOptions(progress=False))
    kind.analyze(store, tmp / f"{study}-results", {"bootstrap": 50})
    return kind.report(tmp / f"{study}-results", tmp / f"{study}-report", {})


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as drv:
        yield drv


@pytest.mark.parametrize(
    ("study", "options", "key", "tab"),
    [
        (
            "pronoun-pairs",
            {"pairs": 3, "templates": "late,cash"},
            "template · late · unparsed",
            "answers with she",
        ),
        (
            "narratives",
            {"occupations": "nurse,roofer", "n": 2, "templates": "once"},
            "nurse · once · stories",
            "female names",
        ),
    ],
)
def test_report_numbers_open_their_texts(
    driver: object, tmp_path: Path, study: str, options: dict, key: str, tab: str
) -> None:
    responder = _pairs_answer if study == "pronoun-pairs" else _story
    page = _report(tmp_path, study, responder, options)
    drv = driver
    drv.get(page.as_uri())  # type: ignore[attr-defined]
    wait = WebDriverWait(drv, 10)
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "button.w")))
    button = drv.find_element(By.CSS_SELECTOR, f'button.w[data-word="{key}"]')  # type: ignore[attr-defined]
    drv.execute_script("arguments[0].scrollIntoView();", button)  # type: ignore[attr-defined]
    button.click()
    panel = wait.until(ec.visibility_of_element_located((By.ID, "examples")))
    labels = [t.text for t in panel.find_elements(By.CSS_SELECTOR, "#ex-tabs button")]
    assert any(label.startswith(tab) for label in labels), labels
    assert panel.find_elements(By.CSS_SELECTOR, "#ex-list li")
    # Every number in a clickable table is a button with saved texts.
    assert len(drv.find_elements(By.CSS_SELECTOR, "button.w")) > 10  # type: ignore[attr-defined]
    if study == "pronoun-pairs":
        drv.find_element(
            By.CSS_SELECTOR, 'button.w[data-word="template · late · incorrect"]'
        ).click()  # type: ignore[attr-defined]
        panel.find_elements(By.CSS_SELECTOR, "#ex-tabs button")[0].click()
        texts = [e.text for e in panel.find_elements(By.CSS_SELECTOR, ".ex-text")]
        assert INJECT in texts
    else:
        texts = [e.text for e in panel.find_elements(By.CSS_SELECTOR, ".ex-text")]
        assert any("<script>" in t for t in texts)
    assert not panel.find_elements(By.CSS_SELECTOR, "#ex-list script, #ex-list img")
    assert drv.execute_script("return window.__pwned === undefined;")  # type: ignore[attr-defined]
    severe = severe_console_entries(drv)
    assert severe == []
