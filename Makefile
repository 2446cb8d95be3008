# cairn — build, run, test.
#   make run    build cairn, index a repository (REPO, default: this one) and answer a question
#   make test   install what the tests need (idempotent) and run every test
#   make install  install cairn on your PATH (go install: $GOBIN, or $GOPATH/bin)

GO      ?= go
BIN     ?= bin/cairn
REPO    ?= .
# make run's question; its answer, the embedded store's Writer.Commit, is
# checked by TestReadmeDemo (bench/retrieval/RESULTS.md says why this wording)
Q       ?= how does the embedded store commit an index generation atomically, and what does a killed index run leave behind
# The PostgreSQL store's tests use this database (.ci/postgres.sh creates it);
# under make test they fail rather than skip when it cannot be reached.
CAIRN_TEST_PG ?= postgres://cairn:cairn@127.0.0.1:5432/cairn?sslmode=disable
export CAIRN_TEST_PG

.PHONY: build install run test deps vet bench-index clean

build:
	$(GO) build -o $(BIN) ./cmd/cairn

install:
	$(GO) install ./cmd/cairn
	@echo "installed $$($(GO) env GOBIN | grep . || echo $$($(GO) env GOPATH)/bin)/cairn"

run: build
	$(BIN) index --repo $(REPO)
	$(BIN) status --repo $(REPO)
	$(BIN) search --repo $(REPO) --limit 5 --files 5 "$(Q)"
	$(BIN) context --repo $(REPO) --budget 4000 --format markdown "$(Q)"

deps:
	bash .ci/deps.sh

test: deps
	$(GO) vet ./...
	CAIRN_TEST_PG_REQUIRED=1 $(GO) test -timeout 30m ./...

bench-index: build
	bash bench/index/run.sh

clean:
	rm -rf bin .cairn

# make mutate  apply bench/mutation/mutations.txt one at a time in a scratch
#              worktree of HEAD and report caught / survived (bench/mutation/last-run.md;
#              RESULTS.md keeps a run with the survivors explained)
.PHONY: mutate
mutate:
	nice -n 10 $(GO) run ./bench/mutation -out bench/mutation/last-run.md
