#!/usr/bin/env bash
# Installs what the client checks need into `.venv-test/` (gitignored): a
# Python venv with the official MCP Python SDK, pinned. Idempotent: a venv
# that already has the pinned version is left alone. On a developer's
# machine without python3 (or without the package index) it warns, and the
# Rust test that drives the Python SDK says it was skipped; under CI (`CI`
# set) it fails instead, so CI never skips that check silently.
set -euo pipefail
cd "$(dirname "$0")/.."

# mcp 2.3.0 speaks both protocol eras (ClientSession.initialize() and
# ClientSession.discover()) and validates structuredContent against each
# tool's outputSchema.
MCP_VERSION="2.3.0"
VENV=".venv-test"

log() { printf '== %s\n' "$*" >&2; }
# Gives up: fatal under CI, a warning elsewhere.
skip() {
  rm -rf "$VENV"
  if [ -n "${CI:-}" ]; then
    log "$*: CI needs the Python MCP SDK check, failing"
    exit 1
  fi
  log "$*: the Python MCP SDK check will be skipped"
  exit 0
}

if ! command -v python3 >/dev/null 2>&1; then
  skip "python3 not found"
fi
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$MCP_VERSION')" 2>/dev/null; then
  exit 0
fi
log "creating $VENV with mcp==$MCP_VERSION (the official MCP Python SDK)"
if ! python3 -m venv "$VENV" >&2; then
  skip "python3 -m venv failed (on Debian: apt-get install python3-venv)"
fi
if ! "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==$MCP_VERSION" >&2; then
  skip "pip could not install mcp==$MCP_VERSION"
fi
