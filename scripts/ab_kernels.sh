#!/usr/bin/env bash
# A/B of a kernel change on one GPU, the BENCH.md way: both builds in one run, every legal config
# of every grid shape timed by each, rounds interleaved base new new base base new ... so drift
# hits both alike, then scripts/ab_compare.py (best config per shape and per-config ratios).
#
#   scripts/ab_kernels.sh --grid devgrid.json --base main              # working tree vs main
#   scripts/ab_kernels.sh --grid devgrid.json --base-dir /tmp/old-tree --rounds 4
#
# --base REV      a git revision of this repository (exported with `git archive`)
# --base-dir DIR  a source tree to build as the base instead (e.g. where .git is not at hand)
# --grid FILE     a shape grid ({"kernel": ..., "generators": [...]}); keep it small: each round
#                 times every legal config of every shape (tens of seconds for ten shapes)
# --rounds N      rounds per build (default 2)
# --out DIR       where builds' bench folders and the comparison go (default out/ab)
# --device sim    time on the simulated device (no GPU; both builds' times are the cost model's,
#                 so this only tries the script out)
# Environment: CUDA_ARCHS (default: the GPU's own, via nvidia-smi; 90 with --device sim), JOBS
# (default nproc), BUILD_DIR (the working tree's build, default build-ab-new), BASE_BUILD_DIR
# (default <out>/base-build). The builds are Release.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit "${1:-2}"; }
die() { echo "ab_kernels: $*" >&2; exit 2; }

grid="" base_rev="" base_dir="" rounds=2 out=out/ab device=gpu
while (($#)); do
  case "$1" in
    --grid) grid=${2:?--grid needs a file}; shift 2 ;;
    --base) base_rev=${2:?--base needs a revision}; shift 2 ;;
    --base-dir) base_dir=${2:?--base-dir needs a folder}; shift 2 ;;
    --rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    --device) device=${2:?--device needs gpu or sim}; shift 2 ;;
    -h|--help) usage 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[ -n "$grid" ] || die "--grid is required (see --help)"
[ -f "$grid" ] || die "--grid $grid: no such file"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "--rounds must be a positive whole number, got '$rounds'"
if [ -n "$base_rev" ] && [ -n "$base_dir" ]; then die "give --base or --base-dir, not both"; fi
if [ -z "$base_rev" ] && [ -z "$base_dir" ]; then die "give the base: --base REV or --base-dir DIR"; fi
[[ "$device" =~ ^(gpu|sim)$ ]] || die "--device must be gpu or sim, got '$device'"
if [ "$device" = gpu ]; then
  command -v nvidia-smi >/dev/null || die "no nvidia-smi: an A/B needs a GPU (--device sim tries the script out)"
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
grid=$(cd "$(dirname "$grid")" && pwd)/$(basename "$grid")
if [ -n "$base_rev" ]; then
  git rev-parse --verify --quiet "$base_rev^{commit}" >/dev/null || die "--base $base_rev: not a revision here"
  base_dir="$out/base-src"
  rm -rf "$base_dir" && mkdir -p "$base_dir"
  git archive "$base_rev" | tar -x -C "$base_dir"
fi
[ -f "$base_dir/CMakeLists.txt" ] || die "--base-dir $base_dir: not a source tree (no CMakeLists.txt)"

if [ -z "${CUDA_ARCHS:-}" ]; then
  if [ "$device" = sim ]; then
    CUDA_ARCHS=90
  else
    CUDA_ARCHS=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
  fi
fi
export CUDA_ARCHS
jobs=${JOBS:-$(nproc)}
new_build=${BUILD_DIR:-build-ab-new}
base_build=${BASE_BUILD_DIR:-$out/base-build}

# Both builds at once, each with half the cores.
half=$(( (jobs + 1) / 2 ))
echo "ab_kernels: building the working tree ($new_build) and the base ($base_build), sm_$CUDA_ARCHS"
BUILD_DIR=$new_build JOBS=$half bash scripts/setup.sh > "$out/build-new.log" 2>&1 &
new_pid=$!
( cmake -S "$base_dir" -B "$base_build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHS" && cmake --build "$base_build" -j "$half" --target aot-runner ) \
  > "$out/build-base.log" 2>&1 &
base_pid=$!
wait $new_pid || { tail -20 "$out/build-new.log"; die "the working tree did not build (log: $out/build-new.log)"; }
wait $base_pid || { tail -20 "$out/build-base.log"; die "the base did not build (log: $out/build-base.log)"; }

bench() {  # side round
  local bin=$new_build/aot-runner
  [ "$1" = base ] && bin=$base_build/aot-runner
  if ! "$bin" bench --grid "$grid" --out-dir "$out/$1$2" --force --device "$device" > "$out/$1$2.log" 2>&1; then
    echo "ab_kernels: $1 round $2 did not finish cleanly (a failed check or a crash; $out/$1$2.log)" >&2
  fi
  echo "ab_kernels: $1 round $2 done"
}
# base new, new base, base new, ...: each build goes first in half the rounds.
for ((r = 1; r <= rounds; r++)); do
  if ((r % 2)); then bench base $r; bench new $r; else bench new $r; bench base $r; fi
done
python3 scripts/ab_compare.py "$out" | tee "$out/compare.txt"
