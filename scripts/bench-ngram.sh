#!/usr/bin/env bash
# Index-accelerated keyword search on a real tree: per pattern, the wall time
# of `rg -n`, of `rg -n --column` (what `repo-search keyword` prints: the
# column costs rg a second match per line, on the kernel's million `^\}`
# lines 0.1 s more CPU; the ratios are taken against it), of
# `repo-search keyword` while `repo-search-daemon` watches the
# tree (the index's file list, no walk), with the index's trigram postings
# but no daemon (walk + stat, postings skip files) and with `--no-index` (a
# full scan), run interleaved, the median of ROUNDS rounds; and whether all
# four print the same `path:line` set. Then what
# the postings cost: index build time (full, no vectors) and the size of
# each postings table against the source bytes they cover.
#
# Usage: scripts/bench-ngram.sh TREE [BIN] [ROUNDS]
#   TREE    a copy of a real tree (it gets a `.repo_search/` index), e.g.
#           /tmp/djg-ngram (a copy of django-5.1.15)
#   BIN     repo-search binary (default: target/release/repo-search)
#   ROUNDS  timing rounds per pattern (default 5)
#   REINDEX=0 in the environment keeps the tree's existing index;
#   CASES_FILE names a file of other cases (one line of rg arguments each).
#
# The daemon runs in a private REPO_SEARCH_HOME for the run and is stopped at
# the end; without a `repo-search-daemon` next to BIN that column is "-".
#
# Needs: rg, sqlite3 (with dbstat), awk, jq. Exit status 1 when a result set
# differs, 2 on a usage or setup error.
set -uo pipefail

[[ $# -ge 1 && $# -le 3 ]] || { echo "usage: $0 TREE [BIN] [ROUNDS]" >&2; exit 2; }
TREE=$(cd "$1" 2>/dev/null && pwd) || { echo "error: \`$1\` is not a directory" >&2; exit 2; }
BIN=${2:-target/release/repo-search}
ROUNDS=${3:-5}
[[ -x $BIN ]] || { echo "error: \`$BIN\` is not an executable" >&2; exit 2; }
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
for tool in rg sqlite3 awk jq; do
    command -v "$tool" >/dev/null || { echo "error: \`$tool\` is not installed" >&2; exit 2; }
done
export REPO_SEARCH_OFFLINE=1

CASES=$(cat <<'EOF2'
-e get_object_or_404
-e TODO
-e ValidationError
-e select_for_update
-e 'zzz_not_there_anywhere'
-F -e 'self.assertEqual('
-i -e 'content-security-policy'
-w -e '@property'
-e '\b(get|set)_[a-z]+_display\b'
-e 'raise \w+Error\('
-e 'Привет|日本'
-S -e queryset
-e 'def '
-e '^\s*#'
-e '\w+'
EOF2
)
# CASES_FILE: other cases, one line each (shell-quoted arguments).
[[ -n ${CASES_FILE:-} ]] && CASES=$(cat "$CASES_FILE")

TMP=$(mktemp -d)
DAEMON=$(dirname "$BIN")/repo-search-daemon
WHOME=$TMP/home
stop_daemon() { [[ -x $DAEMON && -d $WHOME ]] && REPO_SEARCH_HOME=$WHOME "$DAEMON" stop >/dev/null 2>&1; }
trap 'stop_daemon; rm -rf "$TMP"' EXIT
now_ns() { date +%s%N; }
ms_of() { awk -v ns="$1" 'BEGIN { printf "%.1f", ns / 1e6 }'; }

echo "tree: $TREE"
echo "bin:  $BIN ($(rg --version | head -1))"

# Index cost: a full build without vectors, and where the postings' time
# went (REINDEX=0 keeps the tree's index as it is).
db="$TREE/.repo_search/index.db"
if [[ ${REINDEX:-1} != 0 ]]; then
    start=$(now_ns)
    "$BIN" index --root "$TREE" --full --no-embed -q -vv 2>"$TMP/index.err" >/dev/null \
        || { cat "$TMP/index.err" >&2; exit 2; }
    end=$(now_ns)
    ngram_s=$(grep -o 'trigram postings refreshed.*seconds: [0-9.]*' "$TMP/index.err" | grep -o '[0-9.]*$' | tail -1)
    echo "index --full --no-embed: $(ms_of $((end - start))) ms, of which trigram postings ${ngram_s:-?} s"
fi
[[ -f $db ]] || { echo "error: no index at \`$db\`" >&2; exit 2; }
sqlite3 "$db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
sqlite3 -separator ' ' "$db" "
    SELECT 'db bytes', page_count * page_size FROM pragma_page_count, pragma_page_size;
    SELECT 'postings tables bytes', sum(pgsize) FROM dbstat
        WHERE name IN ('ngram_postings', 'ngram_docs', 'sqlite_autoindex_ngram_docs_1');
    SELECT 'posting blobs bytes', sum(length(docs)) FROM ngram_postings;
    SELECT 'covered files', count(*), 'source bytes', sum(size) FROM ngram_docs WHERE covered = 1;
    SELECT 'all walked files', count(*), 'source bytes', sum(size) FROM ngram_docs;" \
    | awk '{ print "  " $0 }'
sqlite3 "$db" "SELECT
    (SELECT sum(pgsize) FROM dbstat WHERE name IN ('ngram_postings','ngram_docs','sqlite_autoindex_ngram_docs_1')) * 1.0
    / (SELECT sum(size) FROM ngram_docs WHERE covered = 1),
    (SELECT sum(pgsize) FROM dbstat WHERE name NOT IN ('ngram_postings','ngram_docs','sqlite_autoindex_ngram_docs_1')) * 1.0
    / (SELECT sum(size) FROM ngram_docs)" \
    | awk -F'|' '{ printf "  postings / covered source: %.3f   rest of the index / source (before): %.3f\n", $1, $2 }'

# Walk + stat cost, what a watcher that knows the changed files could save.
start=$(now_ns); rg --files "$TREE" >/dev/null; end=$(now_ns)
echo "rg --files (the walk alone): $(ms_of $((end - start))) ms"

# The watched column: a daemon in a private home watching the tree, ready
# once a search lists the index's files (its first reconcile is done).
watched=no
if [[ -x $DAEMON ]]; then
    mkdir -m 700 "$WHOME"
    REPO_SEARCH_HOME=$WHOME "$BIN" projects watch "$TREE" >/dev/null 2>&1
    # No models for it: its embedder would otherwise compute vectors for
    # the whole tree while the timings run.
    REPO_SEARCH_HOME=$WHOME REPO_SEARCH_MODEL_CACHE=$TMP/no-models REPO_SEARCH_OFFLINE=1 "$DAEMON" start >/dev/null 2>&1 \
        || { echo "error: the daemon did not start" >&2; exit 2; }
    start=$(now_ns)
    for _ in $(seq 600); do
        # (It finds nothing and exits 1: read its log, not its status.)
        probe=$(REPO_SEARCH_HOME=$WHOME "$BIN" keyword --root "$TREE" -vv -e zzz_ready_probe 2>&1 >/dev/null)
        if [[ $probe == *"listed from the index"* ]]; then
            watched=yes
            break
        fi
        sleep 0.5
    done
    echo "daemon watching: $watched (ready after $(ms_of $(($(now_ns) - start))) ms)"
    # Tombstones left by earlier changes: the daemon merges the full-text
    # index in the background once the tree is quiet; time after that.
    start=$(now_ns)
    for _ in $(seq 300); do
        due=$(REPO_SEARCH_HOME=$WHOME "$BIN" status --root "$TREE" --json 2>/dev/null | jq -r .fts_merge_due)
        [[ $due == true ]] || break
        sleep 1
    done
    echo "background full-text merge: ${due:-?} after $(ms_of $(($(now_ns) - start))) ms (false: none left to do)"
fi

# `path:line` sets printed by each.
set_rg() { (cd "$TREE" && rg --no-config -n --no-heading --with-filename --null --color never "$@" -- ./ </dev/null) \
    | tr '\0' '\001' | awk '{ n = index($0, "\001"); if (!n) next; p = substr($0, 1, n - 1); sub(/^\.\//, "", p);
        r = substr($0, n + 1); if (match(r, /^[0-9]+:/)) print p ":" substr(r, 1, RLENGTH) }' | LC_ALL=C sort -u; }
set_ours() { "$BIN" keyword --json --root "$TREE" "$@" </dev/null 2>/dev/null \
    | jq -r '.matches[] | "\(.path):\(.line):"' | LC_ALL=C sort -u; }

run_rg() { (cd "$TREE" && rg --no-config -n --no-heading --with-filename --color never "$@" -- ./); }
run_rgc() { (cd "$TREE" && rg --no-config -n --column --no-heading --with-filename --color never "$@" -- ./); }
run_watched() { REPO_SEARCH_HOME=$WHOME "$BIN" keyword --root "$TREE" "$@"; }
run_idx() { "$BIN" keyword --root "$TREE" "$@"; }
run_scan() { "$BIN" keyword --root "$TREE" --no-index "$@"; }
time_ns() { local s e; s=$(now_ns); "$@" </dev/null >"$TMP/out" 2>&1; e=$(now_ns); echo $((e - s)); }
median() { LC_ALL=C sort -n | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

ratio() { awk -v r="$1" -v i="$2" 'BEGIN { printf "%.2f", r / i }'; }
printf '%-44s %8s %9s %10s %9s %9s %10s %7s %7s  %s\n' pattern "rg ms" "rg-nc ms" "watched ms" "index ms" \
    "scan ms" "nc/watched" "nc/idx" lines equal
failed=0
while IFS= read -r line; do
    [[ -z $line ]] && continue
    eval "args=($line)"
    set_rg "${args[@]}" >"$TMP/rg"
    set_ours "${args[@]}" >"$TMP/idx"
    set_ours --no-index "${args[@]}" >"$TMP/scan"
    equal=yes
    cmp -s "$TMP/rg" "$TMP/idx" && cmp -s "$TMP/rg" "$TMP/scan" || equal=NO
    if [[ $watched == yes ]]; then
        REPO_SEARCH_HOME=$WHOME set_ours "${args[@]}" >"$TMP/watched"
        cmp -s "$TMP/rg" "$TMP/watched" || equal=NO
    fi
    [[ $equal == yes ]] || failed=$((failed + 1))
    : >"$TMP/t_rg"; : >"$TMP/t_rgc"; : >"$TMP/t_w"; : >"$TMP/t_idx"; : >"$TMP/t_scan"
    for _ in $(seq "$ROUNDS"); do
        time_ns run_rg "${args[@]}" >>"$TMP/t_rg"
        time_ns run_rgc "${args[@]}" >>"$TMP/t_rgc"
        [[ $watched == yes ]] && time_ns run_watched "${args[@]}" >>"$TMP/t_w"
        time_ns run_idx "${args[@]}" >>"$TMP/t_idx"
        time_ns run_scan "${args[@]}" >>"$TMP/t_scan"
    done
    rg_ns=$(median <"$TMP/t_rg"); rgc_ns=$(median <"$TMP/t_rgc")
    idx_ns=$(median <"$TMP/t_idx"); scan_ns=$(median <"$TMP/t_scan")
    w_ms=-; w_ratio=-
    if [[ $watched == yes ]]; then
        w_ns=$(median <"$TMP/t_w"); w_ms=$(ms_of "$w_ns"); w_ratio=$(ratio "$rgc_ns" "$w_ns")
    fi
    printf '%-44s %8s %9s %10s %9s %9s %10s %7s %7s  %s\n' "$line" "$(ms_of "$rg_ns")" "$(ms_of "$rgc_ns")" "$w_ms" \
        "$(ms_of "$idx_ns")" "$(ms_of "$scan_ns")" "$w_ratio" "$(ratio "$rgc_ns" "$idx_ns")" "$(wc -l <"$TMP/rg")" "$equal"
done <<<"$CASES"
[[ $failed -eq 0 ]]
