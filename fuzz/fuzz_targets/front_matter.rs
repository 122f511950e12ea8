//! Parsing any text never panics, and a parsed note re-emits to text that parses to the
//! same text and body.
#![no_main]

use libfuzzer_sys::fuzz_target;
use notes::ops::front_matter;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Some(doc) = front_matter::parse(text) else { return };
    let _ = doc.fields();
    let Ok(emitted) = doc.emit() else { return };
    let again = front_matter::parse(&emitted).expect("re-emitted text parses");
    // Compared as text: NaN values are equal in text though not as floats.
    assert_eq!(again.emit().ok().as_deref(), Some(emitted.as_str()));
    assert_eq!(again.body, doc.body);
});
