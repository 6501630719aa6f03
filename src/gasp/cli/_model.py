"""``gasp model ...``: the embedded model for other engines (``export-hf``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gasp.cli._app import app

model_app = typer.Typer(help="The embedded model, written for other engines.", no_args_is_help=True)
app.add_typer(model_app, name="model")


@model_app.command("export-hf")
def export_hf_command(
    folder: Annotated[Path, typer.Argument(help="new or empty folder to write the model into")],
) -> None:
    """Write the embedded model as a Hugging Face folder (float32 safetensors, config,
    tokenizer and chat template), for example to serve it with vLLM (docs/vllm.md)."""
    import gasp

    written = gasp.export_hf(folder)
    typer.echo(f"wrote the embedded model to {written}")
