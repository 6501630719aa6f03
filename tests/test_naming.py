"""One idea, one name: every command's flags and every public function's keywords, read
together, use a single name for each idea (old spellings only as deprecated aliases).

Each idea below lists the names it has gone by; across the command line (each option's
first flag) and the public API (each keyword, the declared settings, the audit's
options), at most one of them may be in use.
"""

from __future__ import annotations

import dataclasses
import inspect

import typer.main

import gasp
from gasp.cli import app

#: Each idea, and the names it could go by.
IDEAS: dict[str, set[str]] = {
    "the false discovery rate": {"level", "fdr", "alpha", "fdr_alpha", "fdr_level"},
    "an output folder": {"out", "output", "out_dir", "output_dir"},
    "a backend's options": {"model_options", "model_option", "backend_options"},
    "a study's own options": {"study_options", "study_option"},
    "the SRB's word vectors": {"srb_embeddings", "embeddings", "vectors"},
    "the requests an audit's plan may need": {"request_budget", "max_requests"},
    "the USD an audit's plan may cost": {"cost_budget", "max_cost"},
    "the run seed": {"seed", "random_state", "rng_seed"},
}
#: Where a name means something else than the idea (checked by its meaning, not its name).
OTHER_MEANING = {
    # a run's budgets stop it cleanly; an audit's refuse its plan: distinct names
    ("run", "max_requests"), ("run", "max_cost"), ("generate", "max_requests"),
    ("generate", "max_cost"), ("gasp.run", "max_requests"), ("gasp.run", "max_cost"),
    # the probe's own command clusters words with its embeddings (not the SRB's)
    ("probe", "embeddings"),
}  # fmt: skip


def _cli_names() -> dict[str, set[str]]:
    """Each command's options by their first flag (as a keyword name)."""
    found: dict[str, set[str]] = {}
    command = typer.main.get_command(app)
    for name, sub in command.commands.items():  # type: ignore[attr-defined]
        subs = getattr(sub, "commands", {name: sub})
        for inner_name, inner in subs.items():
            for param in inner.params:
                if getattr(param, "hidden", False):
                    continue  # an old spelling, kept hidden for a release
                flags = [o for o in param.opts if o.startswith("--")]
                if flags:
                    found.setdefault(inner_name, set()).add(flags[0][2:].replace("-", "_"))
    return found


def _api_names() -> dict[str, set[str]]:
    """Each public function's keywords, the declared settings, the audit's options."""
    found: dict[str, set[str]] = {}
    for name in ("run", "analyze", "compare", "audit", "plan_audit", "view"):
        found[f"gasp.{name}"] = set(inspect.signature(getattr(gasp, name)).parameters)
    found["gasp.run"] |= {
        s.name for s in gasp.declared_settings("shape", "decoding", "runner", "analysis", "probe")
    }  # type: ignore[arg-type]
    from gasp.auditing import AuditConfig

    found["gasp.audit"] |= {f.name for f in dataclasses.fields(AuditConfig)}
    return found


def _one(name: str) -> str:
    """A name as one word: a repeatable flag is singular (``--model-option``), its
    keyword plural (``model_options``); both are one name."""
    return name.removesuffix("s")


def test_one_idea_has_one_name_across_commands_and_functions() -> None:
    places = {**_cli_names(), **_api_names()}
    broken = []
    for idea, names in IDEAS.items():
        used = {
            _one(n) for where, found in places.items() for n in found & names
            if (where, n) not in OTHER_MEANING
        }  # fmt: skip
        if len(used) > 1:
            broken.append(f"{idea}: {sorted(used)}")
    assert broken == []


def test_the_check_sees_two_names() -> None:
    places = {"a": {"fdr"}, "b": {"level"}}
    used = {n for found in places.values() for n in found & IDEAS["the false discovery rate"]}
    assert len(used) == 2
