//! `/mcp` on `serve`: the MCP server over Streamable HTTP, as the SDK's tower service.
//! The server's door hands it the requests for that path after its Host and Origin
//! checks; its failures are ErrorResponse bodies like every other route's.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyDataStream, BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::CONTENT_TYPE;
use hyper::{Request, StatusCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tower_service::Service;
use warp::Reply;
use warp::reply::Response;

use super::State;
use super::support::reply;
use crate::mcp::{Backend, McpAccess, NotesServer};
use crate::ops::Notebook;

/// The path of the endpoint.
pub(crate) const PATH: &str = "/mcp";

/// Longest error text of the SDK's kept in an ErrorResponse (its own are one line).
const ERROR_TEXT: usize = 4096;

/// The running server's notebook, as the tools see it.
struct Served(Arc<State>);

impl Backend for Served {
    fn notebook(&self) -> &Notebook {
        &self.0.notebook
    }
}

/// The endpoint: one per event loop, all answering alike.
#[derive(Clone)]
pub(crate) struct Endpoint {
    service: StreamableHttpService<NotesServer, LocalSessionManager>,
    /// How long one exchange may take, body and tool call included.
    deadline: Duration,
}

impl Endpoint {
    pub(crate) fn new(state: Arc<State>) -> Self {
        let deadline = state.request_timeout * 5;
        let max_body = usize::try_from(state.max_body).unwrap_or(usize::MAX);
        let server = NotesServer::new(Arc::new(Served(state)), McpAccess::default());
        // Stateless, answering in JSON: each request stands alone, so any event loop can
        // answer any request and no stream outlives its answer (the shutdown drain
        // stays bounded). The Host check is the door's, with the --allow-host names.
        let config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
            .with_sse_keep_alive(None)
            .disable_allowed_hosts()
            .with_max_request_body_bytes(max_body);
        let service = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        Endpoint { service, deadline }
    }

    /// The answer to one request for [`PATH`].
    pub(crate) fn answer(
        &self,
        request: Request<Incoming>,
    ) -> Pin<Box<dyn Future<Output = Response> + Send>> {
        let mut service = self.service.clone();
        let deadline = self.deadline;
        Box::pin(async move {
            match tokio::time::timeout(deadline, service.call(request)).await {
                Ok(Ok(response)) => into_reply(response).await,
                Ok(Err(never)) => match never {},
                Err(_) => reply::error_message(
                    StatusCode::REQUEST_TIMEOUT,
                    "The MCP request took too long (its body, or the tool it called)",
                ),
            }
        })
    }
}

/// The SDK's answer as the server sends it: a success streamed as it comes, a failure
/// (plain text from the SDK) as an ErrorResponse with the same status and headers.
async fn into_reply<B>(response: hyper::Response<B>) -> Response
where
    B: hyper::body::Body<Data = bytes::Bytes, Error = std::convert::Infallible>
        + Send
        + Sync
        + 'static,
{
    let (parts, body) = response.into_parts();
    let failed = parts.status.is_client_error() || parts.status.is_server_error();
    let json = parts
        .headers
        .get(CONTENT_TYPE)
        .is_some_and(|t| t.as_bytes().starts_with(b"application/json"));
    if failed && !json {
        let text = match Limited::new(body, ERROR_TEXT).collect().await {
            Ok(collected) => String::from_utf8_lossy(&collected.to_bytes()).into_owned(),
            Err(_) => String::new(),
        };
        let message = match text.trim() {
            "" => parts
                .status
                .canonical_reason()
                .unwrap_or("Error")
                .to_string(),
            text => text.to_string(),
        };
        let mut reply = reply::error_message(parts.status, &message);
        for (name, value) in &parts.headers {
            if name != CONTENT_TYPE && name != hyper::header::CONTENT_LENGTH {
                reply.headers_mut().insert(name, value.clone());
            }
        }
        return reply;
    }
    let mut reply = warp::reply::stream(BodyDataStream::new(body)).into_response();
    *reply.status_mut() = parts.status;
    *reply.headers_mut() = parts.headers;
    reply
}
