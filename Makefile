# mcpx — build, test, lint, install. Needs Go and a POSIX shell; the interop
# tests also need Node.js and npm (the servers come from the npm registry) and
# the Go module proxy (the Go-SDK server they build).

GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X github.com/mcpx-cli/mcpx/commands.Version=$(VERSION)
# A static, stripped binary starts measurably faster (see scripts/bench.sh).
# urfave_cli_no_template: the CLI library prints help without text/template,
# whose reflective method lookup keeps every exported method of every type in
# the binary: 16% smaller and faster to start, the same help text
# (TestHelpWithoutTemplates). Builds without the tag (go install) work the same.
TAGS     := urfave_cli_no_template
prefix   ?= /usr/local
bindir   ?= $(prefix)/bin
mandir   ?= $(prefix)/share/man
datadir  ?= $(prefix)/share
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: all build cross crosscheck dist dist-check test unit race lint shell-deps layering check-third-party fmt-check vet staticcheck interop-deps conformance-deps conformance bench install uninstall clean

all: build

build:
	CGO_ENABLED=0 $(GO) build -tags $(TAGS) -trimpath -ldflags "$(LDFLAGS)" -o bin/mcpx ./cmd/mcpx

# The platforms mcpx is built and released for.
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64 freebsd/amd64

# cross vets every package and builds mcpx for every platform (no other
# machine needed), compiling everything once per platform: the check
# before a release. vet and build take the same flags, so that the build
# reuses the packages vet compiled and only links.
cross:
	@for p in $(PLATFORMS); do \
		GOOS=$${p%/*} GOARCH=$${p#*/} CGO_ENABLED=0 $(GO) vet -tags $(TAGS) -trimpath ./... && \
		GOOS=$${p%/*} GOARCH=$${p#*/} CGO_ENABLED=0 $(GO) build -tags $(TAGS) -trimpath -o /dev/null ./cmd/mcpx || \
		{ echo "cross: $$p failed" >&2; exit 1; }; \
	done

# crosscheck type-checks every package and its tests for every platform
# from source and runs the go vet analyzers on them (scripts/crosscheck):
# the errors make cross would find, in a fraction of its time, as it
# generates no code. The host platform is left out: make vet vets it and
# the tests compile it.
crosscheck:
	$(GO) run ./scripts/crosscheck $(filter-out $(shell $(GO) env GOOS)/$(shell $(GO) env GOARCH),$(PLATFORMS))

# dist writes the release archives and SHA256SUMS to $(DISTDIR)
# (scripts/dist); dist-check builds them twice and compares.
DISTDIR ?= dist
dist:
	$(GO) run ./scripts/dist -tags $(TAGS) -version $(VERSION) -out $(DISTDIR) $(PLATFORMS)

dist-check:
	scripts/dist-check.sh

# test runs everything: lint, unit tests, end-to-end scripts, the interop
# tests against real third-party servers and the MCP conformance suite
# (their npm packages installed first). crosscheck covers the other
# platforms; make cross compiles for them too (slower: it compiles
# everything once per platform).
test: lint crosscheck shell-deps interop-deps conformance-deps
	$(GO) test -tags $(TAGS) -count=1 -timeout 15m ./...

unit:
	$(GO) test -tags $(TAGS) -count=1 ./output/... ./client/... ./render/... ./commands/... ./internal/...

# race runs the unit tests and the end-to-end scripts under the race detector (slower).
race: interop-deps
	$(GO) test -tags $(TAGS) -race -count=1 ./output/... ./client/... ./render/... ./commands/... ./internal/...
	$(GO) test -tags $(TAGS) -race -count=1 -timeout 90m -run TestScript ./test/

lint: fmt-check vet staticcheck layering check-generated check-third-party

# check-third-party: each patched module copy in third_party/ is its module
# as the module cache holds it (downloaded first), but for the files
# third_party/copies.txt lists and changes marked "// mcpx:", and go.work
# and go.mod name its version (scripts/checkfork, third_party/README.md).
check-third-party:
	$(GO) run ./scripts/checkfork

# layering: only commands imports client, render and output; the packages
# under client import only the ones below them (scripts/check-layering.sh).
layering:
	scripts/check-layering.sh

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './test/interop/*')); \
	if [ -n "$$out" ]; then echo "gofmt would change: $$out (run gofmt -w)"; exit 1; fi

vet:
	$(GO) vet -tags $(TAGS) ./...

staticcheck:
	$(STATICCHECK) ./...

# The completion tests drive real shells: without zsh, fish and tmux they
# would skip, so make test installs the missing ones (Debian, as root:
# nothing recommended, nothing the machine has upgraded, apt's output in a
# log shown on failure; scripts/apt-get-missing.sh) or stops.
shell-deps:
	@scripts/apt-get-missing.sh zsh fish tmux

# The npm packages of test/interop (pinned by its package-lock.json).
interop-deps: test/interop/node_modules/.package-lock.json

test/interop/node_modules/.package-lock.json: test/interop/package.json test/interop/package-lock.json
	cd test/interop && npm ci --no-audit --no-fund --loglevel=error

# The MCP conformance suite and the Node 22 it needs (pinned by test/conformance/package-lock.json).
conformance-deps: test/conformance/node_modules/.package-lock.json

test/conformance/node_modules/.package-lock.json: test/conformance/package.json test/conformance/package-lock.json
	cd test/conformance && npm ci --no-audit --no-fund --loglevel=error

# conformance runs every client scenario against the baselines (docs/conformance-2026.md):
# the newest release at each scenario's own protocol version and the 2026-07-28
# requirement set at the 2026-07-28 wire, then 0.1.16 (scripts/conformance/BASELINE.md).
conformance: build conformance-deps
	MCPX=$(CURDIR)/bin/mcpx scripts/conformance/run.sh -b all
	MCPX=$(CURDIR)/bin/mcpx scripts/conformance/run.sh -b -R 2026-07-28
	MCPX=$(CURDIR)/bin/mcpx scripts/conformance/run.sh -r 0.1 -b all

bench: build interop-deps
	scripts/bench.sh

install: build
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(mandir)/man1
	install -m 0755 bin/mcpx $(DESTDIR)$(bindir)/mcpx
	install -m 0644 man/mcpx.1 $(DESTDIR)$(mandir)/man1/mcpx.1
	install -d $(DESTDIR)$(datadir)/bash-completion/completions $(DESTDIR)$(datadir)/zsh/site-functions $(DESTDIR)$(datadir)/fish/vendor_completions.d
	install -m 0644 completions/mcpx.bash $(DESTDIR)$(datadir)/bash-completion/completions/mcpx
	install -m 0644 completions/_mcpx $(DESTDIR)$(datadir)/zsh/site-functions/_mcpx
	install -m 0644 completions/mcpx.fish $(DESTDIR)$(datadir)/fish/vendor_completions.d/mcpx.fish

uninstall:
	rm -f $(DESTDIR)$(bindir)/mcpx $(DESTDIR)$(mandir)/man1/mcpx.1
	rm -f $(DESTDIR)$(datadir)/bash-completion/completions/mcpx $(DESTDIR)$(datadir)/zsh/site-functions/_mcpx $(DESTDIR)$(datadir)/fish/vendor_completions.d/mcpx.fish

clean:
	rm -rf bin dist

# man/mcpx.1 is generated from the command definitions (commands.DocRoot) and
# the hand-written roff in man/src (scripts/genman).
.PHONY: man check-man completions check-completions check-generated
man:
	$(GO) run ./scripts/genman -o man/mcpx.1

# check-man fails when man/mcpx.1 is not what `make man` would write.
check-man:
	@$(GO) run ./scripts/genman -check -o man/mcpx.1

# completions/ holds the scripts `mcpx completion SHELL` prints (rendered from
# completions/templates), for packagers to install.
completions: build
	bin/mcpx completion bash > completions/mcpx.bash
	bin/mcpx completion zsh > completions/_mcpx
	bin/mcpx completion fish > completions/mcpx.fish
	bin/mcpx completion powershell > completions/mcpx.ps1

check-completions: build
	@for s in bash:mcpx.bash zsh:_mcpx fish:mcpx.fish powershell:mcpx.ps1; do \
		bin/mcpx completion $${s%%:*} | cmp -s - completions/$${s#*:} || \
		{ echo "completions/$${s#*:} is stale: run 'make completions' and commit"; exit 1; }; \
	done

# check-generated: the committed man page and completion scripts are what the
# binary generates (tests check the same).
check-generated: check-man check-completions
