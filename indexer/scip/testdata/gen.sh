#!/usr/bin/env bash
# Regenerates the SCIP indexes the tests ingest, with the real indexers
# (see ../../../../shared/bench/corpora/README.md for installing them):
#   TOOLS=/path/with/bin/scip-go/and/node_modules/.bin bash gen.sh
# The .scip files are committed so that the tests need no indexer.
set -euo pipefail
cd "$(dirname "$0")"
T=${TOOLS:?set TOOLS}
(cd gomod && "$T/bin/scip-go" index --module-version=v0.0.1 --go-version="$(go env GOVERSION)" -o ../go.scip)
(cd pyproj && "$T/node_modules/.bin/scip-python" index --project-name shop --output ../python.scip)
(cd tsproj && "$T/node_modules/.bin/scip-typescript" index --no-progress-bar --output ../ts.scip)
