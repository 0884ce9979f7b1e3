#!/usr/bin/env bash
# One command for the peer comparison on a GPU machine: run bench/peers.py against the built
# library, then rewrite the table in docs/PERF.md and the plot docs/peers.svg from its results.
#   bash bench/peers.sh                   # the full grid
#   bash bench/peers.sh --quick           # only the issue's reference rows
#   bash bench/peers.sh --random 48       # 48 shapes drawn over every kernel's space (--seed S)
#                                         # (their own table, docs/peers-random.svg)
#   LIB=build/libaotune.so OUT=out bash bench/peers.sh
#   COMMIT=370bab3 bash bench/peers.sh    # label the table with this commit
set -euo pipefail
cd "$(dirname "$0")/.."
LIB=${LIB:-${BUILD_DIR:-build-gpu}/libaotune.so}
OUT=${OUT:-out}
if [ ! -f "$LIB" ]; then
  echo "peers.sh: $LIB not found; build first (BUILD_DIR=build-gpu bash scripts/setup.sh) or set LIB=" >&2
  exit 2
fi
mkdir -p "$OUT"
name=peers
case " $* " in *" --random "* | *" --random="*) name=peers-random ;; esac
cmd="python3 bench/peers.py --lib $LIB --out $OUT/$name.json $*"
$cmd
# COMMIT= names the code measured where this copy's git metadata does not (a remote runner that
# receives the working tree without its history reports a stale HEAD).
if [ -n "${COMMIT:-}" ]; then
  commit=$COMMIT
else
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  git diff --quiet HEAD -- kernels dispatch heuristics 2>/dev/null || commit="$commit+dirty"
fi
python3 bench/peers_report.py "$OUT/$name.json" --commit "$commit" --perf docs/PERF.md --plot "docs/$name.svg" --command "$cmd"
