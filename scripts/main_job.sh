#!/usr/bin/env bash
# The README's main job, run after scripts/setup.sh. Everything goes to a fresh folder
# (out/main-job/<time>/); committed databases and headers are never touched unless MAIN_JOB_IN_PLACE=1.
#   With a GPU:    tune the default grids for this GPU's architecture (quick effort), fit and print
#                  the held-out scores, emit headers, and run one shape with the new heuristic.
#   Without one:   fit and print the scores of the committed databases, emit into the out folder
#                  (and show it equals the committed headers), verify, and explain a sample shape
#                  for sm90, sm120 (falls back to sm90) and sm75 (older than everything tuned).
# Environment: BUILD_DIR (build), MAIN_JOB_OUT (out/main-job/<time>), MAIN_JOB_EFFORT (quick),
# MAIN_JOB_IN_PLACE=1 (GPU: write configs/<arch>/ and heuristics/generated/ for committing).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${BUILD_DIR:-build}
RUNNER="$BUILD_DIR/aot-runner"
OUT=${MAIN_JOB_OUT:-out/main-job/$(date +%Y%m%d-%H%M%S)}
EFFORT=${MAIN_JOB_EFFORT:-quick}
KERNELS=(jagged_sum jagged_mean jagged_dense_add causal_trailing_mean)
SAMPLE_KERNEL=jagged_sum
SAMPLE_SHAPE="B=1024,M=256,len=512,dist=powerlaw"

if [ ! -x "$RUNNER" ]; then
  echo "main_job: $RUNNER not found: run 'bash scripts/setup.sh' first (BUILD_DIR=$BUILD_DIR)" >&2
  exit 1
fi
mkdir -p "$OUT"
step() { printf '\n== %s\n' "$*"; }

step "aot-runner devices"
set +e
"$RUNNER" devices
devices_rc=$?
set -e
if [ "$devices_rc" -ne 0 ] && [ "$devices_rc" -ne 3 ]; then
  echo "main_job: aot-runner devices failed (exit $devices_rc)" >&2
  exit "$devices_rc"
fi

if [ "$devices_rc" -eq 0 ]; then
  # ---- a GPU: tune this architecture, fit, emit, run -------------------------------------------
  arch=$("$RUNNER" devices --json | sed -n 's/.*"arch": "\(sm[0-9]*\)".*/\1/p' | head -n 1)
  if [ "${MAIN_JOB_IN_PLACE:-0}" = 1 ]; then
    configs=configs
    generated=heuristics/generated
  else
    configs="$OUT/configs"
    generated="$OUT/generated"
    mkdir -p "$configs" "$generated"
    # The other architectures' committed databases, and a manifest that lists this one too, so
    # emit writes every header heuristic_archs.h includes.
    for d in configs/sm*/; do
      [ "$(basename "$d")" = "$arch" ] || cp -r "$d" "$configs/"
    done
    if grep -q "\"$arch\"" configs/manifest.json; then
      cp configs/manifest.json "$configs/manifest.json"
    else
      sed "s/\"architectures\": \[/&\"$arch\", /" configs/manifest.json >"$configs/manifest.json"
    fi
  fi
  step "aot-runner tune --effort $EFFORT ($arch -> $configs/$arch/)"
  "$RUNNER" tune --effort "$EFFORT" --out-dir "$configs" --resume
  step "held-out scores (aot-runner fit)"
  for k in "${KERNELS[@]}"; do
    "$RUNNER" fit --kernel "$k" --arch "$arch" --configs "$configs" | tee "$OUT/fit-$k.txt"
    echo
  done
  step "aot-runner emit --arch $arch -> $generated"
  "$RUNNER" emit --arch "$arch" --configs "$configs" --out "$generated" --json "$OUT/heuristic-json"
  step "aot-runner run $SAMPLE_KERNEL $SAMPLE_SHAPE, with the new heuristic"
  AOTUNE_HEURISTIC_DIR="$OUT/heuristic-json" "$RUNNER" run --kernel "$SAMPLE_KERNEL" \
    --shape "$SAMPLE_SHAPE"
  if [ "${MAIN_JOB_IN_PLACE:-0}" = 1 ]; then
    step "aot-runner verify"
    "$RUNNER" verify
    echo "main_job: commit configs/$arch/, heuristics/generated/ and configs/manifest.json (docs/USAGE.md)"
  fi
  echo "main_job: done; databases, headers and scores are in $OUT"
  exit 0
fi

# ---- no GPU: the committed tuning, fitted, emitted, verified and explained ----------------------
step "held-out scores of the committed sm90 databases (aot-runner fit)"
for k in "${KERNELS[@]}"; do
  "$RUNNER" fit --kernel "$k" --arch sm90 | tee "$OUT/fit-$k.txt"
  echo
done

# From here a failing step is reported at the end; the steps after it still run and show what the
# committed tuning does.
failed=()
step "aot-runner emit -> $OUT/generated (the committed headers are not touched)"
if "$RUNNER" emit --out "$OUT/generated" --json "$OUT/heuristic-json"; then
  for h in heuristics/generated/*.h; do
    if cmp -s "$h" "$OUT/generated/$(basename "$h")"; then
      echo "same as committed: $h"
    else
      echo "main_job: $OUT/generated/$(basename "$h") differs from $h (verify says why)" >&2
    fi
  done
else
  failed+=(emit)
fi

step "aot-runner verify"
"$RUNNER" verify || failed+=(verify)

for arch in sm90 sm120 sm75; do
  step "aot-runner explain --kernel $SAMPLE_KERNEL --shape $SAMPLE_SHAPE --arch $arch"
  "$RUNNER" explain --kernel "$SAMPLE_KERNEL" --shape "$SAMPLE_SHAPE" --arch "$arch"
done

step "aot-runner bench on the committed database (no GPU: scores the heuristic on its tuning grid)"
"$RUNNER" bench --grid configs/grids/jagged_sum.json --db configs/sm90/jagged_sum.json \
  --csv "$OUT/bench-jagged_sum.csv" | tail -n 4
if command -v python3 >/dev/null; then
  python3 scripts/plot_bench.py "$OUT/bench-jagged_sum.csv" -o "$OUT/bench-jagged_sum.svg"
fi
echo
if ((${#failed[@]})); then
  echo "main_job: FAILED: ${failed[*]} (problems and fixes listed above); outputs in $OUT" >&2
  exit 1
fi
echo "main_job: done (no GPU: nothing was measured); outputs in $OUT"
echo "main_job: on a GPU machine the same command tunes that GPU's architecture (docs/USAGE.md)"
