"""Batch sizes and batched scoring of the hf backend, without a model or a GPU."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from gasp.errors import ConfigError

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from gasp.backends import ResilientModel, resolve_backend  # noqa: E402
from gasp.backends._hf_batching import (  # noqa: E402
    CPU_BATCH,
    MIN_GAIN,
    choose_batch_size,
    kv_bytes_per_token,
    measure_rate,
    pick_batch_size,
)
from gasp.backends._hf_scoring import _Picks, scoring_strategy  # noqa: E402


def saturating(at: int) -> tuple[dict[int, int], object]:
    """A rate curve growing linearly up to ``at`` sequences, flat after; records its calls."""
    calls: dict[int, int] = {}

    def rate(batch: int) -> float:
        calls[batch] = calls.get(batch, 0) + 1
        return 100.0 * min(batch, at)

    return calls, rate


def test_the_batch_where_doubling_stops_paying_is_chosen() -> None:
    calls, rate = saturating(128)
    choice = pick_batch_size(rate, 8, 1024)  # type: ignore[arg-type]
    assert choice.size == 128
    assert [b for b, _ in choice.rates] == [8, 16, 32, 64, 128, 256]
    # each size timed once, but the flat doubling and its smaller size again before stopping
    assert calls == {8: 1, 16: 1, 32: 1, 64: 1, 128: 2, 256: 2}


def test_a_curve_that_never_saturates_stops_at_the_memory_cap() -> None:
    _, rate = saturating(10**6)
    assert pick_batch_size(rate, 8, 300).size == 256  # 512 would not fit
    assert pick_batch_size(rate, 8, 5).size == 5  # a cap below the first size


def test_a_gain_just_under_the_threshold_is_not_taken() -> None:
    rates = {8: 1000.0, 16: 1000.0 * MIN_GAIN * 0.99, 32: 5000.0}
    choice = pick_batch_size(rates.__getitem__, 8, 1024)
    assert choice.size == 8  # 32 is never timed: the search stops at the first flat step
    assert [b for b, _ in choice.rates] == [8, 16]


class FakeGPU:
    """A device on a fake clock: a probe generation of ``batch`` sequences costs
    ``0.01 + batch * 1e-4`` s (saturating between 512 and 1024), plus ``cold`` s the
    first time a size runs (kernel choice, allocator growth, graph capture), plus
    ``busy`` s while :attr:`busy_calls` lasts (another process on the device)."""

    def __init__(self, cold: float = 2.0) -> None:
        self.now = 0.0
        self.cold = cold
        self.seen: set[int] = set()
        self.busy_calls = 0
        self.calls: list[int] = []

    def clock(self) -> float:
        return self.now

    def run(self, batch: int) -> None:
        self.calls.append(batch)
        self.now += 0.01 + batch * 1e-4
        if batch not in self.seen:
            self.seen.add(batch)
            self.now += self.cold
        if self.busy_calls:
            self.busy_calls -= 1
            self.now += 0.5

    def warm_rate(self, batch: int) -> float:
        return batch * 16 / (0.01 + batch * 1e-4)


def test_a_warm_probe_is_not_fooled_by_slow_first_calls() -> None:
    gpu = FakeGPU()
    choice = pick_batch_size(lambda b: measure_rate(gpu.run, b, clock=gpu.clock), 8, 1024)
    assert choice.size == 512  # 1024 gains 9 %, under the 10 % a doubling must bring
    assert dict(choice.rates) == pytest.approx({b: gpu.warm_rate(b) for b in dict(choice.rates)})
    # the trap: one warm-up at the first size, then one timing per size times every
    # later size cold, and the first doubling looks useless
    cold = FakeGPU()
    cold.run(8)

    def once(batch: int) -> float:
        started = cold.clock()
        cold.run(batch)
        return batch * 16 / (cold.clock() - started)

    assert once(16) < once(8) / 10


def test_a_size_measured_slow_once_is_measured_again_before_the_probe_stops() -> None:
    gpu = FakeGPU(cold=0.0)

    def rate(batch: int) -> float:
        if batch == 64 and 64 not in gpu.calls:
            gpu.busy_calls = 4  # the whole first measurement at 64 is slowed down
        return measure_rate(gpu.run, batch, clock=gpu.clock)

    choice = pick_batch_size(rate, 8, 1024)
    assert choice.size == 512
    assert gpu.calls.count(64) == 8  # measured twice (warm-up and three timed calls each)
    assert gpu.calls.count(32) == 8  # and its smaller size again
    assert dict(choice.rates)[64] == pytest.approx(gpu.warm_rate(64))  # the curve's value


def test_the_median_of_warm_timings_is_the_rate() -> None:
    durations = iter([5.0, 1.0, 9.0, 2.0])  # warm-up (untimed), then three timed calls
    now = [0.0]

    def run(batch: int) -> None:
        now[0] += next(durations)

    rate = measure_rate(run, 4, repeats=3, clock=lambda: now[0])
    assert rate == pytest.approx(4 * 16 / 2.0)


def test_the_cpu_takes_a_fixed_batch_without_timing() -> None:
    choice = choose_batch_size(None, "cpu", 0)
    assert (choice.size, choice.rates) == (CPU_BATCH, ())
    assert choice.describe() == f"{CPU_BATCH} requests per batch on cpu"


def test_the_summary_line_lists_the_timed_curve() -> None:
    _, rate = saturating(16)
    choice = pick_batch_size(rate, 8, 64)  # type: ignore[arg-type]
    line = dataclasses.replace(choice, device="cuda", seconds=2.04).describe()
    assert line == (
        "16 requests per batch, chosen on cuda in 2.0 s"
        " (tokens/s by batch size: 8: 800, 16: 1,600, 32: 1,600)"
    )


def test_key_value_bytes_follow_grouped_query_attention() -> None:
    # SmolLM2-135M: 30 layers, 9 query heads sharing 3 key/value heads of width 64
    config = SimpleNamespace(
        num_hidden_layers=30, num_attention_heads=9, num_key_value_heads=3, hidden_size=576
    )
    assert kv_bytes_per_token(config, 4) == 2 * 30 * 3 * 64 * 4
    plain = SimpleNamespace(num_hidden_layers=2, num_attention_heads=4, hidden_size=32)
    assert kv_bytes_per_token(plain, 2) == 2 * 2 * 4 * 8 * 2


def test_batch_size_option_takes_a_number_or_auto() -> None:
    fixed = resolve_backend("hf/org/model", options={"device": "cpu", "batch_size": "8"})
    assert fixed.preferred_batch_size() == 8
    assert "batch_size option" in fixed.batching_note()
    auto = resolve_backend("hf/org/model", options={"device": "cpu", "batch_size": "auto"})
    assert auto.preferred_batch_size() == CPU_BATCH
    assert ResilientModel(auto).batch_size == CPU_BATCH
    default = resolve_backend("hf/org/model", options={"device": "cpu"})
    assert default.preferred_batch_size() == CPU_BATCH
    assert ResilientModel(default).batch_size == CPU_BATCH  # built without loading the model
    for bad in ("0", "many", 2.5):
        with pytest.raises(ConfigError, match=r"batch_size.*'auto'"):
            resolve_backend("hf/org/model", options={"device": "cpu", "batch_size": bad})


def test_auto_scoring_is_the_cache_on_the_cpu_and_joint_on_a_gpu() -> None:
    assert scoring_strategy("auto", "cpu") == "cache"
    assert scoring_strategy("auto", "cuda:1") == "joint"
    assert scoring_strategy("cache", "cuda") == "cache"
    assert resolve_backend("hf/org/model", options={"device": "cpu"}).scoring == "cache"
    with pytest.raises(ConfigError, match="auto, cache, joint"):
        resolve_backend("hf/org/model", options={"device": "cpu", "scoring": "fast"})


def test_the_decoder_is_generate_on_the_cpu_and_unknown_ones_are_refused() -> None:
    backend = resolve_backend("hf/org/model", options={"device": "cpu"})
    assert backend.decoder == "generate"
    assert not backend.tf32
    static = resolve_backend("hf/org/model", options={"device": "cpu", "decoder": "static"})
    assert static.decoder == "static"
    # TF32 exists on a GPU only: asked for on the CPU, float32 stays exact
    assert not resolve_backend("hf/org/model", options={"device": "cpu", "tf32": True}).tf32
    with pytest.raises(ConfigError, match="auto, static, generate"):
        resolve_backend("hf/org/model", options={"device": "cpu", "decoder": "fast"})


def test_batched_log_probabilities_equal_the_per_token_reference() -> None:
    generator = torch.Generator().manual_seed(3)
    hidden = torch.randn(3, 7, 5, generator=generator)
    head = torch.nn.Linear(5, 11, bias=False)
    torch.nn.init.normal_(head.weight, generator=generator)
    wanted = [(0, 2, (4, 9), 0), (1, 0, (3,), 1), (2, 3, (1, 1, 10), 2), (0, 5, (7,), 3)]
    picks = _Picks.empty()
    for row, first, targets, owner in wanted:
        picks.add(row, first, targets, owner)
    with torch.inference_mode():
        got = picks.sums(head, hidden, 5)
        for row, first, targets, owner in wanted:
            reference = 0.0
            for j, token in enumerate(targets):
                logits = head(hidden[row, first + j])
                reference += float(torch.log_softmax(logits, dim=-1)[token])
            assert got[owner] == pytest.approx(reference, abs=1e-5)
    assert got[4] == 0.0  # an owner with no tokens sums to nothing
    assert _Picks.empty().sums(head, hidden, 2) == [0.0, 0.0]


class _Loaded:
    """Stands in for a loaded model: only its lock is used by the patched calls."""

    def __init__(self) -> None:
        import threading

        self.lock = threading.Lock()


def _oom_backend(  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
    fits: int,
    too_big: frozenset[str] = frozenset(),
    batch: int = 64,
):
    """An hf backend whose device holds ``fits`` requests per call (and none of ``too_big``)."""
    from gasp.backends import GenerationResponse, StopReason
    from gasp.backends._hf import HFBackend

    backend = resolve_backend("hf/org/model", options={"device": "cpu", "batch_size": batch})
    assert isinstance(backend, HFBackend)
    sizes: list[int] = []

    def generate_group(loaded: object, requests: list) -> list:  # type: ignore[type-arg]
        sizes.append(len(requests))
        # a retry runs outside the handler: the error's traceback would pin the GPU memory
        assert sys.exc_info() == (None, None, None)
        if len(requests) > fits or any(r.key in too_big for r in requests):
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return [
            GenerationResponse(f"answer {r.key}", StopReason.STOP, backend.model_id)
            for r in requests
        ]

    monkeypatch.setattr(backend, "load", _Loaded)
    monkeypatch.setattr(backend, "_generate_group", generate_group)
    return backend, sizes


def _requests(n: int) -> list:  # type: ignore[type-arg]
    from gasp.backends import ChatMessage, GenerationRequest

    return [GenerationRequest(key=f"k{i}", messages=(ChatMessage("user", "Hi"),)) for i in range(n)]


def test_a_batch_that_runs_out_of_memory_is_split_and_later_batches_cut(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    backend, sizes = _oom_backend(monkeypatch, fits=5)
    answers = backend._generate_sync(_requests(20))
    assert [a.text for a in answers] == [f"answer k{i}" for i in range(20)]  # order kept
    assert sizes == [20, 10, 5, 5, 5, 5]  # halved until it fits
    assert backend.memory.limit == 5
    sizes.clear()
    backend._generate_sync(_requests(12))
    assert sizes == [5, 5, 2]  # no second failure at a size known too big


def test_a_request_too_big_alone_fails_and_its_batch_is_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    backend, _ = _oom_backend(monkeypatch, fits=8, too_big=frozenset({"k2"}))
    answers = backend._generate_sync(_requests(4))
    assert [a.error is None for a in answers] == [True, True, False, True]
    assert answers[2].fault_kinds == ("out_of_memory",)
    assert answers[2].error is not None and "alone" in answers[2].error


def test_a_run_on_a_device_too_small_stores_every_sample_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from gasp.runner import Item, RunOptions, StudyPlan, generate
    from gasp.store import RunStore

    backend, sizes = _oom_backend(monkeypatch, fits=3, batch=8)
    plan = StudyPlan(
        kind="test", name="t", items=tuple(Item((f"s{i}",), "Hi", n=4) for i in range(5)), spec={}
    )
    summary = generate(plan, backend, tmp_path / "r.sqlite", RunOptions(progress=False))
    assert summary.complete and summary.failed == 0 and summary.generated == 20
    with RunStore.open(tmp_path / "r.sqlite") as store:
        samples = store.samples()
    assert len(samples) == 20 and not samples.duplicated(["item_id", "sample_index"]).any()
    assert sizes[:3] == [8, 4, 2]  # the first batch halved until it fitted
    assert max(sizes[3:]) == 2  # every later batch cut to the size that fitted
