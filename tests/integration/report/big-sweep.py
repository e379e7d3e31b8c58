#!/usr/bin/env python3
# A synthetic 1024-node sweep/1 document (all pairs; nodes 6 and 701 slow,
# one failed pair) for the report page: tests/integration/report-html.sh
# checks it renders every cell, tests/bench/report.sh times it.
# Usage: big-sweep.py OUT.json
import random, sys
n, leaves = 1024, 32
random.seed(7)
names = ["node%04d" % (i + 1) for i in range(n)]
slow, failed = {5, 700}, {(10, 900)}
f = open(sys.argv[1], "w")
f.write('{"schema":"fabricctl.sweep/1","transport":"tcp","launcher":"ssh","mode":"all-pairs",'
        '"started_unix":1796044535,"wall_s":3600.0,"nodes":[')
f.write(",".join('{"name":"%s","address":"10.1.%d.%d","rdma":null,"rate_gbps":null,"leaf":"leaf%02d"}'
                 % (nm, i // 250, i % 250 + 1, i % leaves + 1) for i, nm in enumerate(names)))
f.write('],"rounds":%d,"config":{"slow_pct":80},"reference":{"bw_median_mbps":94000.0,'
        '"bw_mad_mbps":900.0,"lat_median_ns":3900,"lat_mad_ns":200},' % (n - 1))
parts, cnt = [], {"ok": 0, "slow": 0, "failed": 0}
for i in range(n):
    for j in range(i + 1, n):
        if (i, j) in failed:
            cnt["failed"] += 1
            parts.append('{"a":"%s","b":"%s","status":"failed","reason":"worker %s: killed by signal 9",'
                         '"round":1,"lat_ns":null,"bw_ab":null,"bw_ba":null,"bw_mbps":null}'
                         % (names[i], names[j], names[j]))
            continue
        bad = i in slow or j in slow
        ref = 9500.0 if bad else 94000.0
        b1, b2 = ref * random.uniform(0.97, 1.03), ref * random.uniform(0.97, 1.03)
        st = "slow" if bad else "ok"
        cnt[st] += 1
        parts.append('{"a":"%s","b":"%s","status":"%s","reason":%s,"round":%d,"lat_ns":{"p50":%d,"p99":%d},'
                     '"bw_ab":{"avg_mbps":%.1f},"bw_ba":{"avg_mbps":%.1f},"bw_mbps":%.1f}'
                     % (names[i], names[j], st, '"bandwidth low"' if bad else "null", (i + j) % (n - 1) + 1,
                        random.randint(3700, 4200), random.randint(5000, 9000), b1, b2, min(b1, b2)))
f.write('"summary":{"pairs":%d,"ok":%d,"slow":%d,"failed":%d},"pairs":['
        % (len(parts), cnt["ok"], cnt["slow"], cnt["failed"]))
f.write(",".join(parts))
f.write('],"suspects":[{"node":"%s","link":null,"score":1.0,"evidence":{"text":"slow with everyone"}}]}\n'
        % names[5])
