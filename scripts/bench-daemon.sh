#!/usr/bin/env bash
# Save→searchable latency of repo-search-daemon on a real tree, and the cost
# of a 1,000-file burst (what a `git checkout` looks like to the watcher).
#
# With a private REPO_SEARCH_HOME and a scratch copy of TREE: index it,
# start the daemon, then
#   1. append N new functions to a source file, one at a time, and time each
#      until it is searchable: "db" polls the index (read-only SQLite, as
#      every reader does) every millisecond; "cli" polls `repo-search symbol
#      NAME --exact` in a loop, as the issue's check does;
#   2. write 1,000 new files at once and time until all are searchable,
#      with the number of index runs the daemon needed;
# then stop the daemon. Prints p50/p95/max in milliseconds.
#
# Usage: scripts/bench-daemon.sh [TREE] [EDITS]
#   TREE defaults to the Django 5.1.15 sdist (/tmp/corpora/django-5.1.15,
#   else fetched from the package index into ${CORPORA:-$HOME/.cache/repo-search-corpora}).
#   EDITS defaults to 30 (at least 20).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x target/release/repo-search ] && [ -x target/release/repo-search-daemon ] || cargo build --release --locked >&2
BIN=$(realpath target/release/repo-search)
DAEMON=$(realpath target/release/repo-search-daemon)
TREE=${1:-}
EDITS=${2:-30}
if [ -z "$TREE" ]; then
  TREE=/tmp/corpora/django-5.1.15
  if [ ! -d "$TREE" ]; then
    CORPORA=${CORPORA:-$HOME/.cache/repo-search-corpora}
    TREE=$CORPORA/django-5.1.15
    if [ ! -d "$TREE" ]; then
      mkdir -p "$CORPORA"
      python3 -m pip download --quiet --no-binary :all: --no-deps django==5.1.15 -d "$CORPORA" >&2
      tar xzf "$CORPORA/django-5.1.15.tar.gz" -C "$CORPORA"
    fi
  fi
fi
command -v python3 >/dev/null || { echo "python3 is required" >&2; exit 2; }

SCRATCH=$(mktemp -d /tmp/rs-bench-daemon.XXXXXX)
export REPO_SEARCH_HOME=$SCRATCH/home
unset REPO_SEARCH_LOG CLAUDE_PROJECT_DIR
cleanup() {
  "$DAEMON" stop >/dev/null 2>&1 || true
  rm -rf "$SCRATCH"
}
trap cleanup EXIT

WORK=$SCRATCH/tree
cp -a "$TREE" "$WORK"
rm -rf "$WORK/.repo_search"
echo "== tree: $TREE ($(find "$WORK" -type f | wc -l) files), cores: $(nproc)" >&2
"$BIN" index --root "$WORK" --quiet --no-embed >&2
"$DAEMON" start >&2

# The first reconcile must be done before measuring.
for _ in $(seq 600); do
  if "$DAEMON" status --json | python3 -c 'import json,sys; p=json.load(sys.stdin)["projects"][0]; sys.exit(0 if p["state"]=="watching" and p["runs"]>=1 else 1)'; then
    break
  fi
  sleep 0.05
done

python3 - "$WORK" "$BIN" "$DAEMON" "$EDITS" <<'PY'
import json, os, sqlite3, subprocess, sys, time

work, bin_, daemon, edits = sys.argv[1], sys.argv[2], sys.argv[3], max(20, int(sys.argv[4]))
target = next(p for p in ["django/utils/text.py", "django/db/models/query.py"] if os.path.exists(os.path.join(work, p)))
db = "file:" + os.path.join(work, ".repo_search", "index.db") + "?mode=ro"
tag = str(os.getpid())

def visible(conn, sql, args):
    return conn.execute(sql, args).fetchone()[0]

def append_fn(name, i):
    # One write + close, as an editor's save does.
    with open(os.path.join(work, target), "a") as f:
        f.write(f"\n\ndef {name}():\n    return {i}\n")

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]

def report(label, xs):
    print(f"{label:<34} n={len(xs):<4} p50={pct(xs,50):7.1f} ms  p95={pct(xs,95):7.1f} ms  max={max(xs):7.1f} ms")

def wait_until(check, timeout=10.0, step=0.001):
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if check():
            return True
        time.sleep(step)
    return False

def runs():
    out = subprocess.run([daemon, "status", "--json"], capture_output=True, text=True).stdout
    return json.loads(out)["projects"][0]["runs"]

conn = sqlite3.connect(db, uri=True)
q = "SELECT count(*) FROM symbols WHERE name = ?"

# 1a. Index-visible latency, polling the database every millisecond.
db_ms = []
for i in range(edits):
    name = f"bench_db_{tag}_{i}"
    t0 = time.perf_counter()
    append_fn(name, i)
    if not wait_until(lambda: visible(conn, q, (name,)) > 0):
        sys.exit(f"{name} not searchable after 10 s")
    db_ms.append((time.perf_counter() - t0) * 1000)
    time.sleep(0.15)  # edits a human or an agent makes are not back to back

# 1b. The same through the CLI: `repo-search symbol NAME --exact` in a loop.
def cli_finds(name):
    r = subprocess.run([bin_, "symbol", name, "--exact", "--root", work], capture_output=True)
    return r.returncode == 0

cli_ms = []
for i in range(edits):
    name = f"bench_cli_{tag}_{i}"
    t0 = time.perf_counter()
    append_fn(name, i)
    if not wait_until(lambda: cli_finds(name), step=0):
        sys.exit(f"{name} not found by the CLI after 10 s")
    cli_ms.append((time.perf_counter() - t0) * 1000)
    time.sleep(0.15)

# 2. A 1,000-file burst, all written at once.
runs_before = runs()
burst_dir = os.path.join(work, "django", f"burst_{tag}")
t0 = time.perf_counter()
for i in range(1000):
    d = os.path.join(burst_dir, f"pkg{i % 20}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"mod{i}.py"), "w") as f:
        f.write(f"def burst_{tag}_{i}():\n    return {i}\n\n\nclass Burst{tag}_{i}:\n    pass\n")
written = (time.perf_counter() - t0) * 1000
like = f"burst_{tag}_%"
if not wait_until(lambda: visible(conn, "SELECT count(*) FROM symbols WHERE name LIKE ?", (like,)) >= 1000, timeout=120):
    sys.exit("the burst was not indexed within 120 s")
burst_ms = (time.perf_counter() - t0) * 1000
time.sleep(0.5)
burst_runs = runs() - runs_before

print(f"tree: {work}  edited: {target}")
report("save -> searchable (index, 1 ms poll)", db_ms)
report("save -> `repo-search symbol` finds", cli_ms)
print(f"1,000-file burst: written in {written:.0f} ms, all searchable after {burst_ms:.0f} ms, {burst_runs} index run(s)")
PY
"$DAEMON" stop >&2
