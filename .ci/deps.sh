#!/usr/bin/env bash
# Installs what cairn's tests need on a fresh Debian bookworm machine, and
# does nothing when it is already there (safe to run twice).
set -euo pipefail
need_apt=()
command -v gcc >/dev/null || need_apt+=(gcc)
command -v git >/dev/null || need_apt+=(git)
command -v node >/dev/null || need_apt+=(nodejs)
command -v npm >/dev/null || need_apt+=(npm)
command -v bwrap >/dev/null || need_apt+=(bubblewrap)
if [ ${#need_apt[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
# PostgreSQL 15 + pgvector for the PostgreSQL store's tests (CAIRN_TEST_PG).
bash "$(dirname "$0")/postgres.sh"
# The independent MCP and LSP clients of the serve tests (versions pinned in
# testdata/clients/package-lock.json); reinstalled only when the lock changes.
clients="$(cd "$(dirname "$0")/.." && pwd)/testdata/clients"
if ! cmp -s "$clients/package-lock.json" "$clients/node_modules/.cairn-installed-lock" 2>/dev/null; then
  (cd "$clients" && npm ci --no-audit --no-fund --loglevel=error >/dev/null &&
    cp package-lock.json node_modules/.cairn-installed-lock)
fi
echo "deps: ok"
