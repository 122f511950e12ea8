//! A change, and the record the log holds of it: `h` its time and message, then per
//! note `p` its path, followed by `x` its text unless the change removes it (or, for an
//! attachment, `o` the id and size of its blob, written to the repository first).

use git2::Oid;

use super::wal;

/// One note's new state in a change: its text, or `None` when the change removes it.
pub(crate) struct Change {
    pub(crate) path: String,
    pub(crate) text: Option<Vec<u8>>,
}

/// A change as a record holds it.
pub(super) struct Record {
    pub(super) at: i64,
    pub(super) message: String,
    pub(super) changes: Vec<(String, Option<Body>)>,
}

/// A path's new content in a record: a note's text, or an attachment's blob that the
/// repository already holds (its bytes are never in the log).
pub(super) enum Body {
    Text(Vec<u8>),
    Stored(Oid, u64),
}

pub(super) fn encode(at: i64, message: &str, changes: &[Change]) -> Vec<wal::Object> {
    let mut objects = vec![wal::Object {
        kind: b'h',
        bytes: format!("{at}\n{message}").into_bytes(),
    }];
    for change in changes {
        objects.push(wal::Object {
            kind: b'p',
            bytes: change.path.as_bytes().to_vec(),
        });
        if let Some(text) = &change.text {
            objects.push(wal::Object {
                kind: b'x',
                bytes: text.clone(),
            });
        }
    }
    objects
}

/// The change of a record; `None` for a record of the older log (git objects).
pub(super) fn decode(objects: Vec<wal::Object>) -> Option<Record> {
    let mut objects = objects.into_iter().peekable();
    let head = objects.next().filter(|o| o.kind == b'h')?;
    let head = String::from_utf8(head.bytes).ok()?;
    let (at, message) = head.split_once('\n')?;
    let mut changes = Vec::new();
    while let Some(object) = objects.next() {
        let path = String::from_utf8(object.bytes).ok()?;
        let body = match objects.next_if(|o| o.kind == b'x' || o.kind == b'o') {
            Some(o) if o.kind == b'x' => Some(Body::Text(o.bytes)),
            Some(o) => Some(stored_of(&o.bytes)?),
            None => None,
        };
        changes.push((path, body));
    }
    Some(Record {
        at: at.parse().ok()?,
        message: message.to_string(),
        changes,
    })
}

/// The `o` object of an attachment's blob: its id (20 bytes) and size (u64, LE).
pub(super) fn stored(id: Oid, size: u64) -> wal::Object {
    let mut bytes = id.as_bytes().to_vec();
    bytes.extend_from_slice(&size.to_le_bytes());
    wal::Object { kind: b'o', bytes }
}

fn stored_of(bytes: &[u8]) -> Option<Body> {
    let id = Oid::from_bytes(bytes.get(..20)?).ok()?;
    let size = u64::from_le_bytes(bytes.get(20..28)?.try_into().ok()?);
    Some(Body::Stored(id, size))
}
