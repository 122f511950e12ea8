//! `notes mcp`: the MCP server over standard input and output, for an assistant that
//! starts it as a subprocess. Standard output carries the protocol only; log lines go to
//! standard error.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use rmcp::ServiceExt;

use crate::cli::McpArgs;
use crate::mcp::{Backend, McpAccess, NotesServer};
use crate::ops::Notebook;

pub(super) fn run(notebook: Notebook, args: McpArgs) -> anyhow::Result<ExitCode> {
    let access = McpAccess::new(args.read_only, args.prefix.as_deref()).map_err(|e| {
        anyhow::anyhow!(
            "--prefix {}: {}",
            args.prefix.as_deref().unwrap_or_default(),
            super::cause(&e)
        )
    })?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let server = NotesServer::new(Arc::new(Folder(notebook)), access);
        let session = server
            .serve(rmcp::transport::stdio())
            .await
            .context("the MCP session could not start")?;
        // Ends when the client closes standard input.
        session.waiting().await.context("the MCP session failed")?;
        Ok(ExitCode::SUCCESS)
    })
}

/// The notes folder as this process sees it: each search brings the index up to date
/// first (or waits for a running server to), like `notes search`.
struct Folder(Notebook);

impl Backend for Folder {
    fn notebook(&self) -> &Notebook {
        &self.0
    }
}
