//! The MCP server: the notes as tools and resources for MCP clients, over stdio
//! (`notes mcp`) and Streamable HTTP (`/mcp` on `serve`, whose endpoint lives in
//! `http::mcp`). A layer beside `http` and `cmd`: it turns tool calls into `ops` calls
//! and renders their results; what a session may reach is its `McpAccess`. It imports
//! nothing from `http`.

mod access;
mod prompts;
mod render;
mod resources;
mod tools;

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, Implementation, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::Serialize;

pub(crate) use access::McpAccess;

use crate::ops::Notebook;
use crate::ops::tokens::Scope;
use render::ToolError;

/// What the tools run against: the notebook (the server's, or a command's own).
pub(crate) trait Backend: Send + Sync + 'static {
    fn notebook(&self) -> &Notebook;
}

/// One MCP server: the tools and resources of a notebook, within an access.
#[derive(Clone)]
pub(crate) struct NotesServer {
    backend: Arc<dyn Backend>,
    access: McpAccess,
    tools: Arc<ToolRouter<NotesServer>>,
}

/// What a client is told of the server when it connects.
const INSTRUCTIONS: &str = "A folder of Markdown notes. Find notes with search_notes or \
    list_notes, read them with read_note (whole, by pieces for long notes, as an outline, \
    or one section). To change a note, pass the version read_note returned to \
    update_note: a note changed meanwhile is refused, never overwritten; edit_section \
    changes one section, named by its heading path. create_note never replaces a note. \
    delete_note moves a note to the trash, from which it can be restored. Notes are also \
    resources, note:///PATH.";

impl NotesServer {
    pub(crate) fn new(backend: Arc<dyn Backend>, access: McpAccess) -> Self {
        NotesServer {
            backend,
            access,
            tools: Arc::new(Self::tool_router()),
        }
    }

    /// This server as one request may use it: over HTTP the door leaves a limited
    /// token's scope on the request, which then replaces the server's own access.
    fn within(&self, context: &RequestContext<RoleServer>) -> NotesServer {
        let granted = context
            .extensions
            .get::<hyper::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Scope>());
        match granted {
            Some(scope) => NotesServer {
                access: McpAccess::of(scope),
                ..self.clone()
            },
            None => self.clone(),
        }
    }

    /// The tools this access may call: all of them, or those that change nothing.
    fn visible_tools(&self) -> Vec<Tool> {
        let mut tools = self.tools.list_all();
        if self.access.read_only() {
            tools.retain(is_read_only);
        }
        tools
    }

    /// Runs `work` on the blocking pool (every tool reads or writes files) and renders
    /// its result.
    async fn blocking<T, F>(&self, work: F) -> std::result::Result<CallToolResult, ErrorData>
    where
        T: Serialize + Send + 'static,
        F: FnOnce(&dyn Backend, &McpAccess) -> std::result::Result<T, ToolError> + Send + 'static,
    {
        let backend = self.backend.clone();
        let access = self.access.clone();
        match tokio::task::spawn_blocking(move || work(backend.as_ref(), &access)).await {
            Ok(result) => Ok(render::answer(result)),
            Err(e) => Err(ErrorData::internal_error(
                format!("the tool failed: {e}"),
                None,
            )),
        }
    }
}

fn is_read_only(tool: &Tool) -> bool {
    tool.annotations
        .as_ref()
        .and_then(|a| a.read_only_hint)
        .unwrap_or(false)
}

impl ServerHandler for NotesServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new("notes", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS.to_string())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.within(&context).visible_tools(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let server = self.within(&context);
        if server.access.read_only()
            && server
                .tools
                .get(&request.name)
                .is_some_and(|tool| !is_read_only(tool))
        {
            let refused = format!(
                "{}: not allowed: this session may only read (its access is read-only)",
                request.name
            );
            return Ok(CallToolResult::error(vec![ContentBlock::text(refused)]).into());
        }
        let tools = server.tools.clone();
        tools
            .call(ToolCallContext::new(&server, request, context))
            .await
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.get(name).cloned()
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourcesResult, ErrorData> {
        let server = self.within(&context);
        let cursor = request.and_then(|r| r.cursor);
        server
            .blocking_resource(move |backend, access| {
                resources::list(backend, access, cursor.as_deref())
            })
            .await
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListPromptsResult, ErrorData> {
        let server = self.within(&context);
        Ok(ListPromptsResult::with_all_items(prompts::list(
            server.access.read_only(),
        )))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<GetPromptResponse, ErrorData> {
        let server = self.within(&context);
        prompts::get(
            &request.name,
            request.arguments.as_ref(),
            server.access.read_only(),
        )
        .map(Into::into)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            resources::template(),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<ReadResourceResponse, ErrorData> {
        let server = self.within(&context);
        server
            .blocking_resource(move |backend, access| {
                resources::read(backend, access, &request.uri)
            })
            .await
            .map(Into::into)
    }
}

impl NotesServer {
    /// Runs a resource request on the blocking pool; its errors are protocol errors.
    async fn blocking_resource<T, F>(&self, work: F) -> std::result::Result<T, ErrorData>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Backend, &McpAccess) -> std::result::Result<T, ErrorData> + Send + 'static,
    {
        let backend = self.backend.clone();
        let access = self.access.clone();
        tokio::task::spawn_blocking(move || work(backend.as_ref(), &access))
            .await
            .unwrap_or_else(|e| {
                Err(ErrorData::internal_error(
                    format!("the read failed: {e}"),
                    None,
                ))
            })
    }
}
