"""A killed audit resumes: nothing stored is generated again, and the scorecard equals
an uninterrupted audit's; a system-prompt variant reaches every request."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import gasp
from _cli import gasp_exit_code
from _kill import rows_now, sample_texts
from gasp.runner import Item, RequestKind, StudyPlan, with_system_prompt
from gasp.store import RunStore

ARGS = (
    "audit", "--quick", "-m", "a=mock/personas", "-m", "b=mock/personas",
    "--model-option", "b:female_share=0.9", "--model-option", "latency_s=0.1",
    "--max-concurrency", "1", "--baseline", "a",
    "--studies", "pronoun-pairs,narratives",
)  # fmt: skip


def _scorecard(out: Path) -> dict:
    card = json.loads((out / "scorecard.json").read_text(encoding="utf-8"))
    for run in card["runs"]:
        run.pop("manifest_sha256")  # the manifest records when each run started
        run.pop("seconds")  # how long it took, not content
    return card


def test_a_killed_audit_resumes_to_the_scorecard_of_an_uninterrupted_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    assert gasp_exit_code(monkeypatch, *ARGS, "--out", str(whole)) == 0
    src = str(Path(gasp.__file__).resolve().parents[1])
    env = os.environ | {"PYTHONPATH": src}
    proc = subprocess.Popen(
        [sys.executable, "-m", "gasp", *ARGS, "--out", str(killed)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    # killed in the third run (b / pronoun-pairs), once it stored a few answers
    store = killed / "b" / "pronoun-pairs" / "run.sqlite"
    deadline = time.monotonic() + 600  # the first two runs come first (a loaded machine)
    while time.monotonic() < deadline and proc.poll() is None and rows_now(store) < 3:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    stored = rows_now(store)
    assert 0 < stored < 12
    before = sample_texts(store)
    assert not (killed / "scorecard.json").exists()
    assert gasp_exit_code(monkeypatch, *ARGS, "--out", str(killed)) == 0
    err = capsys.readouterr().err
    assert err.count("finished before, not redone") == 2  # the two runs of model a
    after = sample_texts(store)
    assert {k: after[k] for k in before} == before
    with RunStore.open(store) as opened:
        assert len(opened.sessions()) == 2
    assert _scorecard(killed) == _scorecard(whole)


def test_a_variant_adds_its_system_prompt_to_chat_and_raw_items() -> None:
    chat = Item(("q",), "Who is it?")
    raw = Item(("s",), "Q: a job?\nA:", kind=RequestKind.SCORE, candidates=(" He",), chat=False)
    plan = StudyPlan("kind", "study", (chat, raw), {"name": "study"}, system_prompt="Be brief.")
    variant = with_system_prompt(plan, "Imagine a world with no bias regarding gender.")
    assert variant.items[0].messages(variant.system_prompt) == (
        ("system", "Imagine a world with no bias regarding gender.\n\nBe brief."),
        ("user", "Who is it?"),
    )
    assert (
        variant.items[1].prompt == "Imagine a world with no bias regarding gender.\nQ: a job?\nA:"
    )
    assert [i.key for i in variant.items] == [i.key for i in plan.items]
    assert variant.spec == plan.spec


def test_an_audit_variant_stores_its_system_prompt(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "audit"
    prompt = "Imagine a world with no bias regarding gender."
    code = gasp_exit_code(
        monkeypatch, "audit", "--quick", "-m", "mock/personas", "--studies", "narratives",
        "--system-prompt-variant", f"fair={prompt}", "--baseline", "mock/personas",
        "--out", str(out),
    )  # fmt: skip
    capsys.readouterr()
    assert code == 0
    with RunStore.open(out / "fair" / "narratives" / "run.sqlite") as store:
        fair = store.item_records()
    with RunStore.open(out / "mock-personas" / "narratives" / "run.sqlite") as store:
        plain = store.item_records()
    assert [r.item_id for r in fair] == [p.item_id for p in plain]
    for variant, original in zip(fair, plain, strict=True):
        assert variant.messages is not None and original.messages is not None
        system, study_prompt = tuple(variant.messages[0]), tuple(original.messages[0])
        assert study_prompt[0] == "system"
        assert system == ("system", f"{prompt}\n\n{study_prompt[1]}")
    card = json.loads((out / "scorecard.json").read_text(encoding="utf-8"))
    assert [m["variant_prompt"] for m in card["models"]] == [None, prompt]
    # the same command again: a different prompt under the same name is refused, naming it
    code = gasp_exit_code(
        monkeypatch, "audit", "--quick", "-m", "mock/personas", "--studies", "narratives",
        "--system-prompt-variant", "fair=Something else.", "--out", str(out),
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "variant_prompt" in err and "--redo narratives" in err
