#!/usr/bin/env bash
# The Linux kernel as a daily driver (issue 17): one run prints, side by side,
#   - full index wall time and peak RSS vs `ctags -R` (fast-tier vectors as
#     the separate phase they are, timed apart);
#   - index size / source size, and the size per table (`status --sizes`);
#   - a re-scan with no change;
#   - keyword search vs `rg` on patterns from selective literals to
#     unselective regexes, through scripts/bench-ngram.sh: identical output
#     (path:line sets) and the time ratio against `rg -n --column` (which
#     prints what we print; plain `rg -n` is timed beside it), medians of
#     interleaved rounds;
#   - top-10 latency over 1.3 M vectors (examples/bench_embed);
#   - MCP latencies through a real client (scripts/bench-mcp.py), when the
#     test venv exists: with the daemon watching, then without it (the
#     server's own watcher).
#
# Usage: scripts/bench-linux.sh [--rounds N] [--index-rounds N] [--skip-index] [BIN]
#   --index-rounds N: N interleaved rounds of `ctags -R` and a full index
#   (median ratio; default 1, about 4 minutes a round on 2 cores).
#   BIN defaults to target/release/repo-search. Needs rg, ctags, xz, GNU time,
#   and sqlite3 and jq for scripts/bench-ngram.sh.
# The source comes from Debian's `linux-source-6.1` package (installed with
# apt-get when missing: root only) and is unpacked once under
# $REPO_SEARCH_BENCH_CACHE (default ~/.cache/repo-search-bench/linux-6.1).
# The index lives in that tree's .repo_search/ with a private REPO_SEARCH_HOME.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=5
SKIP_INDEX=0
INDEX_ROUNDS=1
BIN=target/release/repo-search
while [[ $# -gt 0 ]]; do
    case $1 in
        --rounds) ROUNDS=$2; shift 2 ;;
        --skip-index) SKIP_INDEX=1; shift ;;
        --index-rounds) INDEX_ROUNDS=$2; shift 2 ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
        *) BIN=$1; shift ;;
    esac
done
[[ -x $BIN ]] || { echo "error: \`$BIN\` is not an executable" >&2; echo "hint: cargo build --release" >&2; exit 2; }
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
for tool in rg ctags xz /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "error: \`$tool\` is not installed" >&2; exit 2; }
done

CACHE=${REPO_SEARCH_BENCH_CACHE:-$HOME/.cache/repo-search-bench}
TREE=$CACHE/linux-6.1
TARBALL=/usr/src/linux-source-6.1.tar.xz
if [[ ! -d $TREE ]]; then
    if [[ ! -f $TARBALL ]]; then
        [[ $(id -u) -eq 0 ]] || { echo "error: $TARBALL is missing" >&2; echo "hint: sudo apt-get install linux-source-6.1" >&2; exit 2; }
        apt-get install -y -q linux-source-6.1 >&2
    fi
    mkdir -p "$CACHE.tmp" && rm -rf "$CACHE.tmp/linux-source-6.1"
    echo "unpacking $TARBALL ..." >&2
    tar -C "$CACHE.tmp" -xJf "$TARBALL"
    mkdir -p "$CACHE" && mv "$CACHE.tmp/linux-source-6.1" "$TREE" && rmdir "$CACHE.tmp"
fi
export REPO_SEARCH_HOME=$CACHE/home
mkdir -p "$REPO_SEARCH_HOME" && chmod 700 "$REPO_SEARCH_HOME"
export REPO_SEARCH_MODEL_CACHE=${REPO_SEARCH_MODEL_CACHE:-$HOME/.cache/repo-search-test-home/models}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT

files=$(cd "$TREE" && rg --files | wc -l)
src_bytes=$(cd "$TREE" && rg --files -0 | xargs -0 stat -c %s | awk '{s+=$1} END {print s}')
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "tree: $TREE: $files files (rg --files), $(awk -v b="$src_bytes" 'BEGIN {printf "%.1f MiB", b/1048576}')"
echo

timed() { # label, command...: prints wall seconds and peak RSS
    local label=$1; shift
    /usr/bin/time -f "%e %M" -o "$TMP/time" "$@" >"$TMP/out" 2>"$TMP/err" || { echo "$label failed:" >&2; tail -5 "$TMP/err" >&2; return 1; }
    read -r wall rss <"$TMP/time"
    printf '%-44s %8.1f s  %8.0f MiB peak RSS\n' "$label" "$wall" "$((rss / 1024))"
}

if [[ $SKIP_INDEX -eq 0 ]]; then
    echo "== index build ($INDEX_ROUNDS interleaved round(s) of ctags -R and a full index; this VM's speed drifts)"
    : >"$TMP/ratios"
    for round in $(seq "$INDEX_ROUNDS"); do
        rm -rf "$TMP/tags"
        timed "round $round: ctags -R" ctags -R -f "$TMP/tags" "$TREE"
        ctags_wall=$wall
        rm -rf "$TREE/.repo_search"
        timed "round $round: repo-search index --no-embed (full)" "$BIN" index --root "$TREE" --no-embed --quiet
        awk -v a="$wall" -v b="$ctags_wall" 'BEGIN {printf "%.3f\n", a/b}' >>"$TMP/ratios"
    done
    timed "repo-search index --embed-tier fast" "$BIN" index --root "$TREE" --embed-tier fast --quiet
    sort -n "$TMP/ratios" | awk '{r[NR] = $1} END {m = (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2;
        printf "index / ctags wall: median %.2fx over %d round(s), range %.2f-%.2fx (target <= 2x)\n", m, NR, r[1], r[NR]}'
    echo
fi

echo "== no-change re-scan (median of 3)"
for i in 1 2 3; do
    /usr/bin/time -f "%e" -o "$TMP/t$i" "$BIN" index --root "$TREE" --no-embed --quiet >/dev/null 2>&1
done
sort -n "$TMP"/t[123] | sed -n 2p | awk '{printf "re-scan, nothing changed: %.2f s (target <= 1 s)\n", $1}'
echo

echo "== a 1,000-file change (like a git checkout): one line added to 1,000 .c files, then taken out"
# Every 20th .c file in path order, so the change spreads over the tree.
(cd "$TREE" && rg --files -g '*.c' | LC_ALL=C sort | awk 'NR % 20 == 0 && ++n <= 1000') >"$TMP/changed"
while read -r f; do printf '%s %s\n' "$(stat -c %s "$TREE/$f")" "$f"; done <"$TMP/changed" >"$TMP/sizes"
while read -r _ f; do printf '/* repo-search bench edit */\n' >>"$TREE/$f"; done <"$TMP/sizes"
/usr/bin/time -f "%e" -o "$TMP/tc1" "$BIN" index --root "$TREE" --no-embed --quiet >/dev/null 2>&1
while read -r size f; do truncate -s "$size" "$TREE/$f"; done <"$TMP/sizes"
/usr/bin/time -f "%e" -o "$TMP/tc2" "$BIN" index --root "$TREE" --no-embed --quiet >/dev/null 2>&1
awk -v n="$(wc -l <"$TMP/sizes")" -v a="$(cat "$TMP/tc1")" -v b="$(cat "$TMP/tc2")" \
    'BEGIN {printf "%d files changed: %.2f s to re-index; changed back: %.2f s (a run merges the full-text index only at 10%% tombstones on a large index, a watching daemon from 1%% in the background: see Store::fts_merge_due)\n", n, a, b}'
echo

echo "== size"
"$BIN" status --root "$TREE" --sizes | sed -n '/^sizes:/,$p'
db=$(stat -c %s "$TREE/.repo_search/index.db")
awk -v d="$db" -v s="$src_bytes" 'BEGIN {printf "index.db / source: %.2fx (target <= 1.0x)\n", d/s}'
echo

echo "== keyword search vs rg (scripts/bench-ngram.sh with the kernel's patterns: medians of $ROUNDS interleaved rounds, with and without the trigram postings; path:line sets compared; ratios against rg -n --column, the output we print)"
# One case per line, shell-quoted, as rg arguments.
cat >"$TMP/cases" <<'EOF'
-e 'EXPORT_SYMBOL_GPL\(kvm_'
-e 'spin_lock_irqsave'
-e 'CONFIG_NUMA_BALANCING'
-e 'struct task_struct \*'
-e '#include <linux/module.h>'
-i -e 'syzbot'
-e 'static int __init \w+_init\(void\)'
-e '\bkmalloc\([^,]+, GFP_ATOMIC\)'
-e 'TODO'
-e '^\}'
-e '\w+_ops = \{'
-e 'return -E[A-Z]+;'
EOF
REINDEX=0 CASES_FILE="$TMP/cases" scripts/bench-ngram.sh "$TREE" "$BIN" "$ROUNDS" \
    || echo "(a result set differs from rg's: see the table)"
echo

echo "== top-10 over 1.3 M vectors (examples/bench_embed: synthetic unit vectors, as many as the kernel's chunks; the exact f32 scan next to the shipped int8 scan with its re-score, medians of 21 queries)"
cargo build --release --locked --example bench_embed >&2
target/release/examples/bench_embed --topk 1300000 | grep '^top-10'
echo

if [[ -x .venv-test/bin/python ]]; then
    echo "== MCP through a real client (scripts/bench-mcp.py)"
    # As an agent uses it: the daemon watches the tree (its embedder finds
    # no models here, so it computes no vectors meanwhile).
    DAEMON=$(dirname "$BIN")/repo-search-daemon
    REPO_SEARCH_MODEL_CACHE=$TMP/no-models REPO_SEARCH_OFFLINE=1 "$DAEMON" start >/dev/null 2>&1
    "$BIN" projects watch "$TREE" >/dev/null 2>&1
    sleep 5
    # As after a quiet moment: the daemon has merged the full-text index's
    # tombstones of earlier changes (the 1,000-file change above) in the
    # background; queries meanwhile are slower (BM25 60-355 ms, not 10-44).
    for _ in $(seq 300); do
        [[ $("$BIN" status --root "$TREE" --json 2>/dev/null | jq -r .fts_merge_due) == true ]] || break
        sleep 1
    done
    .venv-test/bin/python scripts/bench-mcp.py --binary "$BIN" --root "$TREE" --rounds 3 --spaced 4 --names kernel 2>&1 \
        | grep -E "initialize|index ready|find_symbol \(|search_keyword \(|search, (hybrid|semantic)|empty|memory|RSS" || true
    "$DAEMON" stop >/dev/null 2>&1
    echo "-- the same without a daemon: the server's own watcher (trusted after its first re-check)"
    .venv-test/bin/python scripts/bench-mcp.py --binary "$BIN" --root "$TREE" --rounds 3 --spaced 4 --names kernel 2>&1 \
        | grep -E "index ready|find_symbol \(|search_keyword \(|search, (hybrid|semantic)|RSS" || true
else
    echo "(no .venv-test: run scripts/setup-test-deps.sh for the MCP latencies)"
fi
