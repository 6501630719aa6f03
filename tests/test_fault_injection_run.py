"""A run against a fake OpenAI-compatible server that faults 30% of the time."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from gasp.backends import RetryPolicy
from gasp.runner import RunOptions, generate
from gasp.store import RunStore
from gasp.studies.more_of_the_same import more_of_the_same
from gasp.testing import FakeOpenAIServer

SECRET = "sk-test-DO-NOT-STORE-4f1c9b"


def test_run_completes_with_each_sample_once_and_counts_every_fault_kind(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("GASP_FAKE_KEY", SECRET)
    study = more_of_the_same().restrict(subjects=["nurse"], n=5)
    path = tmp_path / "run.sqlite"
    retry = RetryPolicy(max_attempts=12, base_delay_s=0.005, max_delay_s=0.02, timeout_s=6.0)
    with FakeOpenAIServer(fault_rate=0.3, seed=11, hang_s=6.5, api_key=SECRET) as server:
        summary = generate(
            study,
            "openai-compatible/fake-model",
            path,
            RunOptions(
                progress=False,
                base_url=server.base_url,
                api_key_env="GASP_FAKE_KEY",
                max_concurrency=16,
                retry=retry,
            ),
        )
        injected = dict(server.faults)
    assert summary.complete and summary.failed == 0
    # every kind the server injected is counted by kind (a slow answer on a loaded
    # machine may add a client-side timeout, never hide another kind)
    assert set(injected) == set(summary.faults_by_kind)
    for kind, count in injected.items():
        if kind == "timeout":
            assert summary.faults_by_kind[kind] >= count
        else:
            assert summary.faults_by_kind[kind] == count, kind
    assert sum(injected.values()) > 10

    with RunStore.open(path) as store:
        frame = store.samples(include_errors=True)
        cells = store.item_states()
        manifest = store.manifest()
    assert (frame["stop_reason"] != "error").all()
    assert not frame.duplicated(["template", "subject", "condition", "sample_index"]).any()
    named = frame[frame["named_gender"].notna()]
    assert len(named) == 2 * 3 * 5
    assert (named.groupby(["template", "condition"])["sample_index"].max() == 4).all()
    # each adaptive cell holds exactly the consecutive samples its decision needed
    unspecified = frame[frame["condition"] == "unspecified"]
    for cell in cells[cells["condition"] == "unspecified"].itertuples():
        indices = sorted(unspecified.loc[unspecified["template"] == cell.template, "sample_index"])
        assert indices == list(range(cell.n_samples))
        assert cell.status in {"complete", "skipped", "capped"}
    assert summary.generated == len(frame)

    # the API key is in no byte of the store and in no log line or output
    assert manifest["model"]["api_key_env"] == "GASP_FAKE_KEY"
    for file in tmp_path.iterdir():
        assert SECRET.encode() not in file.read_bytes(), file
    out, err = capsys.readouterr()
    assert SECRET not in out + err + caplog.text
