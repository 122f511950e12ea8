//! The tools: each converts its arguments, makes one `ops` call within the session's
//! access, and renders a bounded answer. Their annotations say which change nothing,
//! which may destroy, which can be repeated.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};

use super::render::{ToolError, cursor_key, etag_of, page, version_of, window};
use super::{Backend, McpAccess, NotesServer};
use crate::ops::model::{NoteInput, NoteMeta, Precondition, PutOutcome};
use crate::ops::search::{Limit, Query};
use crate::ops::sections::Edit;
use crate::ops::tags::is_under;
use crate::ops::{FilePath, NotePath};

mod answers;
mod shapes;

use answers::*;
use shapes::*;

type Answer = Result<CallToolResult, ErrorData>;

/// A note path argument, parsed, within reach (where it leads included).
fn note_path(backend: &dyn Backend, access: &McpAccess, raw: &str) -> Result<NotePath, ToolError> {
    let path = NotePath::parse(raw).map_err(|e| ToolError::at(raw, e))?;
    access.check(backend.notebook(), &path)?;
    Ok(path)
}

/// A count argument: `default` when left out, else checked against `1..=max`.
fn count(name: &str, given: Option<u32>, default: usize, max: usize) -> Result<usize, ToolError> {
    match given {
        None => Ok(default),
        Some(n) if (1..=max).contains(&(n as usize)) => Ok(n as usize),
        Some(n) => Err(ToolError::new(format!(
            "{name} {n} is out of range: use a whole number from 1 to {max}"
        ))),
    }
}

#[tool_router(vis = "pub(super)")]
impl NotesServer {
    #[tool(
        description = "List the notes (path, title, tags, dates, size), sorted by path, \
            one page at a time: pass nextCursor back as cursor for the next page.",
        output_schema = output_schema::<NotesPage>(),
        annotations(title = "List notes", read_only_hint = true, open_world_hint = false)
    )]
    async fn list_notes(&self, Parameters(args): Parameters<ListNotesArgs>) -> Answer {
        let after = cursor_key(args.cursor.as_deref())?;
        self.blocking(move |backend: &dyn Backend, access: &McpAccess| {
            let limit = count("limit", args.limit, 100, 500)?;
            let raw = args.folder.as_deref().unwrap_or("").trim_matches('/');
            let folder = FilePath::parse_folder(raw).map_err(|e| ToolError::at(raw, e))?;
            let folder = access.narrow(&folder)?;
            let reader = access.reader(backend.notebook())?;
            let list = backend.notebook().list()?;
            let within: Vec<&NoteMeta> = list
                .notes
                .iter()
                .filter(|n| is_under(&n.path, &folder) && reader.holds(&n.path))
                .collect();
            let (notes, next_cursor) =
                page(within.iter().copied(), |n| &n.path, after.as_deref(), limit);
            Ok(NotesPage {
                notes: notes.into_iter().map(NoteEntry::from).collect(),
                total: within.len(),
                folder,
                next_cursor,
            })
        })
        .await
    }

    #[tool(
        description = "Read a note: its Markdown text (front matter included), title and \
            version; or (mode outline) its heading tree with line ranges; or (mode \
            section) the text of one section, named by its heading path. Long texts come \
            in pieces of maxBytes: when truncated is true, call again with offset set to \
            nextOffset.",
        output_schema = output_schema::<ReadAnswer>(),
        annotations(title = "Read a note", read_only_hint = true, open_world_hint = false)
    )]
    async fn read_note(&self, Parameters(args): Parameters<ReadNoteArgs>) -> Answer {
        self.blocking(move |backend: &dyn Backend, access: &McpAccess| {
            let max = count("maxBytes", args.max_bytes, 32 * 1024, 256 * 1024)?;
            let path = note_path(backend, access, &args.path)?;
            let notebook = backend.notebook();
            let at = |e| ToolError::at(path.as_str(), e);
            let offset = args.offset.unwrap_or(0);
            Ok(match (args.mode.unwrap_or(ReadMode::Whole), args.heading) {
                (ReadMode::Outline, _) => {
                    ReadAnswer::Outline(notebook.outline(&path).map_err(at)?.into())
                }
                (ReadMode::Section, Some(heading)) if !heading.is_empty() => {
                    let section = notebook.read_section(&path, &heading).map_err(at)?;
                    let piece = window(&section.text, offset, max);
                    ReadAnswer::Section(SectionText {
                        text: piece.text.to_string(),
                        offset: piece.offset,
                        truncated: piece.next.is_some(),
                        next_offset: piece.next,
                        path: section.path,
                        heading: section.heading,
                        line_start: section.line_start,
                        line_end: section.line_end,
                    })
                }
                (ReadMode::Section, _) => {
                    return Err(ToolError::new(
                        "mode section needs heading: the heading's path, e.g. [\"Top\", \"Sub\"]",
                    ));
                }
                (ReadMode::Whole, _) => {
                    let note = notebook.read(&path).map_err(at)?;
                    let piece = window(&note.content, offset, max);
                    ReadAnswer::Whole(NoteText {
                        content: piece.text.to_string(),
                        offset: piece.offset,
                        truncated: piece.next.is_some(),
                        next_offset: piece.next,
                        version: version_of(&note.etag),
                        path: note.path,
                        title: note.title,
                        last_modified: note.last_modified,
                        size: note.size,
                    })
                }
            })
        })
        .await
    }

    #[tool(
        description = "Full-text search of the notes (title, tags and text), best matches \
            first, each with a snippet. Query syntax: words, \"exact phrases\", tag:NAME, \
            -excluded.",
        output_schema = output_schema::<Found>(),
        annotations(title = "Search notes", read_only_hint = true, open_world_hint = false)
    )]
    async fn search_notes(&self, Parameters(args): Parameters<SearchNotesArgs>) -> Answer {
        self.blocking(move |backend: &dyn Backend, access: &McpAccess| {
            let limit = count("limit", args.limit, 10, 50)?;
            let query = Query::parse(&args.query)?;
            let asked = Limit::new(limit).unwrap_or(Limit::DEFAULT);
            // Results and total alike count only what the session may read.
            // A client that just wrote a note expects to find it.
            let notebook = backend.notebook();
            notebook.settle_index();
            let found = notebook.search(&query, asked, access.scope())?;
            Ok(Found {
                query: found.query,
                truncated: found.results.len() < found.total,
                results: found.results.into_iter().map(Hit::from).collect(),
                total: found.total,
                partial: found.partial,
            })
        })
        .await
    }

    #[tool(
        description = "Create a note from its Markdown text. Never replaces a note: when \
            one exists at the path, the call fails (read it and use update_note).",
        output_schema = output_schema::<Written>(),
        annotations(
            title = "Create a note",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn create_note(&self, Parameters(args): Parameters<CreateNoteArgs>) -> Answer {
        self.blocking(move |backend: &dyn Backend, access: &McpAccess| {
            let path = note_path(backend, access, &args.path)?;
            let content = NoteInput::Verbatim(args.content);
            written(
                &path,
                backend
                    .notebook()
                    .put(&path, content, Precondition::IfNoneMatchAny),
            )
        })
        .await
    }

    #[tool(
        description = "Replace a note's whole text. Requires the version read_note \
            returned: if the note changed since, nothing is written and the call fails \
            (read it again).",
        output_schema = output_schema::<Written>(),
        annotations(
            title = "Update a note",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn update_note(&self, Parameters(args): Parameters<UpdateNoteArgs>) -> Answer {
        self.blocking(move |backend: &dyn Backend, access: &McpAccess| {
            let path = note_path(backend, access, &args.path)?;
            let content = NoteInput::Verbatim(args.content);
            let cond = if_match(Some(&args.version));
            written(&path, backend.notebook().put(&path, content, cond))
        })
        .await
    }

    #[tool(
        description = "Add Markdown at the end of an existing note, after a blank line; \
            or, with heading, at the end of that section.",
        output_schema = output_schema::<Written>(),
        annotations(
            title = "Append to a note",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn append_to_note(&self, Parameters(args): Parameters<AppendArgs>) -> Answer {
        self.blocking(move |backend: &dyn Backend, access: &McpAccess| {
            let path = note_path(backend, access, &args.path)?;
            let notebook = backend.notebook();
            let done = match args.heading {
                Some(heading) => notebook.edit_section(
                    &path,
                    Edit::Append {
                        heading,
                        text: args.text,
                    },
                    Precondition::None,
                ),
                None => notebook.append_to_note(&path, args.text.trim_end_matches('\n')),
            };
            written(&path, done)
        })
        .await
    }

    #[tool(
        description = "Change one section of a note, named by its heading path (matched \
            exactly; never creates a heading): append to it, prepend under its heading \
            line, or replace what is under the heading. A missing or ambiguous heading \
            fails and lists the headings there are.",
        output_schema = output_schema::<Written>(),
        annotations(
            title = "Edit a section",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn edit_section(&self, Parameters(args): Parameters<EditSectionArgs>) -> Answer {
        self.blocking(move |backend: &dyn Backend, access: &McpAccess| {
            let path = note_path(backend, access, &args.path)?;
            let (heading, text) = (args.heading, args.text);
            let edit = match args.op {
                SectionOp::Append => Edit::Append { heading, text },
                SectionOp::Prepend => Edit::Prepend { heading, text },
                SectionOp::Replace => Edit::Replace { heading, text },
            };
            let cond = if_match(args.version.as_deref());
            written(&path, backend.notebook().edit_section(&path, edit, cond))
        })
        .await
    }

    #[tool(
        description = "Move or rename a note; every link to it in other notes is \
            rewritten to lead to its new path. No note may exist at the new path.",
        output_schema = output_schema::<MoveAnswer>(),
        annotations(
            title = "Move a note",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn move_note(&self, Parameters(args): Parameters<MoveNoteArgs>) -> Answer {
        self.blocking(move |backend: &dyn Backend, access: &McpAccess| {
            let from = note_path(backend, access, &args.from)?;
            let to = note_path(backend, access, &args.to)?;
            let moved = backend
                .notebook()
                .move_note(&from, &to, &Precondition::None, access.scope())
                .map_err(|e| match e {
                    crate::error::Error::MoveDestinationExists(_) => ToolError::at(to.as_str(), e),
                    e => ToolError::at(from.as_str(), e),
                })?;
            Ok(MoveAnswer::from(moved))
        })
        .await
    }

    #[tool(
        description = "Delete a note. It goes to the trash: its history keeps every \
            version, and it can be restored.",
        output_schema = output_schema::<Deleted>(),
        annotations(
            title = "Delete a note",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn delete_note(&self, Parameters(args): Parameters<DeleteNoteArgs>) -> Answer {
        self.blocking(move |backend: &dyn Backend, access: &McpAccess| {
            let path = note_path(backend, access, &args.path)?;
            let cond = if_match(args.version.as_deref());
            let notebook = backend.notebook();
            let deleted = notebook
                .delete(&path, &cond)
                .map_err(|e| ToolError::at(path.as_str(), e))?;
            Ok(Deleted {
                path: deleted.path,
                in_trash: notebook.history_on(),
            })
        })
        .await
    }

    #[tool(
        description = "List the tags in use, by name, each with how many notes carry it, \
            one page at a time (pass nextCursor back as cursor).",
        output_schema = output_schema::<TagsPage>(),
        annotations(title = "List tags", read_only_hint = true, open_world_hint = false)
    )]
    async fn list_tags(&self, Parameters(args): Parameters<ListTagsArgs>) -> Answer {
        let after = cursor_key(args.cursor.as_deref())?;
        self.blocking(move |backend: &dyn Backend, access: &McpAccess| {
            let limit = count("limit", args.limit, 200, 1000)?;
            let tags = backend.notebook().tags(access.scope())?;
            let (shown, next_cursor) = page(&tags, |t| &t.name, after.as_deref(), limit);
            Ok(TagsPage {
                tags: shown.into_iter().map(Tag::from).collect(),
                total: tags.len(),
                next_cursor,
            })
        })
        .await
    }

    #[tool(
        description = "A note's links: the notes it links to (path null for a broken \
            link) and the notes that link to it, with line numbers.",
        output_schema = output_schema::<Links>(),
        annotations(title = "Note links", read_only_hint = true, open_world_hint = false)
    )]
    async fn note_links(&self, Parameters(args): Parameters<NoteLinksArgs>) -> Answer {
        self.blocking(move |backend: &dyn Backend, access: &McpAccess| {
            let limit = count("limit", args.limit, 100, 500)?;
            let path = note_path(backend, access, &args.path)?;
            let mut links = backend
                .notebook()
                .links(&path, access.scope())
                .map_err(|e| ToolError::at(path.as_str(), e))?;
            let totals = (links.outgoing.len(), links.incoming.len());
            links.outgoing.truncate(limit);
            links.incoming.truncate(limit);
            Ok(Links {
                path: links.path,
                outgoing: links.outgoing.into_iter().map(LinkOut::from).collect(),
                incoming: links.incoming.into_iter().map(LinkIn::from).collect(),
                outgoing_total: totals.0,
                incoming_total: totals.1,
                truncated: totals.0 > limit || totals.1 > limit,
            })
        })
        .await
    }

    #[tool(
        description = "Publish a note: write its public HTML page (and refresh the public \
            index and feed); an already public note gets its page regenerated.",
        output_schema = output_schema::<Publicity>(),
        annotations(
            title = "Publish a note",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn publish_note(&self, Parameters(args): Parameters<NotePathArgs>) -> Answer {
        let call = move |b: &dyn Backend, a: &McpAccess| publicity(b, a, &args.path, true);
        self.blocking(call).await
    }

    #[tool(
        description = "Unpublish a public note: its public page is removed and the public \
            index rebuilt; the note itself stays.",
        output_schema = output_schema::<Publicity>(),
        annotations(
            title = "Unpublish a note",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn unpublish_note(&self, Parameters(args): Parameters<NotePathArgs>) -> Answer {
        let call = move |b: &dyn Backend, a: &McpAccess| publicity(b, a, &args.path, false);
        self.blocking(call).await
    }
}

/// The precondition of a change: the version read, if the call names one.
fn if_match(version: Option<&str>) -> Precondition {
    version.map_or(Precondition::None, |v| {
        Precondition::IfMatch(vec![etag_of(v)])
    })
}

/// The answer of a change to the note at `path`: what was written.
fn written(path: &NotePath, done: crate::error::Result<PutOutcome>) -> Result<Written, ToolError> {
    let outcome = done.map_err(|e| ToolError::at(path.as_str(), e))?;
    Ok(Written {
        version: version_of(&outcome.note.etag),
        path: outcome.note.path,
        title: outcome.note.title,
        size: outcome.note.size,
        created: outcome.created,
    })
}

/// Publishes (or unpublishes) the note at `raw`, within reach, and says where it stands.
fn publicity(
    b: &dyn Backend,
    a: &McpAccess,
    raw: &str,
    publish: bool,
) -> Result<Publicity, ToolError> {
    let path = note_path(b, a, raw)?;
    let done = match publish {
        true => b.notebook().publish(&path, a.scope()),
        false => b.notebook().unpublish(&path, a.scope()),
    };
    let done = done.map_err(|e| ToolError::at(path.as_str(), e))?;
    Ok(Publicity {
        path: done.result.path,
        status: done.result.status.into(),
        page: done
            .page
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default(),
    })
}
