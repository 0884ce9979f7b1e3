#!/usr/bin/env bash
# A/B of a kernel change on one GPU, the BENCH.md way: both builds in one run, every legal config
# of every grid shape timed by each, rounds interleaved base new new base base new ... so drift
# hits both alike, then scripts/ab_compare.py (best config per shape and per-config ratios). Exits
# 1 when a cell of either build failed its float64 check or crashed (ab_compare lists them): a
# faster best that rests on failing configs is not a result.
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
# --objects       one build instead of two, for changes inside kernels/ only: the base's
#                 aot-runner is the working tree's, relinked with the kernel-archive objects whose
#                 sources or headers (ninja's dependency lists) differ in the base recompiled from
#                 the base's files under the same member names (so `ar r` replaces them; objects
#                 added under other names would be shadowed by the new ones). Refused when anything
#                 else that goes into the binary differs.
# Environment: CUDA_ARCHS (default: the GPU's own, via nvidia-smi; 90 with --device sim), JOBS
# (default nproc), BUILD_DIR (the working tree's build, default build-ab-new), BASE_BUILD_DIR
# (default <out>/base-build). The builds are Release.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit "${1:-2}"; }
die() { echo "ab_kernels: $*" >&2; exit 2; }

grid="" base_rev="" base_dir="" rounds=2 out=out/ab device=gpu objects=0
while (($#)); do
  case "$1" in
    --grid) grid=${2:?--grid needs a file}; shift 2 ;;
    --base) base_rev=${2:?--base needs a revision}; shift 2 ;;
    --base-dir) base_dir=${2:?--base-dir needs a folder}; shift 2 ;;
    --rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    --device) device=${2:?--device needs gpu or sim}; shift 2 ;;
    --objects) objects=1; shift ;;
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
base_dir=$(cd "$base_dir" && pwd)  # absolute: the base's compile commands run in the build folder

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

# The base's aot-runner from the working tree's build (--objects): see --help.
relink_base_from_objects() {
  local root tmp f obj member cmd n_before n_after
  root=$(pwd)
  tmp="$out/base-objects"
  rm -rf "$tmp" && mkdir -p "$tmp" "$base_build"
  # Files that make up the binary, in either tree: only kernels/ may differ (heuristics/generated
  # is what dispatch links; aot-runner's bench times every config whatever the heuristic says).
  local -a changed=()
  while IFS= read -r f; do
    case "$f" in
      heuristics/generated/*) continue ;;
      apps/* | codegen/* | dispatch/* | heuristics/* | kernels/* | tuner/* | cmake/* | CMakeLists.txt) ;;
      *) continue ;;
    esac
    if [ ! -f "$f" ] || [ ! -f "$base_dir/$f" ]; then
      die "--objects: $f is in only one of the trees; use the full base build (drop --objects)"
    fi
    cmp -s "$f" "$base_dir/$f" && continue
    case "$f" in
      kernels/*) changed+=("$root/$f") ;;
      *) die "--objects: $f differs outside kernels/; use the full base build (drop --objects)" ;;
    esac
  done < <( { git ls-files; git ls-files --others --exclude-standard;
              (cd "$base_dir" && find . -type f | sed 's|^\./||'); } | sort -u)
  [ ${#changed[@]} -gt 0 ] || die "--objects: no file under kernels/ differs from the base"
  local -a members=()
  for obj in $(ninja -C "$new_build" -t commands libaotune_kernels.a | tail -1 | tr ' ' '\n' | grep '^CMakeFiles/aotune_kernels.dir/.*\.o$'); do
    local deps
    deps=$(ninja -C "$new_build" -t deps "$obj" | sed -n 's/^    //p')
    local hit=0
    for f in "${changed[@]}"; do grep -qxF "$f" <<< "$deps" && { hit=1; break; }; done
    [ $hit = 1 ] || continue
    member=$(basename "$obj")
    cmd=$(ninja -C "$new_build" -t commands "$obj" | tail -1)
    cmd=${cmd//-I$root /-I$base_dir }
    cmd=${cmd// $root\/kernels\// $base_dir/kernels/}
    cmd=${cmd//-o $obj/-o $tmp/$member}
    cmd=${cmd//-MF $obj.d/-MF $tmp/$member.d}
    members+=("$member")
    (cd "$new_build" && eval "$cmd") > "$tmp/$member.log" 2>&1 &
  done
  [ ${#members[@]} -gt 0 ] || die "--objects: no kernel object depends on the changed files"
  echo "ab_kernels: rebuilding ${#members[@]} kernel object(s) from the base: ${members[*]}"
  local failed=0
  for job in $(jobs -p); do wait "$job" || failed=1; done
  [ $failed = 0 ] || die "--objects: a base object did not compile (logs: $tmp/*.log)"
  cp "$new_build/libaotune_kernels.a" "$tmp/libaotune_kernels.a"
  n_before=$(ar t "$tmp/libaotune_kernels.a" | wc -l)
  (cd "$tmp" && ar r libaotune_kernels.a "${members[@]}")
  n_after=$(ar t "$tmp/libaotune_kernels.a" | wc -l)
  [ "$n_before" = "$n_after" ] || die "--objects: the archive grew ($n_before -> $n_after members): a base object was added, not swapped"
  cmd=$(ninja -C "$new_build" -t commands aot-runner | tail -1)
  cmd=${cmd// libaotune_kernels.a / $tmp/libaotune_kernels.a }
  cmd=${cmd//-o aot-runner /-o $base_build/aot-runner }
  (cd "$new_build" && eval "$cmd") > "$tmp/link.log" 2>&1 || die "--objects: relinking failed (log: $tmp/link.log)"
  cmp -s "$new_build/aot-runner" "$base_build/aot-runner" && die "--objects: the base binary is the new one byte for byte"
  echo "ab_kernels: base aot-runner relinked from $n_after archive members, ${#members[@]} of them the base's"
}

if [ "$objects" = 1 ]; then
  echo "ab_kernels: building the working tree ($new_build), then the base's kernel objects, sm_$CUDA_ARCHS"
  BUILD_DIR=$new_build JOBS=$jobs bash scripts/setup.sh > "$out/build-new.log" 2>&1 ||
    { tail -20 "$out/build-new.log"; die "the working tree did not build (log: $out/build-new.log)"; }
  relink_base_from_objects
else
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
fi

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
