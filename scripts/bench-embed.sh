#!/usr/bin/env bash
# Embedding benchmark: chunks/s and tokens/s of the full tier (MiniLM in
# process, src/embed/bert_model.rs) and the fast tier (potion, model2vec-rs) on the same real
# chunks, next to sentence-transformers (PyTorch CPU) when its venv exists
# (`scripts/check-embeddings.sh` creates it), and brute-force top-10
# latency over 10k/100k/1M synthetic 256-d and 384-d vectors: the old exact
# f32 scan next to the shipped int8 scan with its re-score of the stored codes
# (and how far their top-10s agree), interleaved per query, medians.
#
# Usage: scripts/bench-embed.sh [TREE] [N]
#   TREE: a source tree to take chunks from (default: this repository's
#   src/ and tests/, copied to a temp dir); N: chunks (default 200).
# Models come from $REPO_SEARCH_MODEL_CACHE (default
# ~/.cache/repo-search-test-home/models; `repo-search model fetch` fills it).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${2:-200}
export REPO_SEARCH_MODEL_CACHE=${REPO_SEARCH_MODEL_CACHE:-$HOME/.cache/repo-search-test-home/models}
VENV=${VENV:-$HOME/.cache/repo-search-st-venv}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
cargo build --release --locked --bin repo-search --example bench_embed >&2
target/release/repo-search model fetch --quiet >&2
if [ -n "${1:-}" ]; then
  cp -r "$1" "$TMP/tree"
else
  mkdir -p "$TMP/tree" && cp -r src tests "$TMP/tree/"
fi
REPO_SEARCH_HOME=$TMP/home target/release/repo-search index --root "$TMP/tree" --no-embed --quiet >&2
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
target/release/examples/bench_embed --root "$TMP/tree" --n "$N" --dump "$TMP/chunks.jsonl" | tee "$TMP/first.txt"
if [ ! -x "$VENV/bin/python" ]; then
  echo "(no sentence-transformers venv at $VENV: run scripts/check-embeddings.sh for the PyTorch side)"
  exit 0
fi
# This machine's speed drifts by tens of percent from minute to minute, so
# the two sides run in alternating rounds and the ratio is the median of
# each round's ours/theirs.
ROUNDS=${ROUNDS:-3}
ratios=()
for r in $(seq "$ROUNDS"); do
  if [ "$r" = 1 ]; then
    ours=$(grep '^full' "$TMP/first.txt" | awk '{print $3}')
  else
    ours=$(target/release/examples/bench_embed --root "$TMP/tree" --n "$N" --topk "" | grep '^full' | awk '{print $3}')
  fi
  st_out=$("$VENV/bin/python" scripts/st-reference.py "$TMP/chunks.jsonl" "$REPO_SEARCH_MODEL_CACHE/all-MiniLM-L6-v2" 2>/dev/null)
  [ "$r" = 1 ] && echo "$st_out"
  theirs=$(echo "$st_out" | grep '^full' | awk '{print $5}')
  ratio=$(python3 -c "print(f'{$ours / $theirs:.2f}')")
  echo "round $r: ours $ours chunks/s, sentence-transformers $theirs chunks/s: ${ratio}x"
  ratios+=("$ratio")
done
echo "median ratio (ours / sentence-transformers) over $ROUNDS rounds: $(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')x"
