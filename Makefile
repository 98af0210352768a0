# foldsync: `make run` installs what is needed, builds and starts the daemon on
# its default board; `make test` runs every test. Debug and release builds
# live in separate directories so neither rebuilds the other.

SWIFT ?= swift
PREFIX ?= /usr/local
APT_PACKAGES = libwebsockets-dev libsqlite3-dev libssl-dev libpq-dev pkg-config
# The PostgreSQL tests start their own server; the terminal client's tests drive it in tmux; the dashboard's pure modules
# are tested with node's built-in runner (no npm packages).
TEST_PACKAGES = postgresql tmux chromium chromium-driver fonts-wqy-microhei python3-venv openssl nodejs strace
RELEASE = .build/release
# The package's executables: the Swift runtime, FoundationEssentials and
# Dispatch linked in (no full Foundation, so no ICU), so that they need only
# Debian's libraries; full RELRO (lintian's hardening check).
STATIC = .build/static
STATIC_FLAGS = -c release --static-swift-stdlib --build-path $(STATIC) -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now $(STATIC_LD)
# From Debian 13 on, binutils' ld (2.44) drops the RELRO segment from a
# --static-swift-stdlib link; the toolchain's lld keeps it (docs/PACKAGING.md).
STATIC_LD := $(shell . /etc/os-release 2>/dev/null; [ "$${ID}" = debian ] && [ "$${VERSION_ID%%.*}" -ge 13 ] 2>/dev/null && echo -Xswiftc -use-ld=lld)
# What make deb and the package test need (dpkg-buildpackage is in dpkg-dev).
PACKAGE_TOOLS = debhelper dpkg-dev lintian debootstrap binutils curl python3 util-linux
LISTEN ?= 127.0.0.1:7681
DB ?= ./foldsync.db

.PHONY: unit js-client-test python-client-test jwt-venv deps test-deps package-deps build release static deb package-test debian13-test run test fuzz sanitize-core bench-core bench-fold-latency web-test web-unit strict-client-test bench-smoke cluster-viewers-test clean install uninstall

# Installs the C libraries (Debian packages) when any is missing.
deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y $$missing; \
	fi

test-deps: deps
	@dpkg -s $(TEST_PACKAGES) >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y $(TEST_PACKAGES); }

release: deps
	$(SWIFT) build -c release

package-deps: deps
	@dpkg -s $(PACKAGE_TOOLS) >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y --no-install-recommends $(PACKAGE_TOOLS); }

# Release executables for the package, in their own build folder.
static: deps
	$(SWIFT) build $(STATIC_FLAGS) --product foldsyncd
	$(SWIFT) build $(STATIC_FLAGS) --product foldsync

# .build/deb/foldsync_VERSION_amd64.deb (docs/PACKAGING.md); VERSION is --version's.
deb: static package-deps
	packaging/build-deb.sh --bin $$($(SWIFT) build $(STATIC_FLAGS) --show-bin-path)

# The package on a fresh Debian 12 root (debootstrap, needs root): install,
# serve, upgrade, remove, purge; lintian; the units; ldd (Tests/package/run.sh).
package-test: deb
	Tests/package/run.sh

# The same commit on Debian 13 (as root): the Swift suite, make deb, the
# package test and the upgrade of a Debian 12 host with this host's package
# (Tests/debian/run.sh, docs/PACKAGING.md).
debian13-test: deb
	FOLDSYNC_DEB12=.build/deb/foldsync_$$(packaging/deb-version.sh)_amd64.deb Tests/debian/run.sh

build: deps
	$(SWIFT) build

run: release
	$(RELEASE)/foldsyncd --listen $(LISTEN) --db $(DB)

# Unit tests of the core and live tests against the real daemon, then the
# dashboard in a real browser.
test: test-deps jwt-venv
	$(SWIFT) build --build-tests
	# At most 8 tests at once: on 2 cores, dozens of live daemons at a time made timing-bound checks flaky.
	$(SWIFT) test --skip-build --experimental-maximum-parallelization-width 8
	$(MAKE) sanitize-core
	$(MAKE) fuzz
	BUILD=0 Tests/bench/bench-smoke.sh
	$(MAKE) cluster-viewers-test
	$(MAKE) strict-client-test
	$(MAKE) python-client-test
	$(MAKE) js-client-test
	$(MAKE) web-test
	$(MAKE) package-test
	$(MAKE) debian13-test

# The Python client library against the real daemon, under pytest (pip
# installs websockets and pytest into .build/py-client-venv).
python-client-test:
	clients/python/run-tests.sh

# The JavaScript client library against the real daemon (node's own test
# runner; Node 20 needs --experimental-websocket, which run.sh passes).
js-client-test:
	Tests/js-client/run.sh

# PyJWT and cryptography, for the live JWT tests' tokens (Tests/jwt/mint.py):
# an implementation that is not ours signs what the daemon verifies.
JWT_VENV = .build/jwt-venv
jwt-venv:
	@$(JWT_VENV)/bin/python -c 'import jwt, cryptography' 2>/dev/null || { \
	  python3 -m venv $(JWT_VENV) && $(JWT_VENV)/bin/pip install --quiet pyjwt cryptography; }

# The pure targets' unit tests (FoldCore, FoldHub: parsers, patches, the hub's
# decisions over unsafe buffers) built and run under AddressSanitizer, in a
# scratch path of their own so the normal build is untouched. ThreadSanitizer
# is left to Tests/scripts/sanitizers.sh (the whole suite): these targets run
# on one thread. Leaks are checked; the test runner's own are suppressed.
sanitize-core: deps
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build-asan
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/scripts/lsan.supp \
	  $(SWIFT) test --skip-build --sanitize=address --scratch-path .build-asan --filter '^(FoldCoreTests|FoldHubTests)\.'

# libFuzzer (with AddressSanitizer) over the core's parsers, FUZZ_SECONDS each
# (default 60): a crash fails and leaves its input in Tests/Fuzz/crashes/.
FUZZ_SECONDS ?= 60
fuzz:
	Tests/Fuzz/run.sh $(FUZZ_SECONDS)

# What one fold costs the core (figures only, never part of `make test`).
bench-core:
	Tests/bench/core/run.sh

# Figures, not a test: board.toggle() to the section open in board.confirmed
# (the round trip) and in board.state (optimistic), the JavaScript library
# through a relay adding 0 and 200 ms each way (FOLDSYNCD picks the daemon).
bench-fold-latency:
	FOLDSYNCD=$${FOLDSYNCD:-.build/debug/foldsyncd} node $$(node -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' || echo --experimental-websocket) Tests/bench/bench-fold-latency.mjs

# Viewers that vanish at scale: 3 daemons on one PostgreSQL, 19,000
# quiet viewers each from three foldsync-bench processes, then changes: no
# connection may end without a close frame, none may miss a change, and the
# close reasons in /metrics must add up (release build, about 3 minutes).
cluster-viewers-test: test-deps
	Tests/bench/cluster-viewers.sh

# Refused WebSocket upgrades read by a strict RFC 6455 client (Python's
# websockets, pip-installed into .build/strict-venv; needs python3-venv).
strict-client-test: test-deps
	$(SWIFT) build --product foldsyncd
	Tests/strict-client/run.sh

# Two seconds of foldsync-bench against a test daemon: complete delivery or fail.
bench-smoke: deps
	Tests/bench/bench-smoke.sh

# The dashboard's pure modules (auth state, permissions, the change summary;
# with the library's mirror, JSON Patch and backoff it imports) under node's own test runner, with the shared
# JSON Patch conformance suite (FOLDSYNC_CONFORMANCE_DIR, as for swift test).
# The page imports the client library as /lib/NAME (served from clients/js);
# lib-register.mjs maps that path to clients/js for node.
web-unit: test-deps
	node --import ./Tests/web/unit/lib-register.mjs --test Tests/web/unit/*.test.mjs

# The edit-and-test loop: every test that starts no process and opens no
# socket (the unit test targets, the dashboard's pure modules under node).
# FoldPostgresTests (a PostgreSQL server), FoldSyncClientTests and the live
# targets start processes; SystemdUnitTests runs systemd-analyze.
UNIT_TARGETS = FoldCoreTests|FoldSystemTests|FoldHubTests|FoldConfigTests|FoldCryptoTests|FoldStoreTests|FoldTransportTests|FoldMailboxTests|FoldDaemonTests|FoldSessionTests|FoldClientTests|LayeringTests
unit: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter '^($(UNIT_TARGETS))\.' --skip 'SystemdUnitTests'
	node --import ./Tests/web/unit/lib-register.mjs --test Tests/web/unit/*.test.mjs

# The dashboard in headless Chromium (Selenium) against the real daemon; the
# terminal client is built too, for the test that runs `foldsync watch`.
# Needs: apt chromium chromium-driver fonts-wqy-microhei python3-venv nodejs (see .ci/run).
web-test: web-unit
	$(SWIFT) build --product foldsyncd
	$(SWIFT) build --product foldsync
	Tests/web/run.sh

clean:
	rm -rf .build

# Installs the daemon, its unit, an example configuration and the dashboard.
install: release
	install -D -m 0755 $(RELEASE)/foldsyncd $(DESTDIR)$(PREFIX)/bin/foldsyncd
	install -D -m 0644 systemd/foldsyncd.service $(DESTDIR)/etc/systemd/system/foldsyncd.service
	install -D -m 0644 systemd/foldsync-backup.service $(DESTDIR)/etc/systemd/system/foldsync-backup.service
	install -D -m 0644 systemd/foldsync-backup.timer $(DESTDIR)/etc/systemd/system/foldsync-backup.timer
	install -D -m 0644 systemd/foldsyncd.conf.example $(DESTDIR)/etc/foldsync/foldsyncd.conf.example
	mkdir -p $(DESTDIR)$(PREFIX)/share/foldsync/web
	cp -r clients/web/. $(DESTDIR)$(PREFIX)/share/foldsync/web/
	# The client library beside it: the daemon serves it at /lib/, and the page imports it from there.
	mkdir -p $(DESTDIR)$(PREFIX)/share/foldsync/js
	cp clients/js/*.js clients/js/foldsync.d.ts $(DESTDIR)$(PREFIX)/share/foldsync/js/
	install -D -m 0755 $(RELEASE)/foldsync $(DESTDIR)$(PREFIX)/bin/foldsync
	install -D -m 0644 README.md $(DESTDIR)$(PREFIX)/share/doc/foldsync/README.md
	install -D -m 0644 docs/OPERATIONS.md $(DESTDIR)$(PREFIX)/share/doc/foldsync/OPERATIONS.md

# Removes exactly what install put there (the store in /var/lib/foldsync stays).
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/foldsyncd $(DESTDIR)$(PREFIX)/bin/foldsync
	rm -f $(DESTDIR)/etc/systemd/system/foldsyncd.service $(DESTDIR)/etc/foldsync/foldsyncd.conf.example
	rm -f $(DESTDIR)/etc/systemd/system/foldsync-backup.service $(DESTDIR)/etc/systemd/system/foldsync-backup.timer
	rm -rf $(DESTDIR)$(PREFIX)/share/foldsync $(DESTDIR)$(PREFIX)/share/doc/foldsync
	-rmdir $(DESTDIR)/etc/foldsync 2>/dev/null
