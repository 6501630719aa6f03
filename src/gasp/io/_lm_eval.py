"""Generations from lm-evaluation-harness ``samples_<task>_<time>.jsonl`` files
(written with ``--log_samples``), and the model named in the ``results_<time>.json``
written beside them.

lm-eval logs every task's requests the same way; only ``generate_until`` tasks hold
generated texts. A log-likelihood task (``multiple_choice``, ``loglikelihood``,
``loglikelihood_rolling``) holds scores, pairs such as ``["-5.28", "False"]``, and is
refused rather than read as texts.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd

from gasp.errors import DataError

#: The lm-eval output type whose samples are generated texts.
GENERATION_OUTPUT = "generate_until"
_TIME = re.compile(r"_(\d{4}-\d{2}-\d{2}T[^/]*)$")
#: The columns the reader writes; a document field of one of these names is kept
#: under ``doc_<name>``.
_OWN_COLUMNS = ("prompt", "text", "doc_id", "sample_index", "task", "model")


def _prompt(arguments: Any) -> str:
    """The prompt of an lm-eval sample: the first argument of its first request."""
    first: Any = arguments
    if isinstance(first, dict):  # {"gen_args_0": {"arg_0": prompt, "arg_1": kwargs}}
        first = next(iter(first.values()), {})
        return str(first.get("arg_0", "")) if isinstance(first, dict) else str(first)
    while isinstance(first, list) and first:
        first = first[0]
    return "" if isinstance(first, list) else str(first)


def _requests(arguments: Any) -> list[list[Any]]:
    """Each request's arguments, from either layout lm-eval has written."""
    if isinstance(arguments, dict):
        return [
            [v for _, v in sorted(a.items())] if isinstance(a, dict) else [a]
            for a in arguments.values()
        ]
    if isinstance(arguments, list):
        return [a if isinstance(a, list) else [a] for a in arguments]
    return []


def output_type_of(record: dict[str, Any]) -> str | None:
    """The output type one sample's shape tells: a generation request carries its
    generation settings (a mapping) as second argument and is answered by texts; a
    log-likelihood request carries a continuation (or nothing, for a rolling one) and
    is answered by scores. None when the shape tells nothing."""
    requests = _requests(record.get("arguments"))
    responses = record.get("resps") or []
    if any(len(r) > 1 and isinstance(r[1], dict) for r in requests):
        return GENERATION_OUTPUT
    scored = any(
        isinstance(answer, list)
        for response in responses
        if isinstance(response, list)
        for answer in response
    )
    if scored or any(len(r) > 1 and isinstance(r[1], str) for r in requests):
        return "multiple_choice" if len(requests) > 1 else "loglikelihood"
    if requests and all(len(r) == 1 for r in requests):
        return "loglikelihood_rolling"
    return None


def _results_beside(path: Path) -> tuple[dict[str, Any] | None, str]:
    """The ``results_<time>.json`` lm-eval wrote beside ``path`` in the same run, and
    its name (the file may be missing: the samples file was copied alone)."""
    found = _TIME.search(path.stem)
    name = f"results_{found.group(1)}.json" if found else "results_<time>.json"
    file = path.with_name(name)
    if found is None or not file.is_file():
        return None, name
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None, name
    return (data if isinstance(data, dict) else None), name


def _model_name(results: dict[str, Any]) -> str | None:
    """The model an lm-eval run evaluated: ``model_name``, else the ``pretrained=``
    (or ``model=``) of its ``model_args``."""
    name = results.get("model_name")
    if isinstance(name, str) and name:
        return name
    config = results.get("config")
    args = config.get("model_args") if isinstance(config, dict) else None
    if isinstance(args, str):
        for part in args.split(","):
            key, _, value = part.partition("=")
            if key.strip() in {"pretrained", "model"} and value.strip():
                return value.strip()
    return None


def _declared_output(results: dict[str, Any] | None, task: str) -> str | None:
    configs = results.get("configs") if results else None
    config = configs.get(task) if isinstance(configs, dict) else None
    kind = config.get("output_type") if isinstance(config, dict) else None
    return kind if isinstance(kind, str) else None


def _refuse_scores(path: Path, kind: str) -> None:
    if kind != GENERATION_OUTPUT:
        raise DataError(
            f"{path} holds lm-eval output type {kind!r} (log-likelihood scores of given "
            f"answers, not generated texts): gasp reads the samples of {GENERATION_OUTPUT} "
            "tasks; run lm-eval with a generation task and --log_samples"
        )


def _records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot read {path}: {exc}") from None
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"{path}:{number}: not JSON ({exc.msg})") from None
        if not isinstance(record, dict) or "resps" not in record:
            raise DataError(f"{path}:{number}: not an lm-eval sample (no 'resps')")
        records.append((number, record))
    return records


def read_lm_eval(path: Path) -> tuple[pd.DataFrame, list[str]]:
    """One row per generation of an lm-eval ``samples_<task>_<time>.jsonl`` file
    (``--log_samples``): ``prompt``, ``text``, ``doc_id``, ``sample_index`` (the
    repeat), ``task``, ``model`` (from the ``results_<time>.json`` beside it) and the
    document's scalar fields. Samples of a log-likelihood task are refused."""
    task = _TIME.sub("", path.stem).removeprefix("samples_")
    results, results_name = _results_beside(path)
    declared = _declared_output(results, task)
    if declared is not None:
        _refuse_scores(path, declared)
    model = _model_name(results) if results else None
    rows, renamed = [], set()
    for number, record in _records(path):
        kind = output_type_of(record)
        if kind is not None and declared is None:
            try:
                _refuse_scores(path, kind)
            except DataError as exc:
                raise DataError(f"{exc} (line {number})") from None
        doc = record.get("doc")
        fields = {}
        for key, value in doc.items() if isinstance(doc, dict) else ():
            if isinstance(value, str | int | float | bool):
                if key in _OWN_COLUMNS:
                    renamed.add(key)
                    key = f"doc_{key}"
                fields[key] = value
        generations = record["resps"][0] if record["resps"] else []
        if not isinstance(generations, list):
            generations = [generations]
        for index, text in enumerate(generations):
            row = {
                **fields,
                "prompt": _prompt(record.get("arguments")),
                "text": text if isinstance(text, str) else json.dumps(text),
                "doc_id": record.get("doc_id"),
                "sample_index": index,
                "task": task,
            }
            if model is not None:
                row["model"] = model
            rows.append(row)
    if not rows:
        raise DataError(f"{path} holds no lm-eval sample")
    shown = f" ({model})" if model else ""
    notes = [f"read {len(rows)} generations of lm-eval task {task!r}{shown}"]
    if model is None:
        notes.append(f"no model name: {results_name} is not beside {path.name}")
    notes += [f"document field {k!r} kept as 'doc_{k}'" for k in sorted(renamed)]
    return pd.DataFrame(rows), notes
