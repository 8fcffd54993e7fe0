#!/usr/bin/env bash
# A/B of full index builds: per round `ctags -R`, then each binary's full
# index from empty (no vectors), in alternating order from round to round,
# so this VM's drift (tens of percent within an hour) hits both alike.
# Prints per run: wall, user and sys seconds, peak RSS (KiB), index size,
# the writer thread's busy/waiting/committing split and the phase times
# (files written, secondary indexes, trigram postings, repack).
#
# Usage: scripts/ab-index.sh ROUNDS BIN [BIN...]
#   TREE (default: the kernel tree scripts/bench-linux.sh unpacks).
# Copy each build aside first (target/release changes with the next
# build); the tree's .repo_search/ is removed before every run.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,12p' "$0"; exit 2; }
for tool in ctags /usr/bin/time "${@:2}"; do
    command -v "$tool" >/dev/null || { echo "error: \`$tool\` is not installed or not executable" >&2; exit 2; }
done
CACHE=${REPO_SEARCH_BENCH_CACHE:-$HOME/.cache/repo-search-bench}
TREE=${TREE:-$CACHE/linux-6.1}
[ -d "$TREE" ] || { echo "no tree at $TREE (run scripts/bench-linux.sh once)" >&2; exit 2; }
export REPO_SEARCH_HOME=$CACHE/home REPO_SEARCH_MODEL_CACHE=$CACHE/no-models REPO_SEARCH_OFFLINE=1
export REPO_SEARCH_LOG=repo_search=debug
mkdir -p "$REPO_SEARCH_HOME" && chmod 700 "$REPO_SEARCH_HOME"
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
rounds=$1; shift
for r in $(seq 1 "$rounds"); do
    /usr/bin/time -o "$TMP/time" -f "%e %U %S %M" ctags -R -f "$TMP/tags" "$TREE" 2>"$TMP/ctags.err" ||
        { echo "ctags failed:" >&2; tail -5 "$TMP/ctags.err" >&2; exit 1; }
    echo "round $r ctags: $(cat "$TMP/time")"
    bins=("$@")
    if [ $((r % 2)) = 0 ]; then
        mapfile -t bins < <(printf '%s\n' "$@" | tac)
    fi
    for b in "${bins[@]}"; do
        rm -rf "$TREE/.repo_search"
        /usr/bin/time -o "$TMP/time" -f "%e %U %S %M" "$b" index --root "$TREE" --no-embed --quiet >/dev/null 2>"$TMP/log" ||
            { echo "$b failed:" >&2; grep -v DEBUG "$TMP/log" | tail -5 >&2; exit 1; }
        plain=$(sed 's/\x1b\[[0-9;]*m//g' "$TMP/log")
        echo "round $r $b: $(cat "$TMP/time") size=$(stat -c %s "$TREE/.repo_search/index.db")"
        echo "  writer: $(grep -o 'busy_writing=[^ ]* waiting=[^ ]* committing=[^ ]*' <<<"$plain")"
        echo "  phases: $(grep -E 'files written|secondary indexes built|trigram postings done|loaded tables repacked' <<<"$plain" | grep -o 'seconds=[0-9.]*' | tr '\n' ' ')"
    done
done
