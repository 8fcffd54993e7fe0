#!/usr/bin/env bash
# Compares `repo-search keyword` with `rg` on a real tree: for each case the
# set of printed `path:line` (matches as `path:line:`, context lines as
# `path:line-`) must be identical, and the wall time of each is measured (best
# of 3, the two run alternately).
#
# Usage: scripts/compare-rg.sh TREE [BIN]
#   TREE  directory to search, e.g. /tmp/corpora/django-5.1.15
#   BIN   repo-search binary (default: target/release/repo-search)
#
# Needs: rg, jq, awk. Exit status: 0 if every case is identical, 1 otherwise,
# 2 on a usage or setup error.
set -uo pipefail

usage() { echo "usage: $0 TREE [BIN]" >&2; exit 2; }
[[ $# -ge 1 && $# -le 2 ]] || usage
TREE=$(cd "$1" 2>/dev/null && pwd) || { echo "error: \`$1\` is not a directory" >&2; exit 2; }
BIN=${2:-target/release/repo-search}
[[ -x $BIN ]] || { echo "error: \`$BIN\` is not an executable" >&2; echo "hint: run \`cargo build --release\` first" >&2; exit 2; }
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
for tool in rg jq awk; do
    command -v "$tool" >/dev/null || { echo "error: \`$tool\` is not installed" >&2; exit 2; }
done

# One case per line: the arguments given to both tools, shell-quoted.
# Patterns always go through -e so that leading dashes are safe.
CASES=$(cat <<'EOF'
-e 'def '
-e 'import os'
-e QuerySet
-e get_object_or_404
-e TODO
-e self.assertEqual
-e '^class \w+\('
-e 'def test_\w+'
-e '\b(get|set)_[a-z]+_display\b'
-e '[0-9]{4}-[0-9]{2}-[0-9]{2}'
-e '^\s*#'
-e 'raise \w+Error\('
-e '\)$'
-e '"[^"]*\.html"'
-e '\p{Greek}+'
-e 'é'
-e 'Привет|日本'
-e Language
-i -e django
-i -e 'select .* from'
-i -e 'STRASSE|straße'
-S -e queryset
-S -e QuerySet
-w -e test
-w -e User
-w -e id
-w -e '@property'
-F -e 'self.assertEqual('
-F -e 'a.b*c' -e '[0]' -e '(?P<'
-e foo -e bar -e baz
-g '*.py' -e import
-g '!tests/**' -e 'def '
-g '*.txt' -g '*.html' -g '!docs/releases/**' -e django
-m 1 -e import
-m 2 -e self
-C 2 -e get_user_model
-B 3 -A 1 -e 'class Meta:'
-A 4 -m 1 -e 'def '
--hidden -e coverage
--no-ignore -e 'needle|haystack'
--no-require-git -e ignore
-e '(?i)\bclass\s+\w+View\b'
EOF
)

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

now_ns() { date +%s%N; }

# Prints `path:line:` / `path:line-` for what rg shows.
run_rg() {
    (cd "$TREE" && rg --no-config -n --no-heading --with-filename --null --color never "$@" -- ./ </dev/null) \
        | tr '\0' '\001' \
        | awk '{
            nul = index($0, "\001"); if (nul == 0) next
            path = substr($0, 1, nul - 1); rest = substr($0, nul + 1)
            sub(/^\.\//, "", path)
            if (match(rest, /^[0-9]+[:-]/)) print path ":" substr(rest, 1, RLENGTH)
        }'
}

# Prints the same for repo-search's JSON output.
run_ours() {
    "$BIN" keyword --json --root "$TREE" "$@" </dev/null \
        | jq -r '.matches[] | .path as $p
            | (.before[] | "\($p):\(.line)-"), "\($p):\(.line):", (.after[] | "\($p):\(.line)-")'
}

# Wall time in microseconds of one run of "$@". The output goes to a real
# file for both tools (not /dev/null, which some greps special-case).
time_us() {
    local start end
    start=$(now_ns); "$@" </dev/null >"$TMP/timing.out" 2>&1; end=$(now_ns)
    echo $(( (end - start) / 1000 ))
}

rg_timed() { (cd "$TREE" && rg --no-config -n --no-heading --with-filename --color never "$@" -- ./); }
ours_timed() { "$BIN" keyword --json --root "$TREE" "$@"; }

echo "tree: $TREE"
echo "bin:  $BIN ($(rg --version | head -1))"
total=0 failed=0 ratios=()
while IFS= read -r line; do
    [[ -z $line ]] && continue
    eval "args=($line)"
    total=$((total + 1))
    run_rg "${args[@]}" | LC_ALL=C sort -u >"$TMP/rg"
    run_ours "${args[@]}" 2>"$TMP/err" | LC_ALL=C sort >"$TMP/ours_all"
    LC_ALL=C sort -u "$TMP/ours_all" >"$TMP/ours"
    dups=$(( $(wc -l <"$TMP/ours_all") - $(wc -l <"$TMP/ours") ))
    # Timing: best of 3, alternating the two tools so load affects both.
    rg_us= ours_us=
    for _ in 1 2 3; do
        t=$(time_us rg_timed "${args[@]}"); [[ -z $rg_us || $t -lt $rg_us ]] && rg_us=$t
        t=$(time_us ours_timed "${args[@]}"); [[ -z $ours_us || $t -lt $ours_us ]] && ours_us=$t
    done
    rg_best=$(awk -v us="$rg_us" 'BEGIN { printf "%.1f", us / 1000 }')
    ours_best=$(awk -v us="$ours_us" 'BEGIN { printf "%.1f", us / 1000 }')
    ratio=$(awk -v o="$ours_us" -v r="$rg_us" 'BEGIN { printf "%.2f", (r > 0 ? o / r : 1) }')
    ratios+=("$(awk -v o="$ours_us" -v r="$rg_us" 'BEGIN { printf "%.6f", (r > 0 && o > 0 ? o / r : 1) }')")
    n=$(wc -l <"$TMP/rg")
    if cmp -s "$TMP/rg" "$TMP/ours" && [[ $dups -eq 0 ]]; then
        printf 'OK   %8d lines  ours %8s ms  rg %8s ms  x%s  %s\n' "$n" "$ours_best" "$rg_best" "$ratio" "$line"
    else
        failed=$((failed + 1))
        printf 'DIFF %8d lines  ours %8s ms  rg %8s ms  x%s  %s\n' "$n" "$ours_best" "$rg_best" "$ratio" "$line"
        [[ -s $TMP/err ]] && sed 's/^/       stderr: /' "$TMP/err" | head -3
        [[ $dups -gt 0 ]] && echo "       $dups duplicated lines in our output"
        diff "$TMP/rg" "$TMP/ours" | grep '^[<>]' | sed 's/^</       only rg:  /; s/^>/       only ours:/' | head -5
    fi
done <<<"$CASES"

geomean=$(printf '%s\n' "${ratios[@]}" | awk '{ s += log($1); n++ } END { printf "%.2f", (n ? exp(s / n) : 0) }')
echo "$total cases, $failed differing; time ratio ours/rg (best of 3): geometric mean x$geomean"
[[ $failed -eq 0 ]]
