#!/usr/bin/env bash
# The compute CLI against the compute-fake binary, as a user's script uses it: installed with
# go install, configured by environment variables, results read from stdout with a JSON tool
# (python3), failures told apart by exit code. It runs the README's worked example (with a
# context, a name where an ID goes and describe), then a create
# whose response is lost (injected through compute-fake's control endpoint) and its rerun, which
# must adopt the instance instead of creating a second one. .ci/run runs it.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/compute-e2e.XXXXXX")
fake_pid=""
cleanup() {
  if [ -n "$fake_pid" ]; then kill "$fake_pid" 2>/dev/null || true; wait "$fake_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

passed=0
pass() { passed=$((passed + 1)); echo "ok: $*"; }
fail() { echo "FAIL: $*" >&2; echo "e2e: $passed passed, 1 failed"; exit 1; }

# json EXPR: evaluates a Python expression over the JSON document on stdin, bound to d.
json() { python3 -c 'import json, sys; d = json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }

# control METHOD PATH [BODY]: a request to compute-fake's control endpoint; prints the response.
control() {
  python3 - "$@" <<'EOF'
import os, sys, urllib.request
method, path = sys.argv[1], sys.argv[2]
body = sys.argv[3].encode() if len(sys.argv) > 3 else None
req = urllib.request.Request(os.environ["COMPUTE_API_URL"] + path, data=body, method=method,
                             headers={"X-Fake-Control-Token": "e2e-control", "Content-Type": "application/json"})
with urllib.request.urlopen(req) as resp:
    print(resp.read().decode())
EOF
}

# posts PATH: how many POSTs to PATH compute-fake processed since its log was last cleared.
posts() {
  control GET /_fake/requests | json "sum(1 for r in d['requests'] if r['method'] == 'POST' and r['path'] == '$1' and r['processed'])"
}

# code CMD...: runs a command that may fail and prints its exit code.
code() { set +e; "$@" >/dev/null 2>&1; echo $?; set -e; }

echo "== build compute-fake, and install compute with go install"
(cd "$root" && go build -o "$work/compute-fake" ./cmd/compute-fake)
(cd "$here" && GOBIN="$work/bin" go install .)
export PATH="$work/bin:$PATH"
[ "$(command -v compute)" = "$work/bin/compute" ] || fail "go install put compute in $work/bin"

echo "== start compute-fake on a free loopback port"
"$work/compute-fake" -addr 127.0.0.1:0 -speed 300ms -rate 0 -control-token e2e-control >"$work/fake.log" 2>&1 &
fake_pid=$!
url=""
for _ in $(seq 100); do
  url=$(sed -n 's/^compute-fake listening on //p' "$work/fake.log")
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { cat "$work/fake.log"; fail "compute-fake did not start"; }
echo "compute-fake at $url"

echo "== the README's start of compute-fake ends on its own when the port is taken, and its last line stops it"
# readme_fake ADDR: the README's lines that start compute-fake (on ADDR, in $work), then its last line.
readme_fake() {
  {
    sed -n '/^## A worked example/,/^```$/p' "$here/README.md" | sed -n '/^go build /,/^grep -q /p'
    echo 'echo "fake pid $fake"'
    sed -n '/^## A worked example/,/^```$/p' "$here/README.md" | grep '^kill "$fake"$'
  } | sed "s#127.0.0.1:8080#$1#g; s#/tmp/compute-fake#$work/readme-fake#g" >"$work/readme-fake.sh"
  (cd "$root" && timeout 60 bash "$work/readme-fake.sh")
}
taken=${url#http://}
start=$(date +%s)
readme_fake "$taken" >"$work/readme-fake-taken.out" 2>&1 || true # its last line finds nothing to stop
[ $(($(date +%s) - start)) -lt 30 ] || fail "the README's start ended within its bound"
grep -q "address already in use" "$work/readme-fake-taken.out" || fail "it says why: $(cat "$work/readme-fake-taken.out")"
pid=$(sed -n 's/^fake pid //p' "$work/readme-fake-taken.out")
! kill -0 "$pid" 2>/dev/null || fail "nothing is left running"
pass "the README's start ends when compute-fake cannot listen, saying why"
free=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
readme_fake "127.0.0.1:$free" >"$work/readme-fake-free.out" 2>&1 || fail "the README's start and stop: $(cat "$work/readme-fake-free.out")"
pid=$(sed -n 's/^fake pid //p' "$work/readme-fake-free.out")
for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
! kill -0 "$pid" 2>/dev/null || { kill -9 "$pid"; fail "the README's last line stops the compute-fake it started"; }
pass "the README's last line stops the compute-fake its first lines started"

echo "== the README's worked example"
export COMPUTE_API_URL="$url" COMPUTE_API_TOKEN=Zq8Wv3Xj7Lm2Rt9Hk4Pd
unset COMPUTE_REDIS_URL

echo 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBOpdKM8wSI07+PO4xLDL7zW/kNWGbdFXeHyBU1TRlBn me@workstation' > /tmp/workstation.pub
key=$(compute ssh-key create --name workstation --public-key-file /tmp/workstation.pub -o id)
[ -n "$key" ] || fail "ssh-key create printed its ID"
pass "ssh-key create: $key"

sg=$(compute security-group create --name ssh --region NORD-NO-KRS-1 --rule tcp:ingress:22 --wait -o id)
[ "$(compute security-group get "$sg" -o json | json 'd["status"]')" = created ] || fail "the group is created"
pass "security-group create --wait: $sg"

inst=$(compute instance create --name web-1 --type vcpu-2_memory-4g --region NORD-NO-KRS-1 \
    --image ubuntu-24.04 --ssh-key "$key" --security-group "$sg" --wait -o id)
pass "instance create --wait: $inst"

echo "== a context, a name where an ID goes, describe"
export COMPUTE_CONFIG="$work/config.json"
printf '%s\n' "$COMPUTE_API_TOKEN" >"$work/ctx-token"
compute context create fake --api-url "$url" --token-file "$work/ctx-token"
[ "$(python3 -c 'import os, sys; print(oct(os.stat(sys.argv[1]).st_mode & 0o777))' "$COMPUTE_CONFIG")" = 0o600 ] ||
  fail "the configuration file, which holds the token, is readable by its owner alone"
! compute context list -o json | grep -q "$COMPUTE_API_TOKEN" || fail "context list never shows the token"
[ "$(env -u COMPUTE_API_URL -u COMPUTE_API_TOKEN compute instance get web-1 -o id)" = "$inst" ] ||
  fail "with no environment, the context is used, and the name web-1 finds $inst"
pass "context create (0600), then get web-1 by name through the context: $inst"
compute instance list -o columns=id,name,status,public_ip >"$work/columns.txt"
[ "$(head -1 "$work/columns.txt" | tr -s ' ')" = "ID NAME STATUS PUBLIC IP" ] || fail "-o columns=: $(cat "$work/columns.txt")"
compute instance describe web-1 >"$work/describe.txt"
grep -q "^ID: *$inst\$" "$work/describe.txt" && grep -q "^SSH keys:" "$work/describe.txt" && grep -q "^  - workstation ($key)\$" "$work/describe.txt" ||
  fail "describe shows every field: $(cat "$work/describe.txt")"
pass "instance describe web-1"
[ "$(code compute instance get no-such-name)" = 3 ] || fail "a name no instance has exits 3"
compute context delete fake
unset COMPUTE_CONFIG
pass "a name no instance has exits 3"

compute instance list -o json >"$work/list.json"
[ "$(json 'len(d)' <"$work/list.json")" = 1 ] || fail "one instance listed"
[ "$(json 'd[0]["id"], d[0]["status"]' <"$work/list.json")" = "('$inst', 'active')" ] || fail "the instance is active in the list"
[ "$(json '[g["id"] for g in d[0]["security_groups"]], [k["id"] for k in d[0]["ssh_keys"]]' <"$work/list.json")" = "(['$sg'], ['$key'])" ] ||
  fail "the instance has the group and the key"
compute instance list -o json | python3 -c 'import json,sys; print([i["public_ip"] for i in json.load(sys.stdin)])' >"$work/ips"
grep -Eq "^\['[0-9.]+'\]$" "$work/ips" || fail "the instance has a public address: $(cat "$work/ips")"
pass "instance list -o json, read with python3: $(cat "$work/ips")"

compute instance stop "$inst" --wait
[ "$(compute instance get "$inst" -o json | json 'd["status"]')" = stopped ] || fail "the instance is stopped"
pass "instance stop --wait"

if command -v script >/dev/null; then
  compute instance start "$inst" >/dev/null
  script -qec "compute instance wait $inst --status active -o id" /dev/null >"$work/tty.out"
  grep -q "instance $inst: active (" "$work/tty.out" && grep -q "instance $inst is active after" "$work/tty.out" ||
    fail "a wait on a terminal shows the status and the time: $(cat "$work/tty.out")"
  pass "progress on a terminal (script(1))"
fi

compute instance delete "$inst" --wait
[ "$(code compute instance get "$inst")" = 3 ] || fail "a deleted instance is not found (exit 3)"
pass "instance delete --wait, then get exits 3"

echo "== a create whose response is lost, then a rerun"
control DELETE /_fake/requests >/dev/null
control POST /_fake/faults '{"match":{"method":"POST","path":"/compute/v1/instances"},"times":1,"fault":{"drop_after_processing":true}}' >/dev/null
create=(compute instance create --name web-2 --type vcpu-2_memory-4g --region NORD-NO-KRS-1 --image ubuntu-24.04 --ssh-key "$key" -o id)
first=$("${create[@]}")
[ "$(posts /compute/v1/instances)" = 1 ] || fail "the create was processed once"
pass "a create whose response was lost still prints the instance it made: $first"
again=$("${create[@]}")
[ "$again" = "$first" ] || fail "the rerun adopts $first, not $again"
[ "$(posts /compute/v1/instances)" = 1 ] || fail "the rerun sent no second create"
[ "$(compute instance list -o json | json 'sum(1 for i in d if i["name"] == "web-2")')" = 1 ] || fail "one instance is named web-2"
pass "the rerun adopts $again: one create sent, one instance"

echo "== exit codes and configuration"
control DELETE /_fake/requests >/dev/null
[ "$(code compute instance create --name x --type vcpu-2_memory-4g --region NORD-NO-KRS-1 --image ubuntu-24.04 --ssh-key "$key" --disk-size 10)" = 2 ] ||
  fail "a disk under 80 GiB is a usage error"
[ "$(code compute volume list -o xml)" = 2 ] || fail "an unknown -o is a usage error"
[ "$(control GET /_fake/requests | json 'len(d["requests"])')" = 0 ] || fail "usage errors send nothing"
[ "$(code compute instance create --name x --type vcpu-2_memory-4g --region NORD-NO-KRS-1 --image no-such-image --ssh-key "$key")" = 8 ] ||
  fail "an image the service does not have is refused as invalid (exit 8)"
pass "exit codes 2 (nothing sent) and 8"
printf '%s\n' "$COMPUTE_API_TOKEN" >"$work/token"
[ "$(env -u COMPUTE_API_TOKEN compute --token-file "$work/token" ssh-key get "$key" -o name)" = workstation ] || fail "--token-file"
[ "$(code env -u COMPUTE_API_TOKEN compute ssh-key get "$key")" = 2 ] || fail "no token is a usage error"
pass "--token-file, and no token exits 2"
# A Redis that is not there: the command paces alone and says so once; the Redis client's own log
# lines (a failed dial, again and again) stay out of stderr.
set +e
COMPUTE_REDIS_URL=redis://127.0.0.1:1/0 compute instance wait "$first" --status stopped --timeout 5s >/dev/null 2>"$work/redis.err"
rc=$?
set -e
[ "$rc" = 1 ] || fail "a wait that times out exits 1, not $rc"
[ "$(grep -c 'Redis is unavailable' "$work/redis.err")" = 1 ] || fail "the Redis warning comes once: $(cat "$work/redis.err")"
! grep -q '^redis:' "$work/redis.err" || fail "the Redis client logged on stderr: $(cat "$work/redis.err")"
pass "Redis down: one warning on stderr, nothing else from Redis"

echo "== clean up"
compute instance delete "$first" --wait
compute security-group delete "$sg" --wait
compute ssh-key delete "$key"
[ "$(compute instance list -o id)" = "" ] || fail "no instance is left"
pass "everything deleted"

echo "e2e: $passed passed, 0 failed"
