//! `GET /api/v1/notes`: the spec's ListNotesResponse. A small list's JSON is kept with
//! its list snapshot and shared; a large one is written once, a chunk of entries at a
//! time, into a sealed memory file and sent from it as attachments are (never whole in
//! ordinary memory), or streamed a chunk at a time where no such file can be made. The
//! route takes no parameter: any query string is ignored, and every note comes back
//! (pages are `notes_pages.rs`).

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use bytes::Bytes;
use warp::http::StatusCode;
use warp::reject::Rejection;
use warp::reply::{Reply, Response};

use crate::http::server::SendFrom;
use crate::http::support::{blocking, reply};
use crate::http::{State, auth};
use crate::ops::files::sealed::Sealed;
use crate::ops::model::{NoteList, NoteMeta};
use crate::ops::tokens::Scope;

/// Entries rendered per chunk of a streamed list.
const CHUNK: usize = 256;
/// Lists of up to this many notes are rendered whole once per list and kept…
const KEEP_NOTES: usize = 16 << 10;
/// …when their JSON is at most this large.
const KEEP_BYTES: usize = 4 << 20;

/// The JSON of the last large list served, in a sealed memory file, and the list it was
/// written from (while that list is the current one, its JSON is this file).
#[derive(Default)]
pub(crate) struct KeptList(Mutex<Option<(Weak<NoteList>, Arc<Sealed>)>>);

impl KeptList {
    /// The file of `list`, when it is the one kept.
    fn of(&self, list: &Arc<NoteList>) -> Option<Arc<Sealed>> {
        let kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let (from, sealed) = kept.as_ref()?;
        // A `Weak` keeps its allocation: no other list can be at the same address.
        std::ptr::eq(from.as_ptr(), Arc::as_ptr(list)).then(|| sealed.clone())
    }

    fn keep(&self, list: &Arc<NoteList>, sealed: Arc<Sealed>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) =
            Some((Arc::downgrade(list), sealed));
    }
}

/// `GET /api/v1/notes`; a folder token (`scope`) sees its folder's notes only.
pub(super) async fn list(scope: Option<Scope>, state: Arc<State>) -> Result<Response, Rejection> {
    if let Some(scope) = scope.filter(|s| s.narrows(".")) {
        // Made for this token: the shared JSON is everyone's.
        let list = blocking(&state, move |s| {
            let snapshot = s.notebook.list_snapshot()?;
            let reader = s.notebook.reader_of(&scope, &snapshot);
            Ok::<_, crate::error::Error>(auth::lists::notes(&snapshot.list, &reader))
        })
        .await?;
        return Ok(reply::json(StatusCode::OK, &list));
    }
    let snapshot = blocking(&state, |s| s.notebook.list_snapshot()).await?;
    if let Some(json) = snapshot.rendered.get() {
        return Ok(reply::with_type(
            StatusCode::OK,
            json.clone(),
            reply::JSON_TYPE,
        ));
    }
    let list = snapshot.list.clone();
    if let Some(sealed) = state.kept_list.of(&list) {
        return Ok(sent_from(sealed));
    }
    if list.notes.len() <= KEEP_NOTES {
        let json = whole(&list);
        if json.len() <= KEEP_BYTES {
            let json = snapshot.rendered.get_or_init(|| json).clone();
            return Ok(reply::with_type(StatusCode::OK, json, reply::JSON_TYPE));
        }
        // Rendered already: sealed as it is, not rendered again.
        if let Some(sealed) = Sealed::of(&json) {
            state.kept_list.keep(&list, sealed.clone());
            return Ok(sent_from(sealed));
        }
        return Ok(reply::with_type(StatusCode::OK, json, reply::JSON_TYPE));
    }
    drop(snapshot);
    let written = list.clone();
    let sealed = blocking(&state, move |_| {
        Ok::<_, crate::error::Error>(written_out(written))
    })
    .await?;
    if let Some(sealed) = sealed {
        state.kept_list.keep(&list, sealed.clone());
        return Ok(sent_from(sealed));
    }
    let mut response =
        warp::reply::stream(futures_util::stream::iter(chunks(list))).into_response();
    response.headers_mut().insert(
        warp::http::header::CONTENT_TYPE,
        warp::http::HeaderValue::from_static(reply::JSON_TYPE),
    );
    Ok(response)
}

/// The answer whose body is the whole of `sealed`, sent from the file.
fn sent_from(sealed: Arc<Sealed>) -> Response {
    let bytes = sealed.bytes().clone();
    let len = bytes.len() as u64;
    let mut response = reply::with_type(StatusCode::OK, bytes, reply::JSON_TYPE);
    SendFrom::mark(&mut response, sealed, len);
    response
}

/// The whole list written into a sealed memory file, a chunk at a time; `None` where
/// none can be made.
fn written_out(list: Arc<NoteList>) -> Option<Arc<Sealed>> {
    Sealed::written(|file| {
        for chunk in chunks(list) {
            file.write_all(&chunk?)?;
        }
        Ok(())
    })
}

/// The whole list as `serde_json::to_vec_pretty` writes it, and a line feed.
fn whole(list: &NoteList) -> Bytes {
    let mut out = Vec::with_capacity(list.notes.len() * 200 + 64);
    head(&mut out, list);
    for (n, note) in list.notes.iter().enumerate() {
        entry(&mut out, note, n == 0);
    }
    tail(&mut out, list);
    out.into()
}

/// The list a chunk of entries at a time, each rendered when the connection takes it.
struct Chunks {
    list: Arc<NoteList>,
    /// The first entry of the next chunk; `None` once the list ended.
    at: Option<usize>,
}

impl Iterator for Chunks {
    type Item = std::io::Result<Bytes>;

    fn next(&mut self) -> Option<Self::Item> {
        let at = self.at?;
        let list = &self.list;
        let mut out = Vec::with_capacity(CHUNK * 200);
        if at == 0 {
            head(&mut out, list);
        }
        let end = list.notes.len().min(at + CHUNK);
        for (n, note) in list.notes[at..end].iter().enumerate() {
            entry(&mut out, note, at + n == 0);
        }
        self.at = if end == list.notes.len() {
            tail(&mut out, list);
            None
        } else {
            Some(end)
        };
        Some(Ok(Bytes::from(out)))
    }
}

fn chunks(list: Arc<NoteList>) -> Chunks {
    Chunks { list, at: Some(0) }
}

fn head(out: &mut Vec<u8>, list: &NoteList) {
    out.extend_from_slice(if list.notes.is_empty() {
        b"{\n  \"notes\": []"
    } else {
        b"{\n  \"notes\": ["
    });
}

fn tail(out: &mut Vec<u8>, list: &NoteList) {
    if !list.notes.is_empty() {
        out.extend_from_slice(b"\n  ]");
    }
    out.extend_from_slice(format!(",\n  \"total\": {}\n}}\n", list.total).as_bytes());
}

/// One entry of the list, indented as in the whole document, after a comma unless it
/// is the first. The fields are those of `NoteMeta`, in its order.
fn entry(out: &mut Vec<u8>, note: &NoteMeta, first: bool) {
    out.extend_from_slice(if first { b"\n    {" } else { b",\n    {" });
    field(out, "path", &note.path);
    out.push(b',');
    field(out, "title", &note.title);
    out.extend_from_slice(b",\n      \"tags\": [");
    for (n, tag) in note.tags.iter().enumerate() {
        out.extend_from_slice(if n == 0 {
            b"\n        "
        } else {
            b",\n        "
        });
        string(out, tag);
    }
    if !note.tags.is_empty() {
        out.extend_from_slice(b"\n      ");
    }
    out.extend_from_slice(b"],");
    field(out, "lastModified", &note.last_modified);
    out.push(b',');
    field(out, "date", &note.date);
    out.extend_from_slice(b",\n      \"size\": ");
    // serde_json writes integers with itoa: no formatter, no allocation.
    let _ = serde_json::to_writer(&mut *out, &note.size);
    out.extend_from_slice(b"\n    }");
}

fn field(out: &mut Vec<u8>, key: &str, value: &str) {
    out.extend_from_slice(b"\n      \"");
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\": ");
    string(out, value);
}

/// A JSON string, escaped as serde_json escapes it. Nearly every string of a list (a
/// path, a title, a date) has nothing to escape, and is copied between its quotes as it
/// is: serde_json's byte-by-byte escape was 38% of a list's CPU at 100k notes.
fn string(out: &mut Vec<u8>, text: &str) {
    // No early exit: the test of every byte compiles to vector instructions.
    let plain = text.bytes().fold(true, |plain, b| {
        plain & (b >= 0x20) & (b != b'"') & (b != b'\\')
    });
    if plain {
        out.reserve(text.len() + 2);
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
    } else {
        // Writing to a Vec cannot fail, and a &str always serialises.
        let _ = serde_json::to_writer(&mut *out, text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(path: &str, title: &str, tags: &[&str]) -> NoteMeta {
        NoteMeta {
            path: path.into(),
            title: title.into(),
            tags: tags.iter().map(|&t| t.into()).collect(),
            last_modified: "01-02-2024:10:30".into(),
            date: Default::default(),
            size: 42,
            modified: 0,
            body_tags: Box::default(),
            aliases: Vec::new(),
        }
    }

    fn list(n: usize) -> NoteList {
        let notes: Vec<NoteMeta> = (0..n)
            .map(|i| match i % 3 {
                0 => meta(&format!("a/{i}.md"), "Plain", &[]),
                1 => meta(&format!("b/{i}.md"), "Quote \" back\\slash \u{1} é", &["x"]),
                _ => meta(&format!("c/{i}.md"), "", &["x", "tab\there"]),
            })
            .collect();
        NoteList {
            total: notes.len(),
            notes,
        }
    }

    fn expected(list: &NoteList) -> Vec<u8> {
        let mut text = serde_json::to_vec_pretty(list).unwrap();
        text.push(b'\n');
        text
    }

    #[test]
    fn the_whole_body_is_what_serde_writes() {
        for n in [0, 1, 2, 5] {
            let list = list(n);
            assert_eq!(
                String::from_utf8(whole(&list).to_vec()).unwrap(),
                String::from_utf8(expected(&list)).unwrap()
            );
        }
    }

    proptest::proptest! {
        /// Plain or not, a string is written as serde_json writes it.
        #[test]
        fn a_string_is_what_serde_writes(text in "(\\PC|[\"\\\\\u{0}-\u{1f}\u{7f}]|[a-z/. -]{1,12}){0,40}") {
            let mut out = Vec::new();
            string(&mut out, &text);
            proptest::prop_assert_eq!(out, serde_json::to_vec(&text).unwrap());
        }
    }

    #[test]
    fn the_streamed_body_is_the_same_in_chunks() {
        for n in [0, 1, CHUNK, CHUNK + 1, 3 * CHUNK + 7] {
            let list = Arc::new(list(n));
            let parts: Vec<Bytes> = chunks(list.clone()).map(|c| c.unwrap()).collect();
            assert_eq!(parts.len(), n.div_ceil(CHUNK).max(1));
            assert_eq!(parts.concat(), expected(&list), "{n} notes");
        }
    }
}
