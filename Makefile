# cairn — build, run, test.
#   make run    build cairn, index a repository (REPO, default: this one) and answer a question
#   make test   install what the tests need (idempotent) and run every test

GO      ?= go
BIN     ?= bin/cairn
REPO    ?= .
NAME    ?= Run

.PHONY: build run test deps vet bench-index clean

build:
	$(GO) build -o $(BIN) ./cmd/cairn

run: build
	$(BIN) index --repo $(REPO)
	$(BIN) status --repo $(REPO)
	$(BIN) def --repo $(REPO) $(NAME)

deps:
	bash .ci/deps.sh

test: deps
	$(GO) vet ./...
	$(GO) test ./...

bench-index: build
	bash bench/index/run.sh

clean:
	rm -rf bin .cairn
