#!/usr/bin/env bash
# Starts a throwaway PostgreSQL 15 cluster on 127.0.0.1 and a free port, for tests.
#   source scripts/postgres-cluster.sh   → exports TEST_DATABASE_URL, stops the cluster when the shell exits
# initdb refuses to run as root, so as root the cluster belongs to the `postgres` user.
set -euo pipefail
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
pg_dir=$(mktemp -d /tmp/codebook-pg.XXXXXX)
pg_port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
as_owner() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/bash -c "$*"; else bash -c "$*"; fi; }
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
  chown postgres "$pg_dir"
fi
as_owner "'$PG_BIN/initdb' -D '$pg_dir/data' -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >'$pg_dir/initdb.log'"
as_owner "'$PG_BIN/pg_ctl' -D '$pg_dir/data' -l '$pg_dir/server.log' -w -o \"-h 127.0.0.1 -p $pg_port -k '$pg_dir' -c fsync=off -c max_connections=200\" start >/dev/null"
stop_postgres() { as_owner "'$PG_BIN/pg_ctl' -D '$pg_dir/data' -m immediate stop >/dev/null 2>&1" || true; rm -rf "$pg_dir"; }
trap stop_postgres EXIT
export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$pg_port/postgres"
echo "PostgreSQL 15 test cluster on 127.0.0.1:$pg_port"
