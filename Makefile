# Radar's two everyday commands: `make run` and `make test`. See README.md.

CARGO ?= cargo
NPM ?= npm

.PHONY: run test test-deps web lint test-rust test-web test-e2e test-node test-python test-contract test-postgres bench

# Installs the front end's packages when the lock file changes.
web/node_modules/.installed: web/package-lock.json
	$(NPM) --prefix web ci --prefer-offline --no-audit --no-fund
	touch $@

# Builds the web app into web/dist, which the daemon embeds.
web: web/node_modules/.installed
	$(NPM) --prefix web run build

# Builds everything in release mode and serves the demo data and the web UI on :8080.
run: web
	$(CARGO) run --release -p radar-cli -- serve

lint: web/node_modules/.installed
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(NPM) --prefix web run typecheck
	$(NPM) --prefix web run lint
	$(NPM) --prefix web run check:api-types
	python3 docs/check-citations.py --self-test
	python3 docs/check-citations.py

test-rust: web
	$(CARGO) test --workspace

test-web: web/node_modules/.installed
	$(NPM) --prefix web test

test-e2e: web
	$(CARGO) build -p radar-cli
	RADAR_BIN=$(CURDIR)/target/debug/radar $(NPM) --prefix web run e2e

tests/node/node_modules/.installed: tests/node/package-lock.json
	$(NPM) --prefix tests/node ci --prefer-offline --no-audit --no-fund
	touch $@

test-node: tests/node/node_modules/.installed
	$(CARGO) build -p radar-cli
	RADAR_BIN=$(CURDIR)/target/debug/radar $(NPM) --prefix tests/node test

# The real Python auth client (PyPI supabase_auth) against the real daemon, PKCE included.
test-python:
	$(CARGO) build -p radar-cli
	RADAR_BIN=$(CURDIR)/target/debug/radar python3 -m pytest -q tests/python

# The API contract fuzzed by schemathesis (--checks all) against the real daemon.
test-contract:
	$(CARGO) build -p radar-cli
	RADAR_BIN=$(CURDIR)/target/debug/radar bash tests/contract/run.sh

# The end-to-end suites again on a shared PostgreSQL database instead of the embedded
# store: the Rust end-to-end tests (each data directory paired with a fresh database of
# their own throwaway server), then the node, Python and contract suites on a server
# started here (tests/pg/server.sh). Tests about the embedded store's own files say so
# and return.
PG_DIR := /tmp/radar-pg-make-$(shell echo $$PPID)
test-postgres: tests/node/node_modules/.installed
	$(CARGO) build -p radar-cli
	RADAR_TEST_STORE=postgres $(CARGO) test -p radar-cli --test tests
	RADAR_BIN=$(CURDIR)/target/debug/radar bash tests/pg/server.sh start $(PG_DIR)
	RADAR_TEST_PG=$(PG_DIR) RADAR_BIN=$(CURDIR)/target/debug/radar $(NPM) --prefix tests/node test \
	  && RADAR_TEST_PG=$(PG_DIR) RADAR_BIN=$(CURDIR)/target/debug/radar python3 -m pytest -q tests/python \
	  && RADAR_TEST_PG=$(PG_DIR) RADAR_BIN=$(CURDIR)/target/debug/radar bash tests/contract/run.sh; \
	  status=$$?; bash tests/pg/server.sh stop $(PG_DIR); exit $$status

# What the tests need beyond Rust, Node and npm (chromium, tmux, strace, curl, the Python
# test packages), installed when missing.
test-deps:
	bash tests/install-deps.sh

# Every test of the project, with the checks CI makes; on a fresh machine too.
test: test-deps
	$(MAKE) lint test-rust test-web test-e2e test-node test-python test-contract test-postgres

bench:
	bash bench/run.sh
