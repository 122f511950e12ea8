//! The arguments of each command, one struct a command (their doc comments are the
//! help text, the man pages and the completions).

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use clap::{Args, Subcommand};
use clap_complete::aot::Shell;
use clap_complete::engine::ArgValueCompleter;

use crate::completion::note_candidates;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum HistoryMode {
    On,
    Off,
}

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete for
    pub(crate) shell: Shell,
}

#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// Folder receiving notes.1 and one page per subcommand
    #[arg(long, value_name = "DIR", required_unless_present = "install")]
    pub(crate) out_dir: Option<PathBuf>,
    /// Write them where man finds a user's pages: $XDG_DATA_HOME/man/man1, else
    /// ~/.local/share/man/man1
    #[arg(long, conflicts_with = "out_dir")]
    pub(crate) install: bool,
}

#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// Offer only the tools that change nothing (list, read, search, tags, links)
    #[arg(long)]
    pub(crate) read_only: bool,
    /// Reach only the notes under this folder (relative to the notes folder)
    #[arg(long, value_name = "DIR")]
    pub(crate) prefix: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct ListPublicArgs {
    /// Folder holding the notes (overrides --notes-dir)
    #[arg(value_name = "NOTES_DIR")]
    pub(crate) dir: Option<PathBuf>,
    /// Print the API's JSON (`{"notes": [...]}`)
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Keep every note's past versions in .notes/history.git (`off` only for measuring
    /// what the history costs: nothing is recorded, and nothing can be restored)
    #[arg(long, env = "NOTES_HISTORY", default_value = "on", value_name = "MODE")]
    pub(crate) history: HistoryMode,

    /// Drop the versions replaced (or deleted) more than DAYS days ago, at start-up and
    /// daily; a note's latest version, and a deleted note's last one, stay until DAYS
    /// days after its delete. Everything is kept when left out
    #[arg(long, env = "NOTES_HISTORY_KEEP", value_name = "DAYS")]
    pub(crate) history_keep: Option<u32>,

    /// Address to listen on: IP:PORT, localhost:PORT, :PORT or PORT (the last three on
    /// 127.0.0.1). Another address needs a token (`notes token create`), or --no-auth
    #[arg(
        long,
        env = "NOTES_LISTEN",
        default_value = "127.0.0.1:8080",
        value_name = "ADDR",
        value_parser = parse_listen
    )]
    pub(crate) listen: SocketAddr,

    /// Listen on an address other machines reach although no token exists (behind an
    /// authenticating proxy): without it, `serve` refuses to start there
    #[arg(long)]
    pub(crate) no_auth: bool,

    /// A host name the service answers to, besides IP addresses, localhost and the
    /// --base-url host (repeatable; the name a reverse proxy passes in `Host`).
    /// Requests naming any other host are refused, so a web page cannot reach the
    /// service by rebinding its own name to this machine
    #[arg(
        long = "allow-host",
        env = "NOTES_ALLOW_HOSTS",
        value_delimiter = ',',
        value_name = "NAME"
    )]
    pub(crate) allow_hosts: Vec<String>,

    /// Largest request body accepted, in bytes
    #[arg(long, env = "NOTES_MAX_BODY", default_value_t = 8 * 1024 * 1024, value_name = "BYTES")]
    pub(crate) max_body: u64,

    /// Largest attachment accepted by `PUT /api/v1/files/…`, in bytes; a larger upload
    /// is refused with 413 and leaves nothing on disk
    #[arg(long, env = "NOTES_MAX_UPLOAD", default_value_t = 64 * 1024 * 1024, value_name = "BYTES")]
    pub(crate) max_upload: u64,

    /// Most connections open at once; at the cap the longest-idle keep-alive connections
    /// are closed to make room, and new clients wait while every connection is busy
    /// [default: half the descriptors left under the open-file limit, at least 16]
    #[arg(
        long,
        env = "NOTES_MAX_CONNECTIONS",
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub(crate) max_connections: Option<u32>,

    /// Seconds a client may take to send a request's head, or between two parts of its
    /// body, before the connection is dropped; a whole body gets five times as long
    #[arg(
        long,
        env = "NOTES_REQUEST_TIMEOUT",
        default_value_t = 15,
        value_name = "SECS"
    )]
    pub(crate) request_timeout: u64,

    /// Seconds open requests get to finish after SIGTERM or Ctrl-C; then the server
    /// exits whatever is still running
    #[arg(long, default_value_t = 10, value_name = "SECS")]
    pub(crate) shutdown_timeout: u64,

    /// Sync with the git remote (`notes sync --remote URL`) at the start, then every
    /// DURATION (30s, 5m, 1h; a bare number is seconds) and soon after a burst of
    /// writes settles. Off when left out
    #[arg(long, env = "NOTES_SYNC_EVERY", value_name = "DURATION", value_parser = parse_duration)]
    pub(crate) sync_every: Option<std::time::Duration>,
}

/// `--sync-every`: `N`, `Ns`, `Nm` or `Nh`, at least one second.
pub(crate) fn parse_duration(value: &str) -> Result<std::time::Duration, String> {
    let value = value.trim();
    let (number, unit) = match value.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => value.split_at(at),
        None => (value, "s"),
    };
    let scale = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        _ => return Err(format!("{value:?} is not a duration: use 30s, 5m or 1h")),
    };
    match number.parse::<u64>() {
        Ok(n) if n > 0 => Ok(std::time::Duration::from_secs(n.saturating_mul(scale))),
        _ => Err(format!("{value:?} is not a duration: use 30s, 5m or 1h")),
    }
}

#[derive(Debug, Args)]
pub(crate) struct SyncArgs {
    /// Store this git remote, then sync: a path, file://, ssh:// (your ssh keys and
    /// agent) or https:// (your git credential helper). Kept in
    /// .notes/history.git/config as the remote `origin`
    #[arg(long, value_name = "URL", conflicts_with = "status")]
    pub(crate) remote: Option<String>,
    /// Show the remote (credentials left out), the last sync's time and outcome, and
    /// the conflicted notes, without syncing
    #[arg(long)]
    pub(crate) status: bool,
    /// Print {"remote", "last_sync", "outcome", "error", "pulled", "pushed",
    /// "conflicts"} as JSON
    #[arg(long)]
    pub(crate) json: bool,
}

/// `--listen`: an IP address with a port, or `localhost:PORT`, `:PORT` and `PORT`, all
/// three on 127.0.0.1 (no name is looked up: the service stays on loopback).
pub(crate) fn parse_listen(value: &str) -> Result<SocketAddr, String> {
    if let Ok(addr) = value.parse::<SocketAddr>() {
        return Ok(addr);
    }
    let port = match value.rsplit_once(':') {
        Some((host, port)) if host.is_empty() || host.eq_ignore_ascii_case("localhost") => port,
        Some(_) => {
            return Err(format!(
                "{value:?} is not an address: use IP:PORT ([::1]:PORT for IPv6), \
                 localhost:PORT, :PORT or PORT"
            ));
        }
        None => value,
    };
    let port: u16 = port
        .parse()
        .map_err(|_| format!("{port:?} is not a port number (0 to 65535)"))?;
    Ok(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// Print the API's JSON (ListNotesResponse)
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ShowArgs {
    /// Note path, relative to the notes folder (e.g. ideas/hi.md)
    #[arg(add = ArgValueCompleter::new(note_candidates))]
    pub(crate) note: String,
    /// Print the API's JSON (NoteResponse)
    #[arg(long)]
    pub(crate) json: bool,
    /// Print this version of the note (an id from `notes history`, or a prefix of it)
    #[arg(long, value_name = "ID")]
    pub(crate) version: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct HistoryArgs {
    /// Note or attachment path, relative to the notes folder (e.g. ideas/hi.md,
    /// ideas/img/map.png)
    #[arg(
        add = ArgValueCompleter::new(note_candidates),
        required_unless_present = "prune",
        conflicts_with = "prune"
    )]
    pub(crate) note: Option<String>,
    /// Print the API's JSON ({"path", "versions"}; with --prune, what was dropped)
    #[arg(long)]
    pub(crate) json: bool,
    /// Drop the versions older than --keep days, then pack the store (with no --keep,
    /// everything is kept and the store is only packed)
    #[arg(long)]
    pub(crate) prune: bool,
    /// With --prune: keep the versions of the last DAYS days (a note's latest version,
    /// and a deleted note's last one until DAYS days after its delete, always stay)
    #[arg(long, env = "NOTES_HISTORY_KEEP", value_name = "DAYS")]
    pub(crate) keep: Option<u32>,
}

#[derive(Debug, Args)]
pub(crate) struct DiffArgs {
    /// Note path, relative to the notes folder (e.g. ideas/hi.md)
    #[arg(add = ArgValueCompleter::new(note_candidates))]
    pub(crate) note: String,
    /// The version to compare from (an id from `notes history`, or a prefix of it)
    pub(crate) from: Option<String>,
    /// The version to compare to (the note as it is now when left out)
    pub(crate) to: Option<String>,
    /// Print {"path", "from", "to", "diff"} as JSON
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct RestoreArgs {
    /// Note or attachment path, relative to the notes folder (e.g. ideas/hi.md,
    /// ideas/img/map.png)
    #[arg(add = ArgValueCompleter::new(note_candidates))]
    pub(crate) note: String,
    /// The version to bring back (an id from `notes history`, or a prefix of it)
    #[arg(long, value_name = "ID")]
    pub(crate) version: Option<String>,
    /// Print the restored note as the API's JSON (NoteResponse; an attachment's
    /// {"path", "size", "lastModified", "contentType"})
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct TrashArgs {
    /// Print the API's JSON ({"notes": [{"path", "deletedAt", "version", "kind"}]}, kind
    /// "note" or "file")
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct PutArgs {
    /// Note path, relative to the notes folder (e.g. ideas/hi.md)
    #[arg(add = ArgValueCompleter::new(note_candidates))]
    pub(crate) note: String,
    /// Markdown file to store; `-` or nothing reads standard input
    #[arg(value_name = "FILE")]
    pub(crate) file: Option<PathBuf>,
    /// Store the note even when the input is empty (refused otherwise: an empty input
    /// is most often a failed command before the pipe)
    #[arg(long)]
    pub(crate) allow_empty: bool,
    /// Print the API's JSON (NoteResponse)
    #[arg(long)]
    pub(crate) json: bool,
    /// Print nothing on success
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

#[derive(Debug, Args)]
pub(crate) struct NoteArgs {
    /// Note path, relative to the notes folder (e.g. ideas/hi.md)
    #[arg(add = ArgValueCompleter::new(note_candidates))]
    pub(crate) note: String,
    /// Print the result as JSON
    #[arg(long)]
    pub(crate) json: bool,
    /// Print nothing on success
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

#[derive(Debug, Args)]
pub(crate) struct MvArgs {
    /// The note to move, relative to the notes folder (e.g. ideas/hi.md)
    #[arg(add = ArgValueCompleter::new(note_candidates))]
    pub(crate) from: String,
    /// Its new path (folders are made as needed); no note may be there yet
    pub(crate) to: String,
    /// Print the API's JSON (`{"from", "to", "rewritten"}`)
    #[arg(long)]
    pub(crate) json: bool,
    /// Print nothing on success
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

#[derive(Debug, Args)]
pub(crate) struct PublishArgs {
    /// Note path, relative to the notes folder (e.g. ideas/hi.md)
    #[arg(add = ArgValueCompleter::new(note_candidates), required_unless_present = "repair")]
    pub(crate) note: Option<String>,
    /// Instead of publishing a note, repair the public folder after a crash or a hand
    /// edit: remove generated pages no public note names, regenerate missing pages,
    /// rebuild the index, the feed and the stylesheet; print what was fixed
    #[arg(long, conflicts_with = "note")]
    pub(crate) repair: bool,
    /// Print the result as JSON
    #[arg(long)]
    pub(crate) json: bool,
    /// Print nothing on success
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

#[derive(Debug, Args)]
pub(crate) struct SearchArgs {
    /// The query (quote it in the shell when it has several words or quotes)
    #[arg(required = true, num_args = 1.., value_name = "QUERY")]
    pub(crate) query: Vec<String>,
    /// Most results to show (1 to 100)
    #[arg(long, short = 'n', default_value_t = 20, value_parser = clap::value_parser!(u16).range(1..=100))]
    pub(crate) limit: u16,
    /// Print the API's JSON (the body of GET /api/v1/search)
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct LinksArgs {
    /// Note path, relative to the notes folder (e.g. ideas/hi.md)
    #[arg(add = ArgValueCompleter::new(note_candidates))]
    pub(crate) note: String,
    /// Print the API's JSON (the body of GET /api/v1/links/{path})
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// Print the result as JSON (`{"broken", "orphans", "missingFiles", "orphanFiles"}`)
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct AttachArgs {
    /// Note path, relative to the notes folder (e.g. ideas/hi.md); it must exist
    #[arg(add = ArgValueCompleter::new(note_candidates))]
    pub(crate) note: String,
    /// Files to copy beside the note
    #[arg(required = true, num_args = 1.., value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub(crate) files: Vec<PathBuf>,
    /// Print what was attached as JSON (`{"note", "attached": [{"path", "source", "reused"}]}`)
    #[arg(long)]
    pub(crate) json: bool,
    /// Print nothing on success
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

#[derive(Debug, Args)]
pub(crate) struct FilesArgs {
    /// Folder to list, relative to the notes folder (all attachments when left out)
    #[arg(value_name = "DIR")]
    pub(crate) dir: Option<String>,
    /// Print the API's JSON (the body of GET /api/v1/files)
    #[arg(long)]
    pub(crate) json: bool,
}

/// `notes token …`: the access tokens of `serve`.
#[derive(Debug, Subcommand)]
pub(crate) enum TokenCommand {
    /// Make a token and print it: the only time it is shown (only its hash is kept, in
    /// .notes/tokens.json)
    #[command(after_long_help = "EXAMPLES:\n  \
        notes token create --name laptop\n  \
        notes token create --name assistant --read-only\n  \
        notes token create --name work --prefix work --json | jq -r .token")]
    Create(TokenCreateArgs),
    /// List the tokens: name, scope, creation time (never the tokens themselves)
    #[command(
        after_long_help = "EXAMPLES:\n  notes token list\n  notes token list --json | jq '.tokens[].name'"
    )]
    List(TokenListArgs),
    /// Revoke a token: a running server refuses it, and ends its web sessions, from the
    /// next request on. Revoking the last one leaves the server closed: it refuses
    /// every request that needs a token until one is created (or `notes token off`)
    #[command(after_long_help = "EXAMPLES:\n  notes token revoke phone")]
    Revoke(TokenRevokeArgs),
    /// Turn tokens off on purpose: revoke every token left and let `serve` answer
    /// without one again, on loopback (another address still needs a token, or
    /// --no-auth). The next `notes token create` turns them on again
    #[command(after_long_help = "EXAMPLES:\n  notes token off\n  notes token off --json")]
    Off(TokenOffArgs),
}

#[derive(Debug, Args)]
pub(crate) struct TokenCreateArgs {
    /// The token's name, for `list` and `revoke` (default: the first free token-N)
    #[arg(long, value_name = "NAME")]
    pub(crate) name: Option<String>,
    /// The token may read, never change anything
    #[arg(long)]
    pub(crate) read_only: bool,
    /// The token reaches only the notes and files inside this folder
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::Other)]
    pub(crate) prefix: Option<String>,
    /// Print the result as JSON (`token` holds the secret)
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct TokenListArgs {
    /// Print the result as JSON (`{"tokens": [...], "closed": …}`; `closed`: a server
    /// asks for a token, and refuses every request while none exists)
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct TokenRevokeArgs {
    /// The token's name, as `notes token list` shows it
    pub(crate) name: String,
    /// Print the revoked token as JSON, with `left` (how many remain) and `closed`
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct TokenOffArgs {
    /// Print the result as JSON (`{"closed": false, "revoked": [...]}`)
    #[arg(long)]
    pub(crate) json: bool,
}
