# Sourced by the device jobs in docs/wip (session 58 on): the build every job starts with, and a
# timestamped log line. Set LOG (a file under $OUT) before calling el.
#   . docs/wip/job_common.sh; LOG=$OUT/x.log; build_gpu [target ...] || exit 1
export PATH=$PATH:/usr/local/cuda/bin
T0=$SECONDS
b=$(pwd)/build-gpu
el() { echo "[$((SECONDS-T0)) s] $*" >> "$LOG"; }
# Configures and builds build-gpu (Release, sm_90 only), every target or those named; on failure
# prints the logs' tails and returns 1.
build_gpu() {
  local targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  cmake -S . -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > /tmp/cfg.log 2>&1 \
    && cmake --build "$b" -j16 "${targets[@]}" > /tmp/build.log 2>&1 || { tail -30 /tmp/cfg.log /tmp/build.log; return 1; }
  el "build on $(nvidia-smi --query-gpu=name --format=csv,noheader)"
}
