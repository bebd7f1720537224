#!/usr/bin/env bash
# The CLI in shell fleets, measured: against compute-fake holding a token to 10 requests a second
# with a burst of 1 (-rate 10 -burst 1, the service's published rate taken strictly), it runs
#   back-to-back: N commands one after the other (compute ssh-key get, one request each), and
#   xargs -P6:    xargs -P6 compute instance delete over M instances (one request each),
# three ways: each process pacing alone (COMPUTE_RATE_DIR=off), the machine-wide pacing through a
# file (the default), and the pacing shared through Redis (COMPUTE_REDIS_URL), the last two on a new
# budget and then on the same budget again (a Redis budget paces from responses from its first 429
# on; the file from its first request). For each
# it prints the time, the floor the rate allows ((requests - 1) / rate), their ratio, the 429s that
# compute-fake's request log holds and the commands that failed (exit code 6 once the 429s outlast
# the retries), as a Markdown table for BENCHMARKS.md.
#
#   bash fleetbench.sh [N [M]]      # from cmd/compute; N=20 and M=30 by default
#
# Timings are only worth reading on a quiet machine (uptime's load well under the cores).
set -euo pipefail

n=${1:-20}
m=${2:-30}
rate=10
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/compute-fleet.XXXXXX")
fake_pid="" redis_pid=""
cleanup() {
  for pid in $fake_pid $redis_pid; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

(cd "$root" && go build -o "$work/compute-fake" ./cmd/compute-fake)
(cd "$here" && go build -o "$work/compute" .)
compute="$work/compute"

"$work/compute-fake" -addr 127.0.0.1:0 -speed 0 -rate "$rate" -burst 1 -control-token fleet-control >"$work/fake.log" 2>&1 &
fake_pid=$!
url=""
for _ in $(seq 100); do
  url=$(sed -n 's/^compute-fake listening on //p' "$work/fake.log")
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { cat "$work/fake.log"; exit 1; }
export COMPUTE_API_URL="$url" COMPUTE_API_TOKEN=Zq8Wv3Xj7Lm2Rt9Hk4Pd COMPUTE_CONFIG="$work/config.json"
unset COMPUTE_REDIS_URL COMPUTE_CONTEXT

redis_url=""
if command -v redis-server >/dev/null; then
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no >"$work/redis.log" 2>&1 &
  redis_pid=$!
  for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  redis_url="redis://127.0.0.1:$port/0"
fi

# control METHOD PATH: a request to compute-fake's control endpoint; prints the response.
control() {
  python3 - "$1" "$2" <<'EOF'
import os, sys, urllib.request
req = urllib.request.Request(os.environ["COMPUTE_API_URL"] + sys.argv[2], method=sys.argv[1],
                             headers={"X-Fake-Control-Token": "fleet-control"})
with urllib.request.urlopen(req) as resp:
    print(resp.read().decode())
EOF
}

# count429: the 429s in compute-fake's request log since it was last cleared.
count429() {
  control GET /_fake/requests | python3 -c 'import json, sys; print(sum(1 for r in json.load(sys.stdin)["requests"] if r["status"] == 429))'
}

# now: seconds since the epoch, with nanoseconds.
now() { date +%s.%N; }

# row WAY WHAT REQUESTS START END FAILED: one line of the table.
row() {
  python3 - "$@" "$(count429)" "$rate" <<'EOF'
import sys
way, what, requests, start, end, failed, n429, rate = sys.argv[1:]
took = float(end) - float(start)
floor = (int(requests) - 1) / float(rate)
print(f"| {way} | {what} | {requests} | {took:.2f} s | {floor:.2f} s | {took / floor:.2f} | {n429} | {failed} |")
EOF
}

# settle: forget the log, and let the token's budget at compute-fake fill again.
settle() {
  control DELETE /_fake/requests >/dev/null
  sleep 1.5
}

# way NAME: runs both fleets with the environment the caller set.
way() {
  settle
  : >"$work/errors"
  start=$(now)
  for _ in $(seq "$n"); do "$compute" ssh-key get key-ci -o id >/dev/null 2>>"$work/errors" || true; done
  end=$(now)
  row "$1" "$n commands back to back" "$n" "$start" "$end" "$(grep -c '^compute: ' "$work/errors" || true)"

  # The instances to delete, made at the pace the file allows, then the fleet.
  COMPUTE_RATE_DIR="$work/make-rate" bash -c 'for i in $(seq "$1"); do
    "$2" instance create --name "fleet-$i" --type vcpu-2_memory-4g --region NORD-NO-KRS-1 --image ubuntu-24.04 --ssh-key key-ci -o id
  done' _ "$m" "$compute" >"$work/ids"
  settle
  : >"$work/errors"
  start=$(now)
  xargs -P6 -n1 "$compute" instance delete <"$work/ids" 2>"$work/errors" || true
  end=$(now)
  row "$1" "xargs -P6 compute instance delete, $m instances" "$m" "$start" "$end" "$(grep -c '^compute: ' "$work/errors" || true)"
}

echo "| pacing | fleet | requests | time | floor | time / floor | 429s | failed commands |"
echo "|---|---|---|---|---|---|---|---|"
COMPUTE_RATE_DIR=off way "each process alone"
# Each shared way on a new budget, then on the same budget again, as a user's machine has it after
# a while (a Redis budget keeps the pacing from responses that its first 429 turned on).
COMPUTE_RATE_DIR="$work/rate" way "machine-wide (a file), a new file"
COMPUTE_RATE_DIR="$work/rate" way "machine-wide (a file), again"
if [ -n "$redis_url" ]; then
  COMPUTE_RATE_DIR=off COMPUTE_REDIS_URL="$redis_url" way "Redis, a new budget"
  COMPUTE_RATE_DIR=off COMPUTE_REDIS_URL="$redis_url" way "Redis, again"
fi
