//! Textual front matter edits: one key's bytes change, everything else stays.

use super::*;
use crate::ops::front_matter::parse;

fn set(text: &str, key: &str, value: &str) -> String {
    edit(text, &[Change::text(key, value)]).unwrap()
}

#[test]
fn a_value_already_there_changes_nothing() {
    let text = "---\r\n# mine\r\ntitle:   \"Hi\"   # t\r\ntags:\r\n    - a\r\n---\r\nbody";
    let same = [
        Change::text("title", "Hi"),
        Change::list("tags", &["a".into()]),
        Change::Remove("missing".into()),
    ];
    assert_eq!(edit(text, &same).unwrap(), text);
}

#[test]
fn a_plain_scalar_is_replaced_on_its_line() {
    let text = "---\n# about\ntitle: Old\nauthor:   Ann # me\n---\n\nbody\n";
    assert_eq!(
        set(text, "title", "New: one"),
        "---\n# about\ntitle: 'New: one'\nauthor:   Ann # me\n---\n\nbody\n"
    );
}

#[test]
fn quotes_stay_quotes() {
    let text = "---\ntitle: \"Old\"\nsub: 'x'\n---\n";
    let out = edit(
        text,
        &[
            Change::text("title", "say \"hi\""),
            Change::text("sub", "it's"),
        ],
    );
    assert_eq!(
        out.unwrap(),
        "---\ntitle: \"say \\\"hi\\\"\"\nsub: 'it''s'\n---\n"
    );
}

#[test]
fn lists_keep_their_indentation_or_their_brackets() {
    let tags =
        |t: &[&str]| Change::list("tags", &t.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    let block = "---\ntags:\n  - a\n  - b\nx: 1\n---\n";
    assert_eq!(
        edit(block, &[tags(&["a", "c"])]).unwrap(),
        "---\ntags:\n  - a\n  - c\nx: 1\n---\n"
    );
    let flow = "---\ntags: [a, b]\n---\n";
    assert_eq!(
        edit(flow, &[tags(&["a", "b, c", "d"])]).unwrap(),
        "---\ntags: [a, \"b, c\", d]\n---\n"
    );
    let compact = "---\ntags:\n- a\n---\n";
    assert_eq!(edit(compact, &[tags(&[])]).unwrap(), "---\ntags: []\n---\n");
}

#[test]
fn a_missing_spec_key_goes_after_its_neighbour_and_others_go_last() {
    let text = "---\ntitle: T\n# when\ndate: d\n\nx: 1\n---\nb";
    assert_eq!(
        set(text, "last_modified", "now"),
        "---\ntitle: T\n# when\ndate: d\nlast_modified: now\n\nx: 1\n---\nb"
    );
    assert_eq!(
        set(text, "mood", "ok"),
        "---\ntitle: T\n# when\ndate: d\n\nx: 1\nmood: ok\n---\nb"
    );
    let only_tags = "---\nx: 1\ntags: [a]\n---\n";
    assert_eq!(
        set(only_tags, "title", "T"),
        "---\nx: 1\ntitle: T\ntags: [a]\n---\n"
    );
    assert_eq!(set("---\n---\nb", "title", "T"), "---\ntitle: T\n---\nb");
}

#[test]
fn a_key_is_removed_with_its_lines_only() {
    let text = "---\na: 1\nb:\n  c: 2\n  d: [3]\n# keep\ne: 4\n---\n";
    let out = edit(text, &[Change::Remove("b".into())]).unwrap();
    assert_eq!(out, "---\na: 1\n# keep\ne: 4\n---\n");
}

#[test]
fn crlf_indentation_and_a_byte_order_mark_are_kept() {
    let text = "\u{feff}---\r\n  title: A\r\n  tags:\r\n  - x\r\n---\r\nbody";
    assert_eq!(
        set(text, "title", "B"),
        "\u{feff}---\r\n  title: B\r\n  tags:\r\n  - x\r\n---\r\nbody"
    );
    assert_eq!(
        set(text, "last_modified", "now"),
        "\u{feff}---\r\n  title: A\r\n  last_modified: now\r\n  tags:\r\n  - x\r\n---\r\nbody"
    );
}

#[test]
fn nested_values_and_block_scalars_are_replaced_whole() {
    let text = "---\nnote: |\n  one\n  two\nmeta:\n    a: 1\nz: 0\n---\n";
    let mut map = Mapping::new();
    map.insert("b".into(), 2.into());
    let out = edit(
        text,
        &[
            Change::text("note", "three"),
            Change::Set("meta".into(), Value::Mapping(map)),
        ],
    )
    .unwrap();
    assert_eq!(out, "---\nnote: three\nmeta:\n    b: 2\nz: 0\n---\n");
    let multi = set("---\nnote: x\n---\n", "note", "a\nb");
    assert_eq!(
        parse(&multi).unwrap().yaml.get("note"),
        Some(&Value::from("a\nb"))
    );
}

#[test]
fn keys_and_values_beyond_ascii_are_edited() {
    let text = "---\n\u{a9062}: []\nété: \"ça\"\n---\n";
    let out = edit(
        text,
        &[
            Change::list("\u{a9062}", &["ü".into()]),
            Change::text("été", "là"),
            Change::text("\u{1680}new", "x"),
        ],
    )
    .unwrap();
    let doc = parse(&out).unwrap();
    assert_eq!(
        doc.yaml.get("\u{a9062}"),
        Some(&Value::Sequence(vec!["ü".into()]))
    );
    assert_eq!(doc.yaml.get("été"), Some(&Value::from("là")));
    assert_eq!(doc.yaml.get("\u{1680}new"), Some(&Value::from("x")));
    assert!(out.contains("été: \"là\"\n"), "{out}");
}

#[test]
fn quoted_keys_are_found() {
    let text = "---\n\"title\": Old\n'date': d\n---\n";
    assert_eq!(
        set(text, "title", "New"),
        "---\n\"title\": New\n'date': d\n---\n"
    );
}

#[test]
fn other_layouts_are_written_whole_and_still_read_as_asked() {
    let text = "---\n{title: Old, x: [1, 2]}\n---\nbody";
    let out = set(text, "title", "New");
    let doc = parse(&out).unwrap();
    assert_eq!(doc.fields().title, "New");
    assert_eq!(doc.yaml.get("x"), parse(text).unwrap().yaml.get("x"));
    assert_eq!(doc.body, "body");
}

#[test]
fn anchors_used_elsewhere_are_not_broken() {
    let text = "---\nbase: &b hello\ncopy: *b\n---\n";
    let out = set(text, "base", "bye");
    let doc = parse(&out).unwrap();
    assert_eq!(doc.yaml.get("base"), Some(&Value::from("bye")));
    assert_eq!(doc.yaml.get("copy"), Some(&Value::from("hello")));
}

#[test]
fn touch_refreshes_only_a_stamp_the_note_has() {
    let with = "---\nlast_modified: old # auto\ntitle: T\n---\nx";
    assert_eq!(
        touch(with.into(), "now").unwrap(),
        "---\nlast_modified: now\ntitle: T\n---\nx"
    );
    for text in [
        "---\ntitle: T\n---\nx",
        "no front matter",
        "---\n: : :\n---\n",
    ] {
        assert_eq!(touch(text.into(), "now").unwrap(), text);
    }
}

#[test]
fn text_without_front_matter_is_unreadable_here() {
    assert!(matches!(
        edit("plain", &[Change::text("title", "T")]),
        Err(Error::FrontMatterUnreadable)
    ));
}

pub(crate) mod properties {
    use super::*;
    use proptest::prelude::*;

    /// One top-level entry: the lines before it (comments, blank lines), its key and
    /// its lines, all with `\n`, at indentation 0.
    #[derive(Debug, Clone)]
    pub(crate) struct Entry {
        pub(crate) gap: String,
        pub(crate) key: String,
        pub(crate) text: String,
    }

    fn key() -> impl Strategy<Value = (String, String)> {
        prop_oneof![
            "[a-z][a-z0-9_]{0,6}".prop_map(|k| (k.clone(), k)),
            "[a-zé€\u{a9062}][a-zé:€]{0,4}".prop_map(|k| (k.clone(), k)),
            prop::sample::select(vec!["title", "date", "last_modified", "tags", "aliases"])
                .prop_map(|k| (k.to_string(), k.to_string())),
            "[a-z]{1,5}".prop_map(|k| (k.clone(), format!("\"{k}\""))),
            "[a-z]{1,5}".prop_map(|k| (k.clone(), format!("'{k}'"))),
        ]
    }

    fn value() -> impl Strategy<Value = String> {
        let word = "[a-z][a-z]{0,6}";
        prop_oneof![
            "[a-z][a-z ]{0,10}[a-z]".prop_map(|v| format!(" {v}\n")),
            "[a-z \"]{0,8}".prop_map(|v| format!(" \"{}\"\n", v.replace('"', "\\\""))),
            "[a-z ']{0,8}".prop_map(|v| format!("   '{}'\n", v.replace('\'', "''"))),
            any::<i32>().prop_map(|n| format!(" {n}\n")),
            Just(" true\n".to_string()),
            Just("\n".to_string()),
            Just(" []\n".to_string()),
            (word, word).prop_map(|(v, c)| format!(" {v}   # {c}\n")),
            (
                prop::sample::select(vec!["", "  ", "    "]),
                prop::collection::vec(word, 1..4)
            )
                .prop_map(|(pad, items)| {
                    let lines: String = items.iter().map(|i| format!("{pad}- {i}\n")).collect();
                    format!("\n{lines}")
                }),
            prop::collection::vec(word, 0..4)
                .prop_map(|items| format!(" [{}]\n", items.join(", "))),
            (prop::sample::select(vec!["  ", "    "]), word, word).prop_map(|(pad, a, b)| {
                format!("\n{pad}child: {a}\n{pad}# inside\n{pad}other: [{b}]\n")
            }),
            (word, word).prop_map(|(a, b)| format!(" |\n  {a}\n\n  {b}\n")),
        ]
    }

    fn gap() -> impl Strategy<Value = String> {
        prop::sample::select(vec!["", "", "\n", "# a comment\n", "\n# x: 1\n\n"])
            .prop_map(str::to_string)
    }

    fn entries() -> impl Strategy<Value = Vec<Entry>> {
        prop::collection::vec((gap(), key(), value()), 0..7).prop_map(|raw| {
            let mut seen = Vec::new();
            raw.into_iter()
                .filter(|(_, (key, _), _)| {
                    let fresh = !seen.contains(key);
                    seen.push(key.clone());
                    fresh
                })
                .map(|(gap, (key, written), value)| Entry {
                    gap,
                    text: format!("{written}:{value}"),
                    key,
                })
                .collect()
        })
    }

    /// A whole note: (before each entry's text, the entries' texts, after), the note
    /// being their concatenation; `indent` spaces before every front matter line,
    /// `newline` ending every line.
    #[derive(Debug, Clone)]
    pub(crate) struct Note {
        pub(crate) entries: Vec<Entry>,
        pub(crate) indent: usize,
        pub(crate) newline: &'static str,
        pub(crate) tail: String,
        pub(crate) blank: bool,
        pub(crate) body: String,
    }

    impl Note {
        fn lines(&self, text: &str) -> String {
            let pad = " ".repeat(self.indent);
            text.split_inclusive('\n')
                .map(|l| {
                    let l = if l.trim().is_empty() {
                        l.to_string()
                    } else {
                        format!("{pad}{l}")
                    };
                    l.replace('\n', self.newline)
                })
                .collect()
        }

        /// The note's text, split around entry `at`: (before, the entry, after).
        pub(crate) fn parts(&self, at: usize) -> (String, String, String) {
            let nl = self.newline;
            let mut before = format!("---{nl}");
            let mut entry = String::new();
            let mut after = String::new();
            for (i, e) in self.entries.iter().enumerate() {
                let gap = self.lines(&e.gap);
                let text = self.lines(&e.text);
                match i.cmp(&at) {
                    std::cmp::Ordering::Less => before.push_str(&format!("{gap}{text}")),
                    std::cmp::Ordering::Equal => {
                        before.push_str(&gap);
                        entry = text;
                    }
                    std::cmp::Ordering::Greater => after.push_str(&format!("{gap}{text}")),
                }
            }
            let blank = if self.blank { nl } else { "" };
            after.push_str(&format!(
                "{}---{nl}{blank}{}",
                self.lines(&self.tail),
                self.body
            ));
            (before, entry, after)
        }

        pub(crate) fn text(&self) -> String {
            let (a, b, c) = self.parts(usize::MAX);
            format!("{a}{b}{c}")
        }
    }

    pub(crate) fn note() -> impl Strategy<Value = Note> {
        (
            entries(),
            prop::sample::select(vec![0usize, 0, 2]),
            prop::sample::select(vec!["\n", "\r\n"]),
            gap(),
            any::<bool>(),
            "[a-z #\\[\\]\n-]{0,30}",
            any::<bool>(),
        )
            .prop_map(
                |(entries, indent, newline, tail, blank, body, last_newline)| {
                    let mut body = body.replace('\n', newline);
                    if last_newline && !body.ends_with('\n') {
                        body.push_str(newline);
                    }
                    Note {
                        entries,
                        indent,
                        newline,
                        tail,
                        blank,
                        body,
                    }
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn setting_every_key_to_its_value_is_the_identity(note in note()) {
            let text = note.text();
            let doc = parse(&text);
            prop_assert!(doc.is_some(), "does not parse: {:?}", text);
            let doc = doc.unwrap();
            let same: Vec<Change> = doc.yaml.iter()
                .filter_map(|(k, v)| Some(Change::Set(k.as_str()?.to_string(), v.clone())))
                .collect();
            prop_assert_eq!(edit(&text, &same).unwrap(), text.clone());
            prop_assert_eq!(edit(&text, &[]).unwrap(), text.clone());
            prop_assert_eq!(touch(text.clone(), "21-11-2026:10:00").unwrap() == text, !doc.yaml.contains_key("last_modified"));
        }

        #[test]
        fn a_changed_key_changes_only_its_own_lines(
            note in note(),
            pick in any::<prop::sample::Index>(),
            value in "[A-Za-z0-9 :#'\"-]{0,12}",
            list in any::<bool>(),
        ) {
            prop_assume!(!note.entries.is_empty());
            let at = pick.index(note.entries.len());
            let key = note.entries[at].key.clone();
            let (before, entry, after) = note.parts(at);
            let text = format!("{before}{entry}{after}");
            let change = if list {
                Change::list(&key, &[value.clone(), "b".into()])
            } else {
                Change::text(&key, value.clone())
            };
            let out = edit(&text, std::slice::from_ref(&change)).unwrap();
            let mut expected = parse(&text).unwrap().yaml;
            if let Change::Set(k, v) = &change {
                expected.insert(k.as_str().into(), v.clone());
            }
            let back = parse(&out).unwrap();
            prop_assert_eq!(&back.yaml, &expected);
            prop_assert!(out.starts_with(&before), "{:?} → {:?}", text, out);
            prop_assert!(out.ends_with(&after), "{:?} → {:?}", text, out);
            let _ = entry;
        }

        #[test]
        fn a_new_key_is_only_inserted(note in note(), value in "[a-z]{1,8}") {
            let text = note.text();
            let out = edit(&text, &[Change::text("fresh_key", value.clone())]).unwrap();
            let same = (0..=text.len()).any(|at| {
                text.is_char_boundary(at)
                    && out.starts_with(&text[..at])
                    && out.ends_with(&text[at..])
                    && out.len() > text.len()
            });
            prop_assert!(same, "{:?} → {:?}", text, out);
            let back = parse(&out).unwrap();
            prop_assert_eq!(back.yaml.get("fresh_key"), Some(&Value::from(value)));
        }
    }
}
