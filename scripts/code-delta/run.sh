#!/usr/bin/env bash
# Rebuilds src/embed/code_delta.bin: training pairs from third-party source
# trees, then the delta (see extract.py and train.py). Session 73 used:
#   ~/.cargo/registry/src/*/ (this repository's dependencies' crates),
#   /usr/lib/python3.11, the Google Cloud SDK's Python tree,
#   the JDK's lib/src.zip unpacked (java.base, java.net.http, java.sql,
#   java.logging, java.xml, jdk.httpserver), /usr/lib/node_modules, /usr/include
# and session 74 added one root per language of libraries from the package
# registries, listed in sources-registries.tsv (lang, package, version, kind:
# a Debian binary package's sources, a Debian source package, an npm
# tarball; tests, examples, vendored and generated code removed; none of
# evals/corpora.toml): go, typescript, php, ruby, javascript, cpp, csharp,
# kotlin, lua, swift, scala, 46k pairs
# (about 218k pairs; 40k at most from any one root; 10 epochs, ~15 min on 2 cores).
# Session 75 added questions.jsonl: 2,999 questions written the way agents
# ask ("cancel a future if it takes longer than a deadline"), each with the
# file and lines answering it, in libraries of the same roots (none of
# evals/corpora.toml); 32 of them join every batch. CODE_DELTA_QUESTION_TREES
# names their trees (see questions.py), e.g.
#   "registries=DIR crates=~/.cargo/registry/src/INDEX python3.11=/usr/lib/python3.11 jdk-src=DIR"
#
#   scripts/code-delta/run.sh MODEL_DIR ROOT...    # MODEL_DIR: potion-base-8M
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
model="$1"; shift
venv="${CODE_DELTA_VENV:-$HOME/.cache/repo-search-code-delta-venv}"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q torch numpy safetensors tokenizers
work="$(mktemp -d)"
"$venv/bin/python" "$here/extract.py" "$work/pairs.jsonl" "$@"
extra=()
if [ -n "${CODE_DELTA_QUESTION_TREES:-}" ]; then
    # shellcheck disable=SC2086 # one word per tree
    "$venv/bin/python" "$here/questions.py" "$work/questions.jsonl" $CODE_DELTA_QUESTION_TREES
    extra=(--extra "$work/questions.jsonl" --extra-per-batch 32)
fi
"$venv/bin/python" "$here/train.py" --pairs "$work/pairs.jsonl" --model "$model" \
    --delta "$here/../../src/embed/code_delta.bin" "${extra[@]}"
rm -rf "$work"
