#!/usr/bin/env bash
# Installs what cairn's tests need on a fresh Debian bookworm machine, and
# does nothing when it is already there (safe to run twice).
set -euo pipefail
need_apt=()
command -v gcc >/dev/null || need_apt+=(gcc)
command -v git >/dev/null || need_apt+=(git)
if [ ${#need_apt[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
# PostgreSQL 15 + pgvector for the PostgreSQL store's tests (CAIRN_TEST_PG).
bash "$(dirname "$0")/postgres.sh"
echo "deps: ok"
