#!/usr/bin/env bash
# The compute CLI against the compute-fake binary, as a user's script uses it: installed with
# go install, configured by environment variables, results read from stdout with a JSON tool
# (python3), failures told apart by exit code. It runs the README's worked example as the script it
# says to save (and once with its fake's port taken, where it must stop before any compute command),
# its steps again with a context, a name where an ID goes and describe, then a create whose
# response is lost (injected through compute-fake's control endpoint) and its rerun, which must
# adopt the instance instead of creating a second one, a stop and a delete of several IDs in one
# command, and a fleet of processes (xargs -P). .ci/run runs it.
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

echo "== the README's worked example, run as the script it says to save"
# readme_example [ADDR]: the README's worked example as a script, its files in $work, compute-fake on
# ADDR instead of a free port when given; a compute on PATH that logs each run to $work/shim.log.
readme_example() {
  mkdir -p "$work/shim" "$work/readme"
  printf '#!/usr/bin/env bash\necho "$*" >>"%s/shim.log"\nexec "%s/bin/compute" "$@"\n' "$work" "$work" >"$work/shim/compute"
  chmod +x "$work/shim/compute"
  rm -f "$work/shim.log"
  sed -n '/^## A worked example/,/^```$/p' "$here/README.md" | sed '1,/^```sh$/d; /^```$/d' |
    sed "s#/tmp/#$work/readme/#g" >"$work/readme-example.sh"
  if [ -n "${1:-}" ]; then sed -i "s#-addr 127.0.0.1:0#-addr $1#" "$work/readme-example.sh"; fi
  (cd "$root" && env -u COMPUTE_API_URL -u COMPUTE_API_TOKEN PATH="$work/shim:$PATH" timeout 120 bash "$work/readme-example.sh")
}
taken=${url#http://}
start=$(date +%s)
set +e
readme_example "$taken" >"$work/readme-taken.out" 2>&1
rc=$?
set -e
[ "$rc" != 0 ] || fail "the example stops when its fake cannot listen: $(cat "$work/readme-taken.out")"
[ $(($(date +%s) - start)) -lt 60 ] || fail "the example's start ended within its bound"
grep -q "address already in use" "$work/readme-taken.out" || fail "it says why: $(cat "$work/readme-taken.out")"
[ ! -e "$work/shim.log" ] || fail "no compute command ran against what holds the port: $(cat "$work/shim.log")"
pass "the README's example stops, saying why, when compute-fake cannot listen; no compute command ran"
readme_example >"$work/readme-free.out" 2>&1 || fail "the README's example runs whole: $(tail -20 "$work/readme-free.out")"
grep -q "instance create" "$work/shim.log" && grep -q "ssh-key delete" "$work/shim.log" || fail "the example ran its commands: $(cat "$work/shim.log")"
pid=$(pgrep -f "$work/readme/compute-fake" || true)
[ -z "$pid" ] || { kill "$pid"; fail "the README's last line stops the compute-fake it started"; }
pass "the README's example runs whole against its own compute-fake, and its last line stops it"

echo "== the README's worked example"
export COMPUTE_API_URL="$url" COMPUTE_API_TOKEN=Zq8Wv3Xj7Lm2Rt9Hk4Pd
unset COMPUTE_REDIS_URL
export COMPUTE_RATE_DIR="$work/rate" # the machine-wide pacing, in this run's own directory

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

echo "== several resources in one command, and a fleet of processes"
fleet=()
for i in 1 2 3 4 5 6 7 8; do
  fleet+=("$(compute instance create --name "fleet-$i" --type vcpu-2_memory-4g --region NORD-NO-KRS-1 --image ubuntu-24.04 --ssh-key "$key" -o id)")
done
compute instance wait "${fleet[0]}" --status active -o id >/dev/null
set +e
compute instance stop "${fleet[0]}" fleet-2 "${fleet[2]}" --wait -o id >"$work/stop.out" 2>"$work/stop.err"
rc=$?
set -e
[ "$rc" = 0 ] || fail "stop of three instances: exit $rc: $(cat "$work/stop.err")"
[ "$(wc -l <"$work/stop.out")" = 3 ] && [ "$(grep -c ': stopped$' "$work/stop.err")" = 3 ] ||
  fail "three IDs on stdout, a line each on stderr: $(cat "$work/stop.out" "$work/stop.err")"
set +e
compute instance delete "${fleet[0]}" fleet-2 "${fleet[2]}" no-such-instance >/dev/null 2>"$work/delete.err"
rc=$?
set -e
[ "$rc" = 3 ] || fail "a several-ID delete with one missing exits 3 (the worst), not $rc: $(cat "$work/delete.err")"
[ "$(grep -c ': delete requested$' "$work/delete.err")" = 3 ] && grep -q '^compute: instance no-such-instance: no instance has the ID or the name' "$work/delete.err" ||
  fail "a line per resource: $(cat "$work/delete.err")"
compute instance delete "${fleet[0]}" fleet-2 "${fleet[2]}" --wait 2>"$work/delete.err" || fail "delete --wait of three being deleted: $(cat "$work/delete.err")"
[ "$(grep -c ': deleted$' "$work/delete.err")" = 3 ] || fail "a line per resource: $(cat "$work/delete.err")"
pass "stop and delete of several IDs and names in one command: a line each, the worst exit code"
printf '%s\n' "${fleet[@]:3}" | xargs -P5 -n1 compute instance delete --wait 2>"$work/xargs.err" || fail "xargs -P5 compute instance delete: $(cat "$work/xargs.err")"
[ -z "$(compute instance list -o name | grep '^fleet-' || true)" ] || fail "the fleet is gone: $(compute instance list -o name)"
pass "a fleet of processes (xargs -P5 compute instance delete) deletes every instance"

echo "== clean up"
compute instance delete "$first" --wait
compute security-group delete "$sg" --wait
compute ssh-key delete "$key"
[ "$(compute instance list -o id)" = "" ] || fail "no instance is left"
pass "everything deleted"

echo "e2e: $passed passed, 0 failed"
