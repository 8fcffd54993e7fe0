#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what the tests need
# (ripgrep for the side-by-side keyword checks, a Python venv with the
# official MCP SDK for the client checks), then runs every test in one
# profile (release) so everything compiles once.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '== %s\n' "$*" >&2; }

# A fresh clone's run fills about 5 GiB (target/ 4.4 GiB, cargo's registry
# 0.7 GiB, measured at 0550dae): say so before a compile dies of a full disk.
avail_kib=$(df -Pk . 2>/dev/null | awk 'NR == 2 { print $4 }')
if [ -n "$avail_kib" ] && [ "$avail_kib" -lt $((6 * 1024 * 1024)) ]; then
  log "warning: $((avail_kib / 1024)) MiB free on this disk; a fresh build and test run needs about 5 GiB"
fi

# ripgrep: the keyword tests compare our output with `rg` line for line.
if ! command -v rg >/dev/null 2>&1; then
  log "installing ripgrep (keyword results are checked against it)"
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    (apt-get update -qq && apt-get install -y -qq ripgrep) >&2 || log "apt-get could not install ripgrep"
  fi
  if ! command -v rg >/dev/null 2>&1; then
    cargo install --locked ripgrep >&2
  fi
fi

# The official MCP Python SDK, in .venv-test, for the client checks that
# tests/it/mcp.rs runs (skipped there with a note when it is missing).
scripts/setup-test-deps.sh

# A fresh clone (no release build yet) compiles the crate without
# incremental data, which a clone built once never reads: 247 s against
# ~300 s with it, on two cores. A later run in the same tree goes back to
# the profile's incremental builds.
if [ ! -d "${CARGO_TARGET_DIR:-target}/release" ]; then
  export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
fi

# Embedding models: the tests of the in-process models (tests/it/embed.rs)
# need real weights. Fetch them once into a stable cache (idempotent: a
# second run finds them there), then require them so CI never skips those
# tests silently. The fetch itself is tested too (REPO_SEARCH_NETWORK_TESTS).
log "cargo build --release (for \`repo-search model fetch\`)"
cargo build --release --locked
export REPO_SEARCH_TEST_MODELS="${REPO_SEARCH_TEST_MODELS:-$HOME/.cache/repo-search-test-home/models}"
log "repo-search model fetch into $REPO_SEARCH_TEST_MODELS"
REPO_SEARCH_MODEL_CACHE="$REPO_SEARCH_TEST_MODELS" "${CARGO_TARGET_DIR:-target}/release/repo-search" model fetch --quiet >&2
export REPO_SEARCH_REQUIRE_MODELS=1
export REPO_SEARCH_NETWORK_TESTS=1

log "cargo test --release"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
cargo test --release --locked 2>&1 | tee "$out"
# One closing line for the whole run (cargo's own last line is the doc-test
# binary's, which has no tests).
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($i == "passed;") p += $(i-1); if ($i == "failed;") f += $(i-1) } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$out"

if [ -x scripts/test-extra.sh ]; then
  scripts/test-extra.sh
fi
