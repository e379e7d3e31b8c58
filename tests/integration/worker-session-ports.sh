#!/bin/bash
# run-all: beside-vm (no measured rate or latency decides it: tests/run-all)
# A worker's test session frees its ports before it answers (issue 24):
# the controller starts a host's next test as soon as it has both answers
# of the last, and a steered tcp test listens on the same port D every
# time (docs/paths.md "Steering").  The worker used to close the session
# after its answer, so the next listener's bind could meet the last one
# still open: `tcp: bind ADDR port D: Address already in use`, 2 of 9
# runs of sweep-steer.sh at 0.2 s tests.  Here one worker serves 60
# steered pairs on 127.0.0.1, one after another on the same ports, and
# right after each listen session's answer this script binds and listens
# on D itself, as the host's next test would.  Before the fix 15 of 100
# such binds failed; the test takes about 3 s.
set -eu
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need_cmd python3 timeout
need_fabricctl
tmpdir_with_cleanup

pretty "fabricctl worker: 60 steered tcp pairs on 127.0.0.1, each listener's port bound after its answer"
rc=0
timeout 60 python3 - "$FABRICCTL" 60 >"$TMP/out" 2>&1 <<'EOF' || rc=$?
import json, random, socket, subprocess, sys

exe, n = sys.argv[1], int(sys.argv[2])

def free(p):
    """True when 127.0.0.1:p..p+2 can be bound now."""
    socks = []
    try:
        for k in range(3):
            s = socket.socket()
            socks.append(s)
            s.bind(("127.0.0.1", p + k))
        return True
    except OSError:
        return False
    finally:
        for s in socks:
            s.close()

# Below the ephemeral range, as a sweep's steered ports (model/steer_tuple.h).
P = next(p for p in (random.randrange(10000, 29990) for _ in range(200)) if free(p))
w = subprocess.Popen([exe, "worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
tok = "ab" * 16
plan = {"lat_iters": 10, "msg_bytes": 64, "duration_ms": 10, "interval_ms": 5, "streams": 1,
        "bw_fwd": True, "bw_rev": True, "timeout_ms": 5000,
        "port": P, "sport_fwd": P + 1, "sport_rev": P + 2}

def send(m):
    m["v"] = 1
    w.stdin.write(json.dumps(m) + "\n")
    w.stdin.flush()

def read():
    line = w.stdout.readline()
    if not line:
        sys.exit("the worker ended")
    return json.loads(line)

def want_event(name):
    m = read()
    if m.get("event") != name:
        sys.exit("want event %s, got %s" % (name, m))
    return m

bad = 0
for i in range(n):
    lid, cid = 2 * i + 1, 2 * i + 2
    send({"id": lid, "op": "listen", "transport": "tcp", "addr": "127.0.0.1", "token": tok,
          "plan": plan})
    m = read()
    if m.get("ok") is False:
        print("pair %d: listen: %s" % (i, m["error"]))
        bad += 1
        continue
    send({"id": cid, "op": "connect", "transport": "tcp", "addr": "127.0.0.1", "token": tok,
          "plan": plan, "peer": m["endpoint"]})
    m = want_event("ready")
    send({"id": lid, "op": "peer", "endpoint": m["endpoint"]})
    want_event("armed")
    send({"id": cid, "op": "go"})
    for _ in range(2):
        m = read()
        if not m.get("ok"):
            print("pair %d: %s" % (i, m))
            bad += 1
        if m["id"] != lid:
            continue
        # The host's next test, at once: a listener on D (SO_REUSEADDR, as tcp.c's).
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", P))
            s.listen(1)
        except OSError as e:
            print("pair %d: port %d after the listen session's answer: %s" % (i, P, e))
            bad += 1
        s.close()
send({"id": 2 * n + 1, "op": "bye"})
w.wait(timeout=10)
print("ports %d-%d: %d of %d pairs failed or left the port taken" % (P, P + 2, bad, n))
sys.exit(1 if bad else 0)
EOF
cat "$TMP/out" >&2
assert_eq "worker sessions: exit" 0 "$rc"
assert_eq "pairs whose port was still taken or failed" 0 \
	"$(sed -n 's/.*: \([0-9]*\) of 60 pairs failed.*/\1/p' "$TMP/out")"
echo "worker-session-ports: all checks passed" >&2
