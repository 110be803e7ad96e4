#!/usr/bin/env bash
# Runs a command against a throwaway Redis server:
#   test/support/with-redis.sh <command> [args...]
# Installs Debian's redis-server when it is missing (root only), starts one with no persistence on a free local TCP
# port and a unix socket in a temp dir, runs the command with KASIR_TEST_REDIS_URL set to it, then stops the server
# and deletes the dir. The command's exit status is the script's.
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: $0 <command> [args...]" >&2
  exit 2
fi

if ! command -v redis-server >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "with-redis: redis-server is not installed and this is not root; install the redis-server package" >&2
    exit 1
  fi
  echo "with-redis: installing redis-server (apt-get)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q redis-server >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q redis-server >/dev/null; }
fi

ROOT="$(mktemp -d "${TMPDIR:-/tmp}/kasir-redis.XXXXXX")"
# A free port picked by the kernel (node is there: the tests need it anyway).
PORT="$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
PID=""
cleanup() {
  if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; fi
  rm -rf "$ROOT"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A test server: no RDB/AOF files, bound to loopback only.
redis-server --port "$PORT" --bind 127.0.0.1 --unixsocket "$ROOT/redis.sock" --save '' --appendonly no \
  --dir "$ROOT" --logfile "$ROOT/redis.log" --daemonize no &
PID=$!
for _ in $(seq 1 100); do
  if redis-cli -p "$PORT" ping >/dev/null 2>&1; then break; fi
  sleep 0.05
done
redis-cli -p "$PORT" ping >/dev/null 2>&1 || { cat "$ROOT/redis.log" >&2; exit 1; }

export KASIR_TEST_REDIS_URL="redis://127.0.0.1:$PORT"
echo "with-redis: $(redis-server --version | awk '{print $3}') at $KASIR_TEST_REDIS_URL" >&2
set +e
"$@"
status=$?
set -e
exit "$status"
