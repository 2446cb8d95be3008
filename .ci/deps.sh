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
# the real pytest checks that impact's test selectors are collectable
/usr/bin/python3 -c 'import pytest' 2>/dev/null || need_apt+=(python3-pytest)
# Graphviz: the graph tests parse cairn's --dot output with the real dot.
command -v dot >/dev/null || need_apt+=(graphviz)
# the web UI's browser tests (serve/web) and the eval reports (eval, agent/eval) drive a headless chromium
command -v chromium >/dev/null || need_apt+=(chromium)
if [ ${#need_apt[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
# PostgreSQL 15 + pgvector for the PostgreSQL store's tests (CAIRN_TEST_PG).
bash "$(dirname "$0")/postgres.sh"
root="$(cd "$(dirname "$0")/.." && pwd)"
# npm_ci DIR [FLAG…] installs DIR's package-lock.json into DIR/node_modules,
# again only when the lock changed since the last install.
npm_ci() {
  local dir="$1"
  shift
  if ! cmp -s "$dir/package-lock.json" "$dir/node_modules/.cairn-installed-lock" 2>/dev/null; then
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error "$@" >/dev/null &&
      cp package-lock.json node_modules/.cairn-installed-lock)
  fi
}
# The independent MCP and LSP clients of the serve tests, and the Mermaid
# parser of the graph tests (versions pinned in testdata/clients/package-lock.json).
npm_ci "$root/testdata/clients"
# The agent clients that `cairn setup` writes configuration for, run by the
# clients/setup tests and the Claude Code end-to-end test (versions pinned in
# testdata/agents/package-lock.json; the tests run the platform binaries the
# optional dependencies ship, so no install script is needed).
npm_ci "$root/testdata/agents" --ignore-scripts
# The jest and vitest fixture packages of the gate's node runners (pinned in
# their package-lock.json): their tests install into sandbox workspaces with
# npm ci --prefer-offline, which this fills the npm cache for.
npm_ci "$root/gate/verify/testdata/node/jest" --ignore-scripts
npm_ci "$root/gate/verify/testdata/node/vitest" --ignore-scripts
# The pinned real code of the real-code answer suite (engine/realcode_test.go).
bash "$root/.ci/realcode.sh"
echo "deps: ok"
