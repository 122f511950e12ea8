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

# Search benchmark: 10k generated notes; writes bench/SEARCH.md
bench-search:
    cargo bench --bench search

# Every benchmark
bench: bench-search
