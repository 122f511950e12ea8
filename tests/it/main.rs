//! Integration tests: each module drives the real `notes` binary, over HTTP on an
//! ephemeral loopback port or as a command line.

mod support;

mod cli_docs;
mod cli_files;
mod cli_history;
mod cli_notes;
mod cli_polish;
mod cli_public;
mod cli_search;
mod completion_shells;
mod connections;
mod files;
mod files_cache;
mod guard;
mod history;
mod history_prune;
mod hostile;
mod links;
mod links_pages;
mod moves;
mod notes_bodies;
mod notes_delete;
mod notes_list;
mod notes_paths;
mod notes_read;
mod notes_serve;
mod notes_write;
mod openapi;
mod public_api;
mod public_media;
mod public_offline;
mod public_pages;
mod publish_crash;
mod races;
mod reliability;
mod render_safety;
mod search_api;
mod search_files;
mod serve_owner;
mod web_attachments;
mod web_browser;
mod web_history;
mod web_pages;
mod xml;
