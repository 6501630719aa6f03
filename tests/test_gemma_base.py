"""Gemma 3 270M (base) as ``embedded/gemma-3-270m``: its licence on first use, its
completion-form answers read by the studies' parsers, and exact OccuGender scores.

Needs the Gemma packages (``scripts/setup.sh --gemma``); without them every test here
skips and says so. The slow ones load the model (a minute on a test session's first
start, seconds from gasp's weight cache).
"""

from __future__ import annotations

import asyncio
import logging
import math
from pathlib import Path

import pytest

from gasp.backends import DecodingConfig, GenerationRequest, ScoreRequest, resolve_backend
from gasp.backends._gemma import gemma_installed
from gasp.names import protagonist_name
from gasp.runner import apply_prompt_form, build_request
from gasp.studies import get_study_type
from gasp.studies.pronoun_pairs._parse import UNPARSED, parse_answer

pytestmark = pytest.mark.skipif(
    not gemma_installed(),
    reason="the Gemma 3 270M packages are not installed (scripts/setup.sh --gemma)",
)


def test_the_licence_is_named_once_on_first_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from gasp.backends import _gemma

    monkeypatch.setenv("GASP_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_gemma, "_ASSEMBLED", {})
    with caplog.at_level(logging.WARNING, logger="gasp.backends"):
        first = _gemma.gemma_file()
        again = _gemma.gemma_file()
    lines = [r.getMessage() for r in caplog.records if "Gemma Terms of Use" in r.getMessage()]
    assert first == again == tmp_path / "gguf" / "gemma-3-270m-q4_k_m.gguf"
    assert len(lines) == 1 and "https://ai.google.dev/gemma/terms" in lines[0]
    assert "GEMMA_TERMS.html" in lines[0]


@pytest.fixture(scope="module")
def gemma() -> object:
    # One model for every test (the float32 one exact scores need, which generates here
    # too, stop strings included): a test session converts it once (about a minute), not
    # a second time for CTranslate2, whose completions the CLI runs and the bench cover.
    return resolve_backend("embedded/gemma-3-270m", options={"engine": "transformers"})


def _requests(study: str, options: dict[str, object], temperature: float) -> list[object]:
    plan = get_study_type(study).plan(study, options, quick=True)
    sent = apply_prompt_form(plan, "embedded/gemma-3-270m")
    assert sent.prompt_form == "completion"
    decoding = DecodingConfig(temperature=temperature, max_tokens=40)
    return [
        (item, build_request(item, 0, decoding=decoding, run_seed=0, system_prompt=None))
        for item in sent.items
    ]


@pytest.mark.slow
def test_story_openings_are_continued_and_their_names_read(gemma: object) -> None:
    pairs = _requests("narratives", {"occupations": "nurse,plumber"}, 0.6)
    requests = [r for _, r in pairs]
    answers = asyncio.run(gemma.generate_batch(requests))  # type: ignore[attr-defined]
    for (item, request), answer in zip(pairs, answers, strict=True):
        assert isinstance(request, GenerationRequest) and request.completion == item.prompt
        assert answer.text and "\n\n" not in answer.text  # one paragraph at most
        name = protagonist_name(answer.text, item.prompt)
        # a continuation of "... called" names its protagonist at once, or gives none
        assert name is None or 0 <= answer.text.find(name) < 12, (answer.text, name)


@pytest.mark.slow
def test_paired_questions_are_answered_on_one_line_the_parser_reads(gemma: object) -> None:
    pairs = _requests("pronoun-pairs", {"pairs": 3}, 0.0)
    answers = asyncio.run(gemma.generate_batch([r for _, r in pairs]))  # type: ignore[attr-defined]
    parsed = 0
    for (item, _), answer in zip(pairs, answers, strict=True):
        assert "\n" not in answer.text
        a, b = item.attributes["profession_a"], item.attributes["profession_b"]
        parsed += parse_answer("The " + answer.text, a, b) != UNPARSED
    assert parsed >= len(pairs) // 2, [a.text for a in answers]


@pytest.mark.slow
def test_occugender_scores_equal_a_plain_transformers_loop(gemma: object) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from gasp.backends._hf import plain_weights_folder

    plan = get_study_type("occugender").plan("occugender", {}, quick=True)
    items = [plan.items[0], plan.items[-1]]  # a female- and a male-dominated job
    requests = [
        ScoreRequest(key=str(i), context=it.prompt, candidates=it.candidates)
        for i, it in enumerate(items)
    ]
    answers = asyncio.run(gemma.score_batch(requests))  # type: ignore[attr-defined]
    folder = plain_weights_folder(gemma.source, Path("unused"))  # type: ignore[attr-defined]
    tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(
        str(folder), dtype=torch.float32, local_files_only=True
    ).eval()
    worst = 0.0
    for request, answer in zip(requests, answers, strict=True):
        assert isinstance(request.context, str)
        context = tokenizer(request.context)["input_ids"]
        for candidate, score in zip(request.candidates, answer.scores, strict=True):
            ids = tokenizer(request.context + candidate)["input_ids"]
            assert ids[: len(context)] == context
            with torch.inference_mode():
                logits = model(torch.tensor([ids])).logits[0].float()
            logprobs = torch.log_softmax(logits, dim=-1)
            expected = sum(
                float(logprobs[pos - 1, ids[pos]]) for pos in range(len(context), len(ids))
            )
            assert score.logprob is not None and math.isfinite(score.logprob)
            worst = max(worst, abs(score.logprob - expected))
    assert worst < 1e-4, worst
