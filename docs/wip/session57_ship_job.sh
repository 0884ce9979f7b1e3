#!/bin/bash
# Session 57's last device call, after the max_vec feature and the nnz_split rule were emitted
# (dff9d7a): the dispatch library's GPU tests through the new header (C++ API, C ABI, graph
# capture, the Python package), jagged_dense_add's seed-101 test set timed on the committed
# kernels (the first timing of it ran on session 55's flat_rows patch by mistake: the build kept
# the patched objects), then the peer benchmark's full grid.
# $OUT: ship.log, ctest.log, jagged_dense_add.json, testset.tgz, peers.json, peers.svg, PERF_device.md
# (docs/PERF.md with the peers table rewritten there).
#   COMMIT=<sha> bash docs/wip/session57_ship_job.sh
set -u; export PATH=$PATH:/usr/local/cuda/bin
T0=$SECONDS; b=$(pwd)/build-gpu
el() { echo "[$((SECONDS-T0)) s] $*" >> $OUT/ship.log; }
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > /tmp/cfg.log 2>&1 \
  && cmake --build $b -j16 > /tmp/build.log 2>&1 || { tail -30 /tmp/cfg.log /tmp/build.log; exit 1; }
el "build on $(nvidia-smi --query-gpu=name --format=csv,noheader); verify: $($b/aot-runner verify 2>&1 | tail -1)"
(cd $b && timeout 200 ctest -j8 -R "DispatchGpu|CApi|GraphCapture|Python|RowBound|CliExplain|JaggedReduce|JaggedSum|JaggedMean" \
   --timeout 150 --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest rc=$?" >> $OUT/ctest.log)
el "$(grep -E 'tests passed|tests failed' $OUT/ctest.log)"
SEED=101 KERNELS=jagged_dense_add DEADLINE=100 bash docs/wip/session52_testset_job.sh > /tmp/ts.log 2>&1
el "dense_add test set: $(grep -E 'bench jagged_dense_add|heuristic' /tmp/ts.log | tr '\n' ' ')"
timeout 330 bash bench/peers.sh > /tmp/peers.log 2>&1
el "peers rc=$? $(tail -3 /tmp/peers.log | tr '\n' ' ')"
cp docs/peers.svg $OUT/ 2>/dev/null; cp docs/PERF.md $OUT/PERF_device.md
cat $OUT/ship.log
