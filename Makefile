# Every Go command needs the sqlite_fts5 tag (FTS5 says "no such module" without it).
GO       ?= go
TAGS     := sqlite_fts5
# The release version (lib/version): VERSION, else the latest v* tag
# (v1.2.0 → 1.2.0; commits since it add -N-g<hash>), else the default in
# lib/version/version.go.
VERSION  ?= $(shell git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null | sed 's/^v//')
LDFLAGS  := $(if $(VERSION),-ldflags "-X github.com/dir2mcp/dir2mcp/lib/version.Version=$(VERSION)")
GOFLAGS  := -tags=$(TAGS)
BIN      := bin
CMDS     := dir2mcp dir2mcp-scan dir2mcp-extract dir2mcp-embed dir2mcp-serve

.PHONY: all build run test test-unit test-e2e test-short repro bench bench-scale eval fuzz lint vet fmt clean

all: build

build:
	@mkdir -p $(BIN)
	$(GO) build $(GOFLAGS) $(LDFLAGS) -o $(BIN)/ $(addprefix ./cmd/,$(CMDS))

# Build, then serve and index DIR (default: this directory) offline.
DIR ?= .
run: build
	$(BIN)/dir2mcp up --dir $(DIR)

# The unit tests and the e2e tests run side by side (each target's output
# printed whole when it ends). The e2e tests build and run the binaries,
# which the test cache cannot see: they always run (-count=1). The table
# distillation re-run (TestTableReproducible, ~11 minutes of one core) runs
# only when its inputs differ from lib/embed/local/table.verified (see
# repro), hence the unit tests' timeout.
test: vet
	@$(MAKE) --no-print-directory -j2 -Otarget test-unit test-e2e

test-unit:
	$(GO) test $(GOFLAGS) -timeout 20m $$($(GO) list ./... | grep -v '/e2e$$')

test-e2e:
	$(GO) test $(GOFLAGS) -timeout 10m -count=1 ./e2e

test-short:
	$(GO) test $(GOFLAGS) -short ./...

# Re-run the distillation of the local embedder's table (scripts/distill;
# needs `make -C scripts/distill deps` once) and compare the output with
# lib/embed/local/table.bin byte for byte. When it reproduces, its inputs
# are recorded in lib/embed/local/table.verified (commit it): until one of
# them changes, make test checks the table's training pairs and skips the
# re-run.
repro:
	$(GO) test $(GOFLAGS) -count=1 -timeout 40m -v -run '^TestTableReproducible$$' ./lib/embed/local -args -repro

lint: vet
	@out=$$(gofmt -l cmd lib scripts e2e 2>/dev/null); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(GOFLAGS) ./...

fmt:
	gofmt -w cmd lib scripts e2e

clean:
	rm -rf $(BIN)

# Run every fuzz target (Fuzz* in ./lib/...) for FUZZTIME each, one after
# another with one worker; prints execs and crashers per target (logs in
# LOGDIR). A crasher is left in the package's testdata/fuzz/: commit it and
# `make test` replays it. Not part of `make test` (which runs the seeds).
FUZZTIME ?= 10m
fuzz:
	FUZZTIME=$(FUZZTIME) GO=$(GO) TAGS=$(TAGS) scripts/fuzz/run.sh

# The official MCP conformance suite against a live `dir2mcp serve`: once with
# --auth none on loopback, once with a bearer token through a header-injecting
# proxy (installs Node 22 and the suite from npm into a cache on first use).
conformance: build
	bash scripts/conformance/run.sh $(BIN)

# Long-running measurements (not part of `make test`): Go benchmarks of the
# hot paths, then the end-to-end run on the Go standard library source.
# BASELINE is a git ref whose search latency is measured side by side
# (default: the last landing before the retrieval rework of issue 10;
# BASELINE= skips it).
BASELINE ?= b147433
# The scale table includes the Linux kernel source (Debian linux-source-6.1,
# fetched once; several minutes of both cores); BENCH_LINUX=0 leaves it out.
BENCH_LINUX ?= 1
# kill -9 cases of the crash-consistency test in make bench (make test runs 4).
CRASH_RUNS ?= 20
bench: build
	$(GO) test $(GOFLAGS) -run '^$$' -bench . -benchtime 2x ./lib/... 2>&1 | grep -E '^(Benchmark|ok|PASS|FAIL|goos|cpu)' || true
	@echo "== embedding throughput, whole pipeline, fake Mistral answering after 50 ms (target: >= 20 chunks/s/slot)"
	$(GO) test $(GOFLAGS) -run '^$$' -bench 'EmbedStageMistral|EmbedThroughput' -benchtime 3x ./lib/indexer/ ./lib/provider/mistral/ 2>&1 | grep -E '^Benchmark' || true
	@echo "== PDF text-layer extraction (MB/s of PDF input)"
	$(GO) test $(GOFLAGS) -run '^$$' -bench 'BenchmarkExtract' -benchtime 1s ./lib/pdf/ 2>&1 | grep -E '^Benchmark' || true
	@echo "x402 gate on an ungated search (target: overhead-% and gate-% < 2):"
	$(GO) test $(GOFLAGS) -run '^$$' -bench '^BenchmarkPaymentGateOverhead$$' -benchtime 5x ./lib/mcphttp 2>&1 | grep -E '^(Benchmark|FAIL)' || true
	$(GO) run $(GOFLAGS) ./scripts/bench -bin $(BIN) $(if $(BASELINE),-baseline $(BASELINE))
	@echo "== scale: Go tree offline and with 1536-d provider vectors$(if $(filter 1,$(BENCH_LINUX)), and the Linux kernel source) (BENCH_LINUX=0 leaves Linux out)"
	$(GO) run $(GOFLAGS) ./scripts/bench -bin $(BIN) -scale -load-time 20s $(if $(filter 1,$(BENCH_LINUX)),-linux)
	@echo "== crash consistency: kill -9 index/up at $(CRASH_RUNS) random moments, re-run, compare with a clean index"
	@log=$$(mktemp); DIR2MCP_CRASH_RUNS=$(CRASH_RUNS) $(GO) test $(GOFLAGS) -count=1 -timeout 60m -run '^TestCrashConsistency$$' -v ./e2e >$$log 2>&1; rc=$$?; \
	  grep -E 'crash_test|^(---|FAIL|ok)' $$log; rm -f $$log; exit $$rc

# The scale table alone, with the Linux kernel source (Debian linux-source-6.1,
# fetched once with apt-get download into $$TMPDIR/dir2mcp-bench; ~5 minutes
# of both cores to index). BENCH_PROFILE=DIR keeps heap profiles.
bench-scale: build
	$(GO) run $(GOFLAGS) ./scripts/bench -bin $(BIN) -scale -linux -load-time 20s $(if $(BENCH_PROFILE),-heap-profile $(BENCH_PROFILE))

# Retrieval quality on the public eval sets (testdata/eval/README.md): pinned
# corpora (Go standard library, Debian docs and sources, npm packages, a Go
# module) are downloaded and checked by sha256, materialised with masked
# variants and indexed; downloads, corpora and indexes are cached under
# $TMPDIR/dir2mcp-eval. EVALFLAGS passes flags, e.g. -corpus manpages -half tune.
eval:
	$(GO) run $(GOFLAGS) ./scripts/eval $(EVALFLAGS)
