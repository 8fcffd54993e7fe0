#!/usr/bin/env bash
# Fetches the eval corpora declared in evals/corpora.toml from the package
# registries into $REPO_SEARCH_EVAL_CACHE (default ~/.cache/repo-search-corpora)
# and prints "name<TAB>directory" for each.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=target/release/repo-search-eval
[ -x "$BIN" ] || cargo build --release --locked --bin repo-search-eval >&2
exec "$BIN" fetch "$@"
