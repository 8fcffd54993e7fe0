#!/usr/bin/env bash
# Scores evals/recent.jsonl (questions about recent work on this repository)
# with recency off and on, on a clone of this repository at a fixed commit,
# so the history the questions were judged against (`git log` at that
# commit) does not move as the repository does.
#
#   scripts/recency-eval.sh [COMMIT]      (default 99c5be6)
#
# The clone ignores evals/ (its suite files hold the questions' own words).
# Uses $REPO_SEARCH_EVAL, else target/release/repo-search-eval, else
# target/debug/repo-search-eval; models from $REPO_SEARCH_MODEL_CACHE.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
commit="${1:-99c5be6}"
eval_bin="${REPO_SEARCH_EVAL:-}"
if [[ -z "$eval_bin" ]]; then
  for b in "${CARGO_TARGET_DIR:-$here/target}"/{release,debug}/repo-search-eval; do
    [[ -x "$b" ]] && { eval_bin="$b"; break; }
  done
fi
[[ -x "$eval_bin" ]] || { echo "build repo-search-eval first" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git clone -q "$here" "$work/repo"
git -C "$work/repo" checkout -q "$commit"
printf 'evals/\n' > "$work/repo/.ignore"
cp "$here/evals/recent.jsonl" "$work/repo/evals/recent.jsonl"
for r in off on auto; do
  "$eval_bin" --evals "$work/repo/evals" run recent --modes hybrid --recency "$r" \
    --no-save --json > "$work/$r.json" 2> "$work/$r.err" || { cat "$work/$r.err" >&2; exit 1; }
done
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
runs = {r: json.load(open(f"{w}/{r}.json")) for r in ("off", "on", "auto")}
off = {c["id"]: c["ndcg10_files"] for c in runs["off"]["cases"]}
for r, x in runs.items():
    row = next(y for y in x["rows"] if y["category"] == "all")
    better = sum(c["ndcg10_files"] > off[c["id"]] + 1e-9 for c in x["cases"])
    worse = sum(c["ndcg10_files"] < off[c["id"]] - 1e-9 for c in x["cases"])
    print(f"{r:4}  cases {row['cases']}  NDCG@10 files {row['ndcg10_files']:.4f}  "
          f"chunks {row['ndcg10_chunks']:.4f}  MRR@10 {row['mrr10']:.4f}  "
          f"vs off: {better} better, {worse} worse")
PY
