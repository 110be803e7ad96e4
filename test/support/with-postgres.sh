#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL cluster:
#   test/support/with-postgres.sh <command> [args...]
# Installs Debian's postgresql when it is missing (root only), initdb's a cluster in a temp dir (run as the
# `postgres` user when root, since postgres refuses to run as root), listens on a unix socket in that dir
# only (no TCP port), runs the command with KASIR_TEST_DATABASE_URL set to the cluster's superuser URL, then
# stops the cluster and deletes it. The command's exit status is the script's.
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: $0 <command> [args...]" >&2
  exit 2
fi

find_bindir() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
  done
  if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return 0; fi
  return 1
}

BINDIR="$(find_bindir || true)"
if [ -z "$BINDIR" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "with-postgres: PostgreSQL is not installed and this is not root; install the postgresql package" >&2
    exit 1
  fi
  echo "with-postgres: installing postgresql (apt-get)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q postgresql >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q postgresql >/dev/null; }
  BINDIR="$(find_bindir)"
fi

ROOT="$(mktemp -d "${TMPDIR:-/tmp}/kasir-pg.XXXXXX")"
RUN=()
if [ "$(id -u)" -eq 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --home-dir "$ROOT" postgres
  chown postgres "$ROOT"
  RUN=(runuser -u postgres --)
fi
DATA="$ROOT/data"
PORT=5432 # only names the socket file (.s.PGSQL.5432) inside $ROOT: no TCP listener

cleanup() {
  "${RUN[@]}" "$BINDIR/pg_ctl" -D "$DATA" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$ROOT"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# KASIR_PG_INITDB_ARGS adds initdb options, e.g. "--locale-provider=icu --icu-locale=en-US" to try a collation
# other than C.UTF-8.
# shellcheck disable=SC2086
"${RUN[@]}" "$BINDIR/initdb" -D "$DATA" -U postgres -A trust -E UTF8 ${KASIR_PG_INITDB_ARGS:-} >"$ROOT/initdb.log" 2>&1 \
  || { cat "$ROOT/initdb.log" >&2; exit 1; }
# A test cluster: durability off for speed; enough connections for a pool per test provider.
"${RUN[@]}" "$BINDIR/pg_ctl" -D "$DATA" -l "$ROOT/postgres.log" -w -t 60 \
  -o "-c listen_addresses='' -k $ROOT -p $PORT -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
  start >/dev/null \
  || { cat "$ROOT/postgres.log" >&2; exit 1; }

# (localhost is a placeholder: the host parameter, a socket directory, is what pg connects to)
export KASIR_TEST_DATABASE_URL="postgres://postgres@localhost:$PORT/postgres?host=$ROOT"
echo "with-postgres: PostgreSQL $("$BINDIR/postgres" --version | awk '{print $3}') at $ROOT" >&2
set +e
"$@"
status=$?
set -e
exit "$status"
