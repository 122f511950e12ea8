//! Integration tests: each module drives the real `notes` binary, over HTTP on an
//! ephemeral loopback port or as a command line.

mod support;

mod cli_notes;
mod cli_public;
mod notes_api;
mod public_api;
mod public_pages;
mod xml;
