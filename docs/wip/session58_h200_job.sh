#!/bin/bash
# Session 58's H200 call (kind nvidia-h200: issue 6's device; issue 4 asks for the dispatch
# library's reference results there), after the grid growth and the 16-tree forests were emitted (3194c1b): the whole test
# suite on the GPU (every kernel config against the float64 reference, the dispatch library
# through the C++ API, the C ABI, graph capture and the Python package), then the peer
# benchmark's full grid. $OUT: ship.log, ctest.log, peers.json, peers.svg, PERF_device.md
# (docs/PERF.md with the peers table rewritten there).
#   COMMIT=<sha> bash docs/wip/session58_h200_job.sh
set -u; . docs/wip/job_common.sh; LOG=$OUT/ship.log
build_gpu || exit 1
el "verify: $($b/aot-runner verify 2>&1 | tail -1)"
(cd $b && timeout 230 ctest -j8 --timeout 200 --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest rc=$?" >> $OUT/ctest.log)
el "$(grep -E 'tests passed|tests failed' $OUT/ctest.log)"
timeout 300 bash bench/peers.sh > /tmp/peers.log 2>&1
el "peers rc=$? $(tail -3 /tmp/peers.log | tr '\n' ' ')"
cp docs/peers.svg $OUT/ 2>/dev/null; cp docs/PERF.md $OUT/PERF_device.md
cat $OUT/ship.log
