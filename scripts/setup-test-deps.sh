#!/usr/bin/env bash
# Installs what the client checks need into `.venv-test/` (gitignored): a
# Python venv with the official MCP Python SDK, pinned. Idempotent: a venv
# that already has the pinned version is left alone. A machine without
# python3 (or without the package index) gets a warning, and the Rust test
# that drives the Python SDK then says it was skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

# mcp 2.3.0 speaks both protocol eras (ClientSession.initialize() and
# ClientSession.discover()) and validates structuredContent against each
# tool's outputSchema.
MCP_VERSION="2.3.0"
VENV=".venv-test"

log() { printf '== %s\n' "$*" >&2; }

if ! command -v python3 >/dev/null 2>&1; then
  log "python3 not found: the Python MCP SDK check will be skipped"
  exit 0
fi
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$MCP_VERSION')" 2>/dev/null; then
  exit 0
fi
log "creating $VENV with mcp==$MCP_VERSION (the official MCP Python SDK)"
if ! python3 -m venv "$VENV" >&2; then
  log "python3 -m venv failed (on Debian: apt-get install python3-venv): the Python MCP SDK check will be skipped"
  rm -rf "$VENV"
  exit 0
fi
if ! "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==$MCP_VERSION" >&2; then
  log "pip could not install mcp==$MCP_VERSION: the Python MCP SDK check will be skipped"
  rm -rf "$VENV"
  exit 0
fi
