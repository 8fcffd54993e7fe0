#!/usr/bin/env bash
# Checks that the in-process MiniLM agrees with the Python
# reference, sentence-transformers on PyTorch (CPU), on real code chunks:
# prints min/mean cosine over N chunks (default 100; the bar is >= 0.999)
# and both throughputs. Not part of CI: it installs sentence-transformers
# (and with it PyTorch, several GB from the default package index, which
# only offers the CUDA build) into a venv at $VENV.
#
# Usage: scripts/check-embeddings.sh [TREE] [N]
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-$HOME/.cache/repo-search-st-venv}
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import sentence_transformers' 2>/dev/null; then
  echo "installing sentence-transformers into $VENV (large: PyTorch)" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q sentence-transformers >&2
fi
VENV=$VENV exec scripts/bench-embed.sh "${1:-}" "${2:-100}"
