#!/usr/bin/env bash
# Installs and starts what the PostgreSQL store's tests need on a Debian
# bookworm machine, idempotently (run it twice, or with PostgreSQL already
# running, and it only checks):
#
#   - PostgreSQL 15 from Debian, its cluster "15 main" started;
#   - pgvector, built from Debian trixie's source package against
#     postgresql-server-dev-15 (bookworm has no pgvector package); the
#     deb-src line names the same Debian archive the machine's apt sources
#     already use, and goes into a temporary apt configuration so the
#     machine's own sources are left alone;
#   - a role and a database for the tests, matching CAIRN_TEST_PG.
#
# Called by .ci/deps.sh (make deps, make test).
set -euo pipefail
source "$(dirname "$0")/debian-archive.sh"

PGV=15
URL=${CAIRN_TEST_PG:-postgres://cairn:cairn@127.0.0.1:5432/cairn?sslmode=disable}
PG_CONFIG=/usr/lib/postgresql/$PGV/bin/pg_config

log() { echo "deps: postgres: $*"; }

# 1. Packages.
need=()
dpkg -s "postgresql-$PGV" >/dev/null 2>&1 || need+=("postgresql-$PGV")
dpkg -s "postgresql-server-dev-$PGV" >/dev/null 2>&1 || need+=("postgresql-server-dev-$PGV")
dpkg -s make >/dev/null 2>&1 || need+=(make)
dpkg -s gcc >/dev/null 2>&1 || need+=(gcc)
dpkg -s dpkg-dev >/dev/null 2>&1 || need+=(dpkg-dev)
dpkg -s xz-utils >/dev/null 2>&1 || need+=(xz-utils)
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

# 2. pgvector from Debian trixie's source package.
ext_dir=$("$PG_CONFIG" --sharedir)/extension
if [ ! -f "$ext_dir/vector.control" ] || [ ! -f "$("$PG_CONFIG" --pkglibdir)/vector.so" ]; then
  # The Debian archive the machine already uses (deb822 .sources or
  # one-line .list), so the source comes from the same mirror.
  archive=$(debian_archive)
  [ -n "$archive" ] || { echo "deps: postgres: no Debian bookworm archive in /etc/apt/sources.list{,.d}" >&2; exit 1; }
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/lists/partial"
  echo "deb-src $archive trixie main" > "$tmp/sources.list"
  apt_tmp=(-o "Dir::Etc::sourcelist=$tmp/sources.list" -o "Dir::Etc::sourceparts=-"
           -o "Dir::State::Lists=$tmp/lists" -o "APT::Get::List-Cleanup=0" -o "APT::Sandbox::User=root")
  log "building pgvector from $archive trixie (source package)"
  apt-get "${apt_tmp[@]}" update -qq
  (cd "$tmp" && apt-get "${apt_tmp[@]}" source -qq pgvector >/dev/null 2>&1)
  src=$(find "$tmp" -maxdepth 1 -type d -name 'pgvector-*' | head -1)
  [ -n "$src" ] || { echo "deps: postgres: apt-get source pgvector produced no source tree" >&2; exit 1; }
  # OPTFLAGS="": no -march=native, so the library runs on any x86-64.
  make -s -C "$src" PG_CONFIG="$PG_CONFIG" OPTFLAGS="" >/dev/null
  make -s -C "$src" PG_CONFIG="$PG_CONFIG" OPTFLAGS="" install >/dev/null
  log "pgvector $(awk -F"'" '/default_version/ {print $2}' "$ext_dir/vector.control") installed"
fi

# 3. The cluster, started.
if ! pg_lsclusters -h | awk -v v=$PGV '$1==v && $2=="main"' | grep -q .; then
  log "creating cluster $PGV main"
  pg_createcluster "$PGV" main >/dev/null
fi
# Settings for an indexing workload on a small machine (see
# bench/postgres/RESULTS.md); the defaults (128 MB shared buffers, 64 MB
# maintenance memory) make HNSW builds spill to disk.
conf=/etc/postgresql/$PGV/main/conf.d/cairn.conf
want_conf='# written by cairn .ci/postgres.sh
shared_buffers = 512MB
maintenance_work_mem = 512MB
work_mem = 16MB
max_wal_size = 4GB
max_connections = 200'
if [ "$(cat "$conf" 2>/dev/null)" != "$want_conf" ]; then
  mkdir -p "$(dirname "$conf")"
  printf '%s\n' "$want_conf" > "$conf"
  if pg_lsclusters -h | awk -v v=$PGV '$1==v && $2=="main" && $4=="online"' | grep -q .; then
    log "restarting cluster for new settings"
    pg_ctlcluster "$PGV" main restart
  fi
fi
if ! pg_lsclusters -h | awk -v v=$PGV '$1==v && $2=="main" && $4=="online"' | grep -q .; then
  log "starting cluster $PGV main"
  pg_ctlcluster "$PGV" main start
fi
for _ in $(seq 50); do
  runuser -u postgres -- pg_isready -q -p "$(pg_lsclusters -h | awk -v v=$PGV '$1==v && $2=="main" {print $3}')" && break
  sleep 0.2
done

# 4. Role and database of CAIRN_TEST_PG. The role is a superuser: tests
# create and drop a database each, and CREATE EXTENSION vector needs the
# privilege (pgvector is not a trusted extension).
re='^postgres(ql)?://([^:@/]+)(:([^@/]*))?@[^:/]+(:([0-9]+))?/([^?]+)'
[[ $URL =~ $re ]] || { echo "deps: postgres: CAIRN_TEST_PG=$URL is not postgres://USER:PASSWORD@HOST[:PORT]/DB" >&2; exit 1; }
user=${BASH_REMATCH[2]} pass=${BASH_REMATCH[4]} port=${BASH_REMATCH[6]:-5432} db=${BASH_REMATCH[7]}
psql_pg() { runuser -u postgres -- psql -p "$port" -v ON_ERROR_STOP=1 -qAtX "$@"; }
if [ "$(psql_pg -c "SELECT 1 FROM pg_roles WHERE rolname = '$user'")" != 1 ]; then
  log "creating role $user"
  psql_pg -c "CREATE ROLE \"$user\" LOGIN SUPERUSER PASSWORD '$pass'"
fi
if [ "$(psql_pg -c "SELECT 1 FROM pg_database WHERE datname = '$db'")" != 1 ]; then
  log "creating database $db"
  psql_pg -c "CREATE DATABASE \"$db\" OWNER \"$user\""
fi
psql_pg -d "$db" -c "SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS vector"
log "ok ($(psql_pg -d "$db" -c "SELECT 'PostgreSQL ' || current_setting('server_version') || ', pgvector ' || extversion FROM pg_extension WHERE extname = 'vector'"))"
