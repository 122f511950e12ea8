//! The command tree. Doc comments are the help text, and the same definition drives
//! the man pages and the shell completions.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use clap_complete::engine::ArgValueCompleter;

use crate::completion::public_note_candidates;

/// Self-hosted Markdown notes: a JSON/HTTP API over a folder of `.md` files, full-text
/// search, and one-command publishing to static HTML pages.
/// The heading of the options every command takes, listed after the command's own.
mod args;

pub(crate) use args::*;

const GLOBAL: &str = "Global options";

#[derive(Debug, Parser)]
#[command(name = "notes", version, about, long_about = None, propagate_version = true)]
#[command(after_long_help = "EXAMPLES:\n  \
    notes serve                          serve ./notes on http://127.0.0.1:8080\n  \
    notes --notes-dir ~/notes list       list the notes of another folder\n  \
    echo '# Hi' | notes put ideas/hi.md  create a note from standard input\n  \
    notes publish ideas/hi.md            write public/hi.html")]
pub struct Cli {
    /// Folder holding the notes (only `serve` and `put` create it)
    #[arg(
        long,
        global = true,
        help_heading = GLOBAL,
        env = "NOTES_DIR",
        default_value = "./notes",
        value_name = "DIR"
    )]
    pub(crate) notes_dir: PathBuf,

    /// Folder receiving the published pages (publish, unpublish, serve)
    #[arg(
        long,
        global = true,
        help_heading = GLOBAL,
        env = "NOTES_PUBLIC_DIR",
        default_value = "./public",
        value_name = "DIR"
    )]
    pub(crate) public_dir: PathBuf,

    /// Public origin of the service (e.g. https://notes.example.org), for absolute links
    /// in published pages and the feed (publish, unpublish, serve)
    #[arg(
        long,
        global = true,
        help_heading = GLOBAL,
        env = "NOTES_BASE_URL",
        value_name = "URL"
    )]
    pub(crate) base_url: Option<String>,

    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Serve the HTTP API, the public pages and the web interface
    #[command(after_long_help = "EXAMPLES:\n  \
        notes serve\n  \
        notes serve --listen 127.0.0.1:9000\n  \
        NOTES_DIR=~/notes notes serve --max-body 1048576")]
    Serve(ServeArgs),

    /// List the notes, sorted by path
    #[command(after_long_help = "EXAMPLES:\n  notes list\n  notes list --json | jq '.total'")]
    List(ListArgs),

    /// Print a note (raw Markdown, or the API's JSON with --json)
    // `--version` here is a version of the note; the program's own is `notes --version`.
    #[command(
        disable_version_flag = true,
        after_long_help = "EXAMPLES:\n  notes show ideas/hi.md\n  notes show ideas/hi.md --json"
    )]
    Show(ShowArgs),

    /// Create or replace a note from a Markdown file or standard input
    #[command(after_long_help = "EXAMPLES:\n  \
        notes put ideas/hi.md draft.md\n  \
        echo '# Hello' | notes put ideas/hi.md\n  \
        notes put ideas/hi.md - < draft.md")]
    Put(PutArgs),

    /// Delete a note
    #[command(after_long_help = "EXAMPLES:\n  notes rm ideas/hi.md")]
    Rm(NoteArgs),

    /// Move or rename a note; every link to it (wikilinks and relative Markdown links)
    /// is rewritten to lead to its new path, and a public note's page moves with it
    #[command(after_long_help = "EXAMPLES:\n  \
        notes mv ideas/hi.md hello.md          rename a note\n  \
        notes mv hello.md archive/2026/hello.md\n  \
        notes mv a.md b.md --json | jq '.rewritten'")]
    Mv(MvArgs),

    /// List the published notes: title, source note, page file and publication time
    #[command(after_long_help = "EXAMPLES:\n  \
        notes list-public\n  \
        notes list-public ~/notes\n  \
        notes list-public --json | jq '.notes[].path'")]
    ListPublic(ListPublicArgs),

    /// Publish a note to the public folder (regenerates its page when already public);
    /// with --repair, bring the public folder back in line with the public notes
    #[command(after_long_help = "EXAMPLES:\n  \
        notes publish ideas/hi.md\n  \
        notes --public-dir /srv/www publish ideas/hi.md\n  \
        notes publish --repair")]
    Publish(PublishArgs),

    /// Unpublish a public note: its page is removed and the public index rebuilt
    #[command(after_long_help = "EXAMPLES:\n  notes unpublish ideas/hi.md")]
    #[command(mut_arg("note", |arg| arg.add(ArgValueCompleter::new(public_note_candidates))))]
    Unpublish(NoteArgs),
    /// Rebuild the search index from the notes on disk
    #[command(after_long_help = "EXAMPLES:\n  notes reindex")]
    Reindex,

    /// Search the notes (words, "exact phrases", tag:NAME, -excluded; the last word
    /// also matches as a prefix); with file:WORDS, the attachments whose path has them
    #[command(after_long_help = "EXAMPLES:\n  \
        notes search rust async\n  \
        notes search '\"release notes\" tag:work -draft'\n  \
        notes search ete --limit 5 --json\n  \
        notes search file:diagram            attachments named with \"diagram\"")]
    Search(SearchArgs),

    /// Show a note's links to other notes (resolved) and the notes linking to it
    #[command(after_long_help = "EXAMPLES:\n  \
        notes links ideas/hi.md\n  \
        notes links ideas/hi.md --json | jq '.incoming[].path'")]
    Links(LinksArgs),

    /// Check every link of every note: list broken links, links and images to missing
    /// files, the notes nothing links to and the attachments no note references; exit
    /// 1 when a link is broken or a file is missing
    #[command(after_long_help = "EXAMPLES:\n  \
        notes check\n  \
        notes check --json | jq '.broken'\n  \
        notes check --json | jq '.orphanFiles[].path'")]
    Check(CheckArgs),

    /// Copy files beside a note and append a link to each to the note (an image as
    /// ![name](path)); a name already taken by another file gets -2, -3… before its
    /// extension, and a file already there with the same bytes is linked, not copied
    #[command(after_long_help = "EXAMPLES:\n  \
        notes attach trips/rome.md ~/Pictures/forum.jpg\n  \
        notes attach report.md figures/*.png data.csv\n  \
        notes attach report.md chart.svg --json | jq '.attached[].path'")]
    Attach(AttachArgs),

    /// List the attachments (the files that are not notes), sorted by path: size, last
    /// modification and media type
    #[command(after_long_help = "EXAMPLES:\n  \
        notes files\n  \
        notes files trips\n  \
        notes files --json | jq '.files[].path'")]
    Files(FilesArgs),
    /// List a note's (or an attachment's) versions, newest first (every put, delete,
    /// move, restore and outside edit is one), or with --prune drop the old versions and
    /// pack the store
    #[command(after_long_help = "EXAMPLES:\n  \
        notes history ideas/hi.md\n  \
        notes history ideas/hi.md --json | jq '.versions[0].id'\n  \
        notes history ideas/img/map.png      an attachment's versions\n  \
        notes history --prune --keep 90      drop what was replaced 90+ days ago\n  \
        notes history --prune                pack the store, drop nothing")]
    History(HistoryArgs),

    /// Show the changes between two versions of a note (a unified diff, coloured on a
    /// terminal): with no version, the last change; with one, from that version to the
    /// note as it is now; with two, from the first to the second
    #[command(after_long_help = "EXAMPLES:\n  \
        notes diff ideas/hi.md\n  \
        notes diff ideas/hi.md 3f2a9c1\n  \
        notes diff ideas/hi.md 3f2a9c1 8be01d4")]
    Diff(DiffArgs),

    /// Bring back a version of a note (or an attachment) as a new change: by default
    /// the version before the last change (a deleted note: its last text)
    // `--version` here is a version of the note, as for `show`.
    #[command(
        disable_version_flag = true,
        after_long_help = "EXAMPLES:\n  \
        notes restore ideas/hi.md              undo the last change, or the delete\n  \
        notes restore ideas/hi.md --version 3f2a9c1"
    )]
    Restore(RestoreArgs),

    /// List the deleted notes and attachments (marked "(file)"), most recently deleted
    /// first, with the version that `notes restore` brings back
    #[command(
        after_long_help = "EXAMPLES:\n  notes trash\n  notes trash --json | jq '.notes[].path'"
    )]
    Trash(TrashArgs),

    /// Manage the access tokens `serve` asks for: once one exists, every API, MCP and
    /// web request needs one (public pages stay open), even after the last is revoked,
    /// until `notes token off`
    #[command(subcommand)]
    #[command(after_long_help = "EXAMPLES:\n  \
        notes token create --name phone       print a new token (shown once)\n  \
        notes token create --read-only --prefix work --json\n  \
        notes token list\n  \
        notes token revoke phone\n  \
        notes token off                       no token asked on loopback again")]
    Token(TokenCommand),

    /// Sync the notebook with a git remote: fetch, merge note by note (edits to
    /// different lines merge; the same lines keep both versions between conflict
    /// markers), push. With a running `serve` on the folder, that server syncs
    #[command(after_long_help = "EXAMPLES:\n  \
        notes sync --remote git@host:notes.git   set the remote once, and sync\n  \
        notes sync --remote /mnt/usb/notes.git   a bare repository on a disk\n  \
        notes sync                               sync now\n  \
        notes sync --status                      remote, last sync, conflicted notes\n  \
        notes sync --json | jq '.conflicts'")]
    Sync(SyncArgs),

    /// Print a shell completion script (note paths complete from the notes folder)
    #[command(after_long_help = "EXAMPLES:\n  \
        echo 'source <(notes completions bash)' >> ~/.bashrc\n  \
        notes completions zsh > ~/.zfunc/_notes\n  \
        notes completions fish > ~/.config/fish/completions/notes.fish")]
    Completions(CompletionsArgs),

    /// Serve the notes to an MCP client (an AI assistant) over standard input and output:
    /// tools to list, read, search, create, update, move, delete and publish notes, and
    /// the notes as resources (note:///PATH). Logs go to standard error
    #[command(after_long_help = "EXAMPLES:\n  \
        notes --notes-dir ~/notes mcp                 what an assistant's config starts\n  \
        notes --notes-dir ~/notes mcp --read-only     only the tools that change nothing\n  \
        notes --notes-dir ~/notes mcp --prefix work   only the notes under work/")]
    Mcp(McpArgs),

    /// Write the man pages (notes.1 and one per command) into a folder, or install them
    #[command(after_long_help = "EXAMPLES:\n  \
        notes man --install                  write them to ~/.local/share/man/man1\n  \
        notes man --out-dir man              write them to ./man")]
    Man(ManArgs),
}

/// Whether `serve` records the notes' history.
#[cfg(test)]
mod tests;
