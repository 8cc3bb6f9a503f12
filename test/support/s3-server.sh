#!/usr/bin/env bash
# A private S3 server for the object storage tests: OpenStack Swift (Debian's packages) with s3api and tempauth,
# on free loopback ports, everything (config, rings, devices, logs) under one directory.
#
#   start <dir>  installs Swift when missing, starts it under <dir>, creates the bucket and writes <dir>/env
#                (`source` it for the TEST_S3_* variables)
#   stop <dir>   stops the servers started under <dir> and removes it
set -euo pipefail

BUCKET=svc-test
REGION=us-east-1
ACCESS_KEY=test:tester
SECRET_KEY=testing
# Written first by `start`: `stop` removes only directories that carry it.
MARKER=.s3-server
READY_TIMEOUT=30
REPO=$(cd "$(dirname "$0")/../.." && pwd)

usage() {
  echo "usage: $0 start|stop <dir>" >&2
  exit 2
}

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

install_swift() {
  command -v swift-proxy-server >/dev/null && return
  as_root apt-get update
  # Without the recommends (memcached, a keystone client, GTK for autopkgtest's keyring): four servers need none.
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    swift swift-proxy swift-object swift-container swift-account
}

# Swift's Python: the one its scripts name, not whichever python3 comes first on PATH (pyenv, a venv).
swift_python() { sed -n '1s/^#! *//p' "$(command -v swift-proxy-server)"; }

# Free loopback ports, all held open together so that they differ.
free_ports() {
  "$PYTHON" - "$1" <<'EOF'
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(('127.0.0.1', 0))
print(' '.join(str(s.getsockname()[1]) for s in socks))
EOF
}

# Runs one server against a private swift_dir. Swift reads swift.conf (hash path suffix, storage policies,
# constraints) from the fixed path /etc/swift/swift.conf when its modules are imported; the servers' own
# `swift_dir` option only moves the rings. So the path is set before anything reads it.
write_launcher() {
  cat >"$1" <<'EOF'
import os
import sys

from swift.common import utils

swift_dir, conf_file, app = sys.argv[1:]
assert 'swift.common.storage_policy' not in sys.modules, 'swift.conf was read before its path was set'
utils.SWIFT_CONF_FILE = os.path.join(swift_dir, 'swift.conf')

from swift.common.wsgi import run_wsgi  # noqa: E402 (reads swift.conf)

sys.exit(run_wsgi(conf_file, app, verbose=True))
EOF
}

write_configs() {
  local dir=$1 user=$2 account=$3 container=$4 object=$5 proxy=$6 no_memcache=$7
  local etc=$dir/swift server port

  cat >"$etc/swift.conf" <<EOF
[swift-hash]
swift_hash_path_suffix = $(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')

[storage-policy:0]
name = Policy-0
default = yes
EOF

  for server in account container object; do
    case $server in
      account) port=$account ;;
      container) port=$container ;;
      object) port=$object ;;
    esac
    cat >"$etc/$server-server.conf" <<EOF
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $port
workers = 0
user = $user
swift_dir = $etc
devices = $dir/devices
mount_check = false
recon_cache_path = $dir/cache
log_name = $server-server

[pipeline:main]
pipeline = $server-server

[app:$server-server]
use = egg:swift#$server
EOF
  done

  # `cache` stays: tempauth refuses to work without a memcache client in the request ("Memcache required"), but
  # the client copes with no memcached (a miss on every call), which is all s3api's signature checks need. It
  # points at a port nothing listens on rather than at 127.0.0.1:11211, so that a memcached on this machine
  # never shares cached account and container data between instances.
  cat >"$etc/proxy-server.conf" <<EOF
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $proxy
workers = 0
user = $user
swift_dir = $etc
log_name = proxy-server

[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:catch_errors]
use = egg:swift#catch_errors

[filter:gatekeeper]
use = egg:swift#gatekeeper

[filter:healthcheck]
use = egg:swift#healthcheck

[filter:proxy-logging]
use = egg:swift#proxy_logging

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:$no_memcache
tries = 1
error_suppression_interval = 3600

[filter:listing_formats]
use = egg:swift#listing_formats

[filter:s3api]
use = egg:swift#s3api
# No storage_domain: path-style addresses only.
location = $REGION

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = $SECRET_KEY .admin

[filter:copy]
use = egg:swift#copy

[filter:slo]
use = egg:swift#slo

[filter:dlo]
use = egg:swift#dlo
EOF
}

build_rings() {
  local etc=$1 account=$2 container=$3 object=$4 ring port
  for ring in account container object; do
    case $ring in
      account) port=$account ;;
      container) port=$container ;;
      object) port=$object ;;
    esac
    swift-ring-builder "$etc/$ring.builder" create 8 1 1 >/dev/null
    swift-ring-builder "$etc/$ring.builder" add "r1z1-127.0.0.1:$port/d1" 1 >/dev/null
    swift-ring-builder "$etc/$ring.builder" rebalance >/dev/null
  done
}

# The PIDs listed in <dir>/pids whose command line still names <dir> (a recycled PID is someone else's).
our_pids() {
  local dir=$1 pid
  [ -f "$dir/pids" ] || return 0
  while read -r pid; do
    if tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -qF "$dir/"; then echo "$pid"; fi
  done <"$dir/pids"
}

kill_servers() {
  local dir=$1
  local -a pids
  mapfile -t pids < <(our_pids "$dir")
  [ "${#pids[@]}" -gt 0 ] || return 0
  kill -TERM "${pids[@]}" 2>/dev/null || true
  for _ in $(seq 1 50); do
    mapfile -t pids < <(our_pids "$dir")
    [ "${#pids[@]}" -gt 0 ] || return 0
    sleep 0.1
  done
  kill -KILL "${pids[@]}" 2>/dev/null || true
}

print_logs() {
  local log
  for log in "$1"/log/*.log; do
    printf '\n--- %s\n' "$log"
    tail -n 60 "$log"
  done >&2
}

fail() {
  echo "$1" >&2
  print_logs "$2"
  kill_servers "$2"
  exit 1
}

answers() { curl -s -o /dev/null --max-time 2 "$1"; }

wait_ready() {
  local dir=$1 proxy=$2 pid port
  shift 2
  local deadline=$((SECONDS + READY_TIMEOUT))
  while :; do
    while read -r pid; do
      kill -0 "$pid" 2>/dev/null || fail "a Swift server (pid $pid) exited" "$dir"
    done <"$dir/pids"
    local ready=1
    curl -fs -o /dev/null --max-time 2 "http://127.0.0.1:$proxy/healthcheck" || ready=0
    for port in "$@"; do answers "http://127.0.0.1:$port/" || ready=0; done
    [ "$ready" -eq 1 ] && return 0
    [ "$SECONDS" -lt "$deadline" ] || fail "Swift did not answer within ${READY_TIMEOUT}s" "$dir"
    sleep 0.2
  done
}

create_bucket() {
  (cd "$REPO" && node --no-warnings --input-type=module -e "
    import { S3Client, CreateBucketCommand } from '@aws-sdk/client-s3';
    const s3 = new S3Client({
      endpoint: process.env.TEST_S3_ENDPOINT,
      region: process.env.TEST_S3_REGION,
      forcePathStyle: true,
      credentials: { accessKeyId: process.env.TEST_S3_ACCESS_KEY_ID, secretAccessKey: process.env.TEST_S3_SECRET_ACCESS_KEY },
    });
    await s3.send(new CreateBucketCommand({ Bucket: process.env.TEST_S3_BUCKET }));
    s3.destroy();
  ")
}

start() {
  mkdir -p "$1"
  local dir
  dir=$(cd "$1" && pwd)
  [ ! -e "$dir/pids" ] || {
    echo "$dir already holds a Swift instance (stop it first)" >&2
    exit 1
  }
  touch "$dir/$MARKER"
  install_swift
  PYTHON=$(swift_python)

  local account container object proxy no_memcache user server
  read -r account container object proxy no_memcache <<<"$(free_ports 5)"
  user=$(id -un)
  mkdir -p "$dir/swift" "$dir/devices/d1" "$dir/cache" "$dir/log"
  write_configs "$dir" "$user" "$account" "$container" "$object" "$proxy" "$no_memcache"
  build_rings "$dir/swift" "$account" "$container" "$object"
  write_launcher "$dir/run-server.py"

  : >"$dir/pids"
  for server in account container object proxy; do
    "$PYTHON" "$dir/run-server.py" "$dir/swift" "$dir/swift/$server-server.conf" "$server-server" \
      </dev/null >"$dir/log/$server.log" 2>&1 &
    echo $! >>"$dir/pids"
  done
  wait_ready "$dir" "$proxy" "$account" "$container" "$object"

  cat >"$dir/env" <<EOF
export TEST_S3_ENDPOINT=http://127.0.0.1:$proxy
export TEST_S3_BUCKET=$BUCKET
export TEST_S3_REGION=$REGION
export TEST_S3_ACCESS_KEY_ID=$ACCESS_KEY
export TEST_S3_SECRET_ACCESS_KEY=$SECRET_KEY
EOF
  # shellcheck source=/dev/null
  (source "$dir/env" && create_bucket) || fail "could not create the bucket $BUCKET" "$dir"
  echo "Swift S3 on http://127.0.0.1:$proxy (bucket $BUCKET); source $dir/env"
}

stop() {
  [ -d "$1" ] || return 0
  local dir
  dir=$(cd "$1" && pwd)
  [ -e "$dir/$MARKER" ] || {
    echo "$dir was not made by $0 start; left alone" >&2
    exit 1
  }
  kill_servers "$dir"
  rm -rf "$dir"
}

[ $# -eq 2 ] || usage
case $1 in
  start) start "$2" ;;
  stop) stop "$2" ;;
  *) usage ;;
esac
