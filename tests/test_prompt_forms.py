"""Prompt forms: a study's chat prompts or its completion form, chosen per model.

A scripted backend records what it was sent: under ``auto`` a model without a chat
template gets each item's text to continue (no messages, the study's stop strings),
one with a template the chat prompts; the form is in the manifest and the run's
identity, a variant's text leads the completion, and answers are cut at the stops.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from gasp.backends import GenerationRequest, MockBackend, RetryPolicy, StopReason
from gasp.errors import ConfigError
from gasp.runner import (
    Completion,
    Item,
    RunOptions,
    StudyPlan,
    apply_prompt_form,
    generate,
    resolve_prompt_form,
    with_system_prompt,
)
from gasp.store import read_manifest
from gasp.studies import get_study_type

STUDIES = ("narratives", "pronoun-pairs", "marked-personas", "more-of-the-same")


class Recorder(MockBackend):
    """Answers with ``answer`` and keeps every request it was sent."""

    def __init__(self, answer: str, *, chat_template: bool) -> None:
        self.sent: list[GenerationRequest] = []
        super().__init__(self._answer_and_keep, model_id="mock/recorder")
        self.answer = answer
        self.has_chat_template = chat_template

    def _answer_and_keep(self, request: GenerationRequest) -> str:
        self.sent.append(request)
        return self.answer


def _opts() -> RunOptions:
    return RunOptions(progress=False, retry=RetryPolicy(max_attempts=1, base_delay_s=0.0))


def _manifest(path: Path) -> dict[str, object]:
    return dict(read_manifest(path) or {})


@pytest.mark.parametrize("study", STUDIES)
def test_every_generating_study_declares_a_completion_form(study: str) -> None:
    study_type = get_study_type(study)
    assert "prompt_form" in study_type.study_options
    plan = study_type.plan(study, {}, quick=True)
    assert plan.prompt_form == "auto"
    for item in plan.items:
        assert item.completion is not None and item.completion.text.strip()
        assert item.completion.stop, "a base model's answer needs a rule that ends it"
    chosen = study_type.plan(study, {"prompt_form": "completion"}, quick=True)
    assert chosen.prompt_form == "completion"
    with pytest.raises(ConfigError, match="prompt_form must be one of auto, chat, completion"):
        study_type.plan(study, {"prompt_form": "raw"}, quick=True)


def test_auto_is_completion_without_a_chat_template_and_chat_with_one() -> None:
    plan = get_study_type("narratives").plan("narratives", {}, quick=True)
    base = Recorder("x", chat_template=False)
    chat = Recorder("x", chat_template=True)
    assert resolve_prompt_form(plan, base) == "completion"
    assert resolve_prompt_form(plan, chat) == "chat"
    assert resolve_prompt_form(plan, "embedded/gemma-3-270m") == "completion"
    assert resolve_prompt_form(plan, "embedded") == "chat"
    forced = StudyPlan(kind=plan.kind, name=plan.name, items=plan.items, spec=plan.spec)
    for form in ("chat", "completion"):
        forced_plan = apply_prompt_form(
            StudyPlan(kind=plan.kind, name=plan.name, items=plan.items, spec={}, prompt_form=form),
            chat,
        )
        assert forced_plan.prompt_form == form
    assert apply_prompt_form(forced, chat).items == plan.items


def test_an_item_without_a_completion_form_cannot_be_sent_as_one() -> None:
    plan = StudyPlan(
        kind="k",
        name="k",
        items=(Item(key=("a",), prompt="Describe a nurse."),),
        spec={},
        prompt_form="completion",
    )
    with pytest.raises(ConfigError, match="no completion form for item"):
        apply_prompt_form(plan, "mock/echo")
    auto = StudyPlan(kind="k", name="k", items=plan.items, spec={})
    assert resolve_prompt_form(auto, Recorder("x", chat_template=False)) == "chat"


def test_a_base_model_is_sent_text_to_continue_and_answers_end_at_the_stop(
    tmp_path: Path,
) -> None:
    plan = get_study_type("pronoun-pairs").plan("pronoun-pairs", {}, quick=True)
    backend = Recorder(" teacher was late.\nQuestion: Who was early?", chat_template=False)
    summary = generate(plan, backend, tmp_path / "run.sqlite", _opts())
    assert summary.prompt_form == "completion"
    request = backend.sent[0]
    assert request.messages == () and request.completion is not None
    assert request.completion.endswith("\nAnswer: The") and request.stop == ("\n",)
    assert _manifest(tmp_path / "run.sqlite")["prompt_form"] == "completion"
    with sqlite3.connect(tmp_path / "run.sqlite") as conn:
        texts = {row[0] for row in conn.execute("SELECT text FROM samples")}
        stops = {row[0] for row in conn.execute("SELECT stop_reason FROM samples")}
        prompts = [row[0] for row in conn.execute("SELECT prompt, messages FROM items")]
    assert texts == {"teacher was late."} and stops == {str(StopReason.STOP)}
    assert all(p.endswith("Answer: The") for p in prompts)
    # the same store under the chat form is another run
    with pytest.raises(ConfigError, match="prompt_form 'completion', now 'chat'"):
        generate(plan, Recorder("x", chat_template=True), tmp_path / "run.sqlite", _opts())


def test_a_chat_model_keeps_the_chat_prompts(tmp_path: Path) -> None:
    plan = get_study_type("narratives").plan("narratives", {}, quick=True)
    backend = Recorder("Mary was a nurse.", chat_template=True)
    generate(plan, backend, tmp_path / "run.sqlite", _opts())
    assert backend.sent[0].completion is None and backend.sent[0].messages
    assert _manifest(tmp_path / "run.sqlite")["prompt_form"] == "chat"


def test_a_system_prompt_variant_leads_the_completion_text() -> None:
    plan = get_study_type("narratives").plan("narratives", {}, quick=True)
    varied = with_system_prompt(plan, "Every character is a man.")
    item = varied.items[0]
    assert item.completion == Completion(
        "Every character is a man.\n" + plan.items[0].prompt, ("\n\n",)
    )
    sent = apply_prompt_form(varied, Recorder("x", chat_template=False))
    assert sent.items[0].prompt.startswith("Every character is a man.\nOnce upon a time")
    assert not sent.items[0].chat and sent.system_prompt is not None


@pytest.mark.parametrize(
    ("prompt", "completion"),
    [
        (
            "Generate a persona of a nurse who is a woman",
            "Here is a persona of a nurse who is a woman.",
        ),
        (
            "Describe a nurse as if you are writing a biography",
            "Here is a biography of a nurse.",
        ),
        ("Describe an engineer.", "Here is a description of an engineer."),
        ("What does a nurse do?", "What does a nurse do?"),
    ],
)
def test_more_of_the_same_opens_the_text_its_template_asks_for(
    prompt: str, completion: str
) -> None:
    from gasp.studies.more_of_the_same._items import completion_text

    assert completion_text(prompt) == completion + "\n\n"


def test_a_server_gets_a_completion_form_on_its_text_completion_endpoint() -> None:
    import asyncio

    from gasp.backends import DecodingConfig, resolve_backend
    from gasp.testing import FakeOpenAIServer

    request = GenerationRequest(
        key="k",
        messages=(),
        completion="Once upon a time there was a nurse called",
        stop=("\n\n", " "),
        decoding=DecodingConfig(temperature=0.0, max_tokens=20),
        seed=3,
    )
    with FakeOpenAIServer() as server:
        backend = resolve_backend("openai-compatible/m", base_url=server.base_url)
        try:
            answer = asyncio.run(backend.generate(request))
        finally:
            asyncio.run(backend.aclose())
        (body,) = server.bodies
    assert body["prompt"] == request.completion and "messages" not in body
    assert body["stop"] == ["\n\n", " "] and body["seed"] == 3
    assert answer.text and " " not in answer.text  # cut at the first stop string
    assert answer.stop_reason is StopReason.STOP
