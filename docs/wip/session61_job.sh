#!/bin/bash
# Session 61's device call when either card may come: on an H100 (the committed databases' device)
# the grid growth (session61_growth_job.sh); on any other card the ship job (the whole suite, the
# graph-capture repeat and the peers on the header of COMMIT).
#   COMMIT=<sha> DEADLINE=<s> bash docs/wip/session61_job.sh
set -u
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q "H100 80GB HBM3"; then
  bash docs/wip/session61_growth_job.sh
else
  # The grids without this session's growth (generator seeds 50000-50999), as main has them.
  python3 -c "
import json
for k in ('jagged_sum', 'jagged_mean', 'jagged_dense_add', 'causal_trailing_mean'):
    p = 'configs/grids/%s.json' % k
    g = json.load(open(p))
    g['generators'] = [x for x in g['generators'] if not 50000 <= x.get('seed', 0) < 51000]
    json.dump(g, open(p, 'w'), indent=2)
"
  bash docs/wip/session59_ship_job.sh
fi
