# Recipes for building, testing and running `notes`. `just --list` explains each.

set shell := ["bash", "-euo", "pipefail", "-c"]

# Show the recipes
default:
    @just --list

# Build the release binary
build:
    cargo build --release

# Run every test (the README's test command)
test:
    cargo test --release

# Check formatting and lints (warnings are errors)
lint:
    cargo fmt --all -- --check
    cargo clippy --all-targets -- -D warnings

# Serve ./notes on http://127.0.0.1:8080
serve *ARGS:
    cargo run --release -- serve {{ARGS}}

# What CI runs: lints, then the full test suite
ci: lint test

# Regenerate the committed completion scripts under completions/
completions:
    cargo build --release
    mkdir -p completions
    for pair in bash:notes.bash zsh:_notes fish:notes.fish elvish:notes.elv powershell:_notes.ps1; do \
      ./target/release/notes completions "${pair%%:*}" > "completions/${pair#*:}"; \
    done

# Regenerate the committed man pages under man/
man:
    cargo build --release
    rm -rf man
    ./target/release/notes man --out-dir man

# Regenerate docs/configuration.md from the command tree (a test fails when it is stale)
docs:
    NOTES_UPDATE_DOCS=1 cargo test --test it docs::the_configuration_reference

# Fuzz path cleaning and front matter for SECONDS each (installs cargo-fuzz when missing)
fuzz SECONDS="60":
    command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
    for target in note_path front_matter; do \
      RUSTC_BOOTSTRAP=1 cargo fuzz run "$target" -- -max_total_time={{SECONDS}} -rss_limit_mb=2048; \
    done
# Search benchmark: 10k generated notes; writes bench/SEARCH.md
bench-search:
    cargo bench --bench search

# Links benchmark: GET /api/v1/links/{path} at 10k generated notes; writes bench/LINKS.md
bench-links:
    cargo bench --bench links

# Beneath-the-root opens: a note opened and read 10k times by openat2 by hand and by
# cap-std, in turns; writes bench/ROOT.md
bench-root:
    cargo bench --bench root

# HTTP benchmark against nginx on the same files (1k and 10k notes); writes bench/RESULTS.md
bench-http:
    python3 bench/run.py

# Move benchmark: 10k generated notes, 50 linking to one; times POST /api/v1/move of
# that note (target: 1 s); writes bench/MOVE.md
bench-move:
    cargo build --release
    python3 bench/move.py target/release/notes

# The note list at 100k notes against nginx sending the same bytes as a file (installs
# nginx and wrk when missing); writes bench/LIST.md
bench-list:
    command -v wrk >/dev/null || (apt-get update && apt-get install -y wrk)
    command -v nginx >/dev/null || test -x /usr/sbin/nginx || (apt-get update && (apt-get install -y nginx-light || apt-get install -y nginx))
    cargo build --release
    python3 bench/list_file.py target/release/notes

# Attachment download benchmark: GET /api/v1/files/{path} of a 100 KiB image against
# nginx serving the same file (installs nginx and wrk when missing); writes bench/FILES.md
bench-files:
    command -v wrk >/dev/null || (apt-get update && apt-get install -y wrk)
    command -v nginx >/dev/null || test -x /usr/sbin/nginx || (apt-get update && (apt-get install -y nginx-light || apt-get install -y nginx))
    cargo build --release
    python3 bench/files.py

# History benchmark: PUT with the history on and off (new and replace), a note's
# history at 1,000 versions, the store's size after 10k PUTs; writes bench/HISTORY.md
bench-history:
    cargo build --release
    python3 bench/history.py target/release/notes

# Concurrent writes with the history on and off (wrk, 16 connections: PUT new, PUT
# replace, toggle), three interleaved rounds, medians; writes bench/HISTORY-LOAD.md
bench-history-load:
    command -v wrk >/dev/null || (apt-get update && apt-get install -y wrk)
    cargo build --release
    python3 bench/history_load.py target/release/notes

# The build of REV (by default eb391c1, main before the work on issue 19 and the issues
# filed with it; see build-revision) runs its reindex and first start in turns with
# this build's, for their ratio.
# Scale benchmark: 10k and 100k generated notes (made once, cached in target/) — list,
# web `/`, first start, reindex, peak RSS, index size, search; writes bench/SCALE.md
bench-scale REV="eb391c1":
    cargo build --release
    just build-revision {{REV}}
    SCALE_REFERENCE=target/revisions/$(git rev-parse --verify "{{REV}}^{commit}") SCALE_REFERENCE_REV={{REV}} python3 bench/scale.py

# The release build of git revision REV, the reference of the benchmarks that compare
# two builds: built once, in a few minutes, through a temporary worktree, and kept as
# target/revisions/<its commit> (a name such as HEAD~1 is resolved first)
build-revision REV:
    #!/usr/bin/env bash
    set -euo pipefail
    commit=$(git rev-parse --verify "{{REV}}^{commit}")
    [ -x "target/revisions/$commit" ] && exit 0
    rm -rf target/revisions/tree
    git worktree prune
    mkdir -p target/revisions
    git worktree add --detach target/revisions/tree "$commit"
    (cd target/revisions/tree && CARGO_TARGET_DIR=../target cargo build --release)
    cp target/revisions/target/release/notes "target/revisions/$commit"
    git worktree remove --force target/revisions/tree

# The same measures at 1M generated notes (5.5 GB of notes made once in target/, ~15 min
# to generate; the run itself takes about half an hour, with one run of each timed pass
# instead of three); writes bench/SCALE-1M.md. Where the page cache does not keep 5.5 GB
# of small files, put the corpus in memory: BENCH_CORPUS_DIR=/dev/shm just bench-scale-1m
bench-scale-1m:
    cargo build --release
    SCALE_SIZES=1000000 SCALE_RUNS=1 SCALE_OUT=bench/SCALE-1M.md SCALE_RECIPE="just bench-scale-1m" python3 bench/scale.py

# Every benchmark
bench: bench-http bench-files bench-list bench-search bench-links bench-move bench-history bench-history-load bench-scale bench-tokens bench-server bench-sync

# The server runtime against the library's way (NOTES_SERVER_RUNTIME=own|library, one
# build, interleaved rounds): list, one note, a 100 KiB attachment and PUT at 1 and 16
# keep-alive connections; writes bench/SERVER.md. Built with the lighter bench-quick
# profile (thin LTO): both sides are the same build, so the ratio is what counts.
bench-server:
    command -v wrk >/dev/null || (apt-get update && apt-get install -y wrk)
    cargo build --profile bench-quick
    python3 bench/server.py target/bench-quick/notes bench-quick

# Instructions per request (callgrind, no hardware counters needed) of this build
# against the build of git revision REV, in one run; writes bench/INSTRUCTIONS.md
bench-instructions REV="HEAD~1" SCALE="1":
    command -v valgrind >/dev/null || (apt-get update && apt-get install -y valgrind)
    cargo build --release
    just build-revision {{REV}}
    BENCH_REF={{REV}} python3 bench/instructions.py target/release/notes target/revisions/$(git rev-parse --verify "{{REV}}^{commit}") {{SCALE}}

# The token check with no token (auth off): this build against the build of REV (before
# tokens existed), same rows as bench-http, interleaved rounds; writes bench/AUTH.md
bench-auth REV="1ef6544":
    command -v wrk >/dev/null || (apt-get update && apt-get install -y wrk)
    cargo build --release
    just build-revision {{REV}}
    python3 bench/auth.py target/release/notes target/revisions/$(git rev-parse --verify "{{REV}}^{commit}") {{REV}}

# GET of a note with a folder token against GET without tokens, this build, three
# interleaved rounds (target >= 0.9 for JSON); writes bench/TOKENS.md
bench-tokens:
    command -v wrk >/dev/null || (apt-get update && apt-get install -y wrk)
    cargo build --release
    python3 bench/tokens.py target/release/notes

# Soak: SECONDS of mixed load on loopback, then acknowledged writes checked on disk,
# zero 5xx and flat memory required; writes bench/SOAK.md
soak SECONDS="60":
    SOAK_SECONDS={{SECONDS}} cargo bench --bench soak

# Sync against plain git on a 10k-note notebook and bare remotes on loopback paths: a
# no-op `notes sync` against `git fetch` (target: 2x), 10 changed notes in and out
# against fetch + merge and commit + push (target: 3x); three interleaved rounds,
# medians; writes bench/SYNC.md
bench-sync:
    cargo build --release
    python3 bench/sync.py target/release/notes

# Sync soak: two served notebooks on one bare remote, random edits, moves and deletes
# through the API on both for SECONDS, syncing every 2 s; then both must hold identical
# files with every edit kept (the 10 s version runs with the tests)
soak-sync SECONDS="60":
    NOTES_SYNC_SOAK_SECONDS={{SECONDS}} cargo test --release --test it sync_soak -- --nocapture
