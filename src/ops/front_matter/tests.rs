//! Front matter read, checked and written back: the spec's fields, bounds and key order.

use super::*;

#[test]
fn parses_and_reads_fields() {
    let text = "---\ntitle: Hello\ndate: 01-02-2024\nlast_modified: 01-02-2024:10:30\ntags:\n- a\n- b\n---\n\n# Hi\n";
    let doc = parse(text).unwrap();
    assert_eq!(
        doc.fields(),
        FrontMatter {
            title: "Hello".into(),
            date: "01-02-2024".into(),
            last_modified: "01-02-2024:10:30".into(),
            tags: vec!["a".into(), "b".into()],
            aliases: vec![],
        }
    );
    assert_eq!(doc.body, "# Hi\n");
    assert!(doc.blank_line);
    assert_eq!(doc.emit().unwrap(), text);
}

#[test]
fn unknown_keys_keep_their_order() {
    let text = "---\nzeta: 1\ntitle: T\nauthor: Ann\nlast_modified: old\nextra:\n  nested: true\n---\nbody";
    let out = edit(text, &[Change::text("last_modified", "new")]).unwrap();
    assert_eq!(
        out,
        "---\nzeta: 1\ntitle: T\nauthor: Ann\nlast_modified: new\nextra:\n  nested: true\n---\nbody"
    );
}

#[test]
fn last_modified_is_inserted_after_date() {
    let out = edit(
        "---\ntitle: T\ndate: d\nx: 1\n---\nb",
        &[Change::text("last_modified", "now")],
    );
    assert_eq!(
        out.unwrap(),
        "---\ntitle: T\ndate: d\nlast_modified: now\nx: 1\n---\nb"
    );
}

#[test]
fn lenient_reading() {
    let doc = parse("---\ntitle: 2024\ntags: solo\n---\n").unwrap();
    let f = doc.fields();
    assert_eq!(f.title, "2024");
    assert_eq!(f.tags, ["solo"]);
    assert_eq!(f.date, "");
    let doc = parse("---\n---\nbody").unwrap();
    assert_eq!(doc.fields(), FrontMatter::default());
    assert_eq!(doc.body, "body");
}

#[test]
fn broken_front_matter_does_not_parse() {
    assert!(parse("no front matter").is_none());
    assert!(parse("---\ntitle: [unclosed\n---\nbody").is_none());
    assert!(parse("---\ntitle: never closed\n").is_none());
    assert!(parse("---\n- a list\n---\n").is_none());
    assert!(parse("----\ntitle: x\n---\n").is_none());
}

#[test]
fn crlf_notes_round_trip() {
    let text = "---\r\ntitle: T\r\n---\r\n\r\nbody\r\n";
    let doc = parse(text).unwrap();
    assert_eq!(doc.fields().title, "T");
    assert_eq!(doc.body, "body\r\n");
    assert_eq!(doc.emit().unwrap(), text);
}

#[test]
fn new_documents_use_spec_key_order() {
    let fields = FrontMatter {
        title: "My Note".into(),
        date: "21-11-2026".into(),
        last_modified: "21-11-2026:09:05".into(),
        tags: vec![],
        aliases: vec![],
    };
    let doc = Document::new(&fields, "text".into());
    assert_eq!(
        doc.emit().unwrap(),
        "---\ntitle: My Note\ndate: 21-11-2026\nlast_modified: 21-11-2026:09:05\ntags: []\n---\n\ntext"
    );
    assert_eq!(parse(&doc.emit().unwrap()).unwrap(), doc);
}

fn note(yaml: &str) -> String {
    format!("---\n{yaml}---\nbody\n")
}

#[test]
fn deep_large_and_exploding_front_matter_is_refused_and_read_as_unreadable() {
    let deep = note(&format!(
        "x: {}1{}\n",
        "[".repeat(40_000),
        "]".repeat(40_000)
    ));
    assert!(parse(&deep).is_none());
    assert!(matches!(check(&deep), Err(Error::FrontMatterTooDeep(64))));

    let large = note(&format!("x: \"{}\"\n", "a".repeat(MAX_BYTES)));
    assert!(parse(&large).is_none());
    assert!(matches!(check(&large), Err(Error::FrontMatterTooLarge(_))));

    let laughs = note(&billion_laughs());
    let started = std::time::Instant::now();
    assert!(parse(&laughs).is_none());
    assert!(matches!(check(&laughs), Err(Error::FrontMatterAliases(_))));
    assert!(started.elapsed() < std::time::Duration::from_secs(2));

    // Aliases used as YAML intends are fine.
    let shared = note("base: &b {x: 1}\nother: *b\ntags: &t [a]\nmore: *t\n");
    assert!(check(&shared).is_ok());
    assert_eq!(parse(&shared).unwrap().yaml.len(), 4);
    // No front matter, or one never closed: nothing to refuse.
    assert!(check("just text").is_ok());
    assert!(check(&format!("---\nx: {}", "[".repeat(1000))).is_ok());
}

/// Nine levels of ten aliases each: a billion values once expanded.
pub(crate) fn billion_laughs() -> String {
    let mut yaml = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for level in 1..=9 {
        let prev = format!("*a{}", level - 1);
        let items = [prev.as_str(); 10].join(", ");
        yaml.push_str(&format!("a{level}: &a{level} [{items}]\n"));
    }
    yaml
}

mod properties {
    use super::super::*;
    use proptest::prelude::*;

    /// How one level of a generated front matter nests its child.
    #[derive(Debug, Clone, Copy)]
    enum Style {
        BlockMap,
        BlockSeq,
        FlowSeq,
        FlowMap,
    }

    /// Decoys: brackets, quotes and `#` that are text, not structure.
    const FLOW_LEAVES: &[&str] = &["\"a [[ {{ \\\" ]]\"", "'b [[ '' {{'", "word", "'# [['"];
    const BLOCK_LEAVES: &[&str] = &[
        "\"a [[ {{ \\\" ]]\"",
        "'b [[ '' {{'",
        "plain [text] {with} brackets",
        "x # [[[[ a comment",
    ];

    fn flow(chain: &[Style], leaf: usize) -> String {
        match chain.first() {
            None => FLOW_LEAVES[leaf % FLOW_LEAVES.len()].to_string(),
            Some(Style::FlowMap) => format!("{{a: {}, 'b': '{{'}}", flow(&chain[1..], leaf)),
            Some(_) => format!("[{}, \"]\"]", flow(&chain[1..], leaf)),
        }
    }

    /// The text after `key:` (or `-`) at column `indent`, for the chain of styles.
    fn block(chain: &[Style], leaf: usize, indent: usize) -> String {
        let pad = " ".repeat(indent + 2);
        match chain.first() {
            None if leaf % 5 == 4 => format!(" |\n{pad}literal [[[ {{{{ '\"\n{pad}  ]]\n"),
            None => format!(" {}\n", BLOCK_LEAVES[leaf % BLOCK_LEAVES.len()]),
            Some(Style::BlockMap) => format!(
                "\n{pad}k:{}{pad}other: 'x[['  # [[\n",
                block(&chain[1..], leaf, indent + 2)
            ),
            Some(Style::BlockSeq) => format!(
                "\n{pad}-{}{pad}- \"[[\"\n",
                block(&chain[1..], leaf, indent + 2)
            ),
            Some(_) => format!(" {}\n", flow(chain, leaf)),
        }
    }

    /// Block levels first, then flow levels (block collections cannot be inside flow).
    fn chain() -> impl Strategy<Value = Vec<Style>> {
        (0..40usize, 0..60usize, any::<u64>()).prop_map(|(blocks, flows, seed)| {
            let mut out = Vec::new();
            for i in 0..blocks {
                out.push(if (seed >> (i % 64)) & 1 == 0 {
                    Style::BlockMap
                } else {
                    Style::BlockSeq
                });
            }
            for i in 0..flows {
                out.push(if (seed >> ((i + 7) % 64)) & 1 == 0 {
                    Style::FlowSeq
                } else {
                    Style::FlowMap
                });
            }
            out
        })
    }

    fn value_depth(value: &Value) -> usize {
        match value {
            Value::Sequence(items) => 1 + items.iter().map(value_depth).max().unwrap_or(0),
            Value::Mapping(map) => 1 + map.values().map(value_depth).max().unwrap_or(0),
            Value::Tagged(tagged) => value_depth(&tagged.value),
            _ => 0,
        }
    }

    proptest! {
        #[test]
        fn nesting_up_to_the_limit_parses_and_beyond_is_refused(
            chain in chain(),
            leaf in 0..20usize,
        ) {
            let yaml = format!(
                "title: T\n# a comment [[[[\nx:{}after: \"done\"\n",
                block(&chain, leaf, 0)
            );
            let depth = 1 + chain.len();
            let shape = scan::shape(&yaml, MAX_DEPTH);
            prop_assert_eq!(shape.depth, depth.min(MAX_DEPTH + 1), "{}", yaml);
            prop_assert!(shape.steps <= 4 * yaml.len() + 4);
            let text = format!("---\n{yaml}---\nbody");
            if depth <= MAX_DEPTH {
                let doc = parse(&text);
                prop_assert!(doc.is_some(), "{}", yaml);
                let doc = doc.unwrap();
                prop_assert_eq!(value_depth(&Value::Mapping(doc.yaml.clone())), depth);
                prop_assert_eq!(doc.fields().title, "T");
                prop_assert!(check(&text).is_ok());
            } else {
                prop_assert!(parse(&text).is_none());
                prop_assert!(matches!(check(&text), Err(Error::FrontMatterTooDeep(64))));
            }
        }

        #[test]
        fn the_scan_is_linear(lines in prop::collection::vec(
            prop_oneof![
                Just("key: value [x] # c\n"),
                Just("- 'q''s [['\n"),
                Just("  nested: {a: [1, 2]}\n"),
                Just("text: |\n  [[[[\n"),
                Just("x: \"multi\n  line [[\"\n"),
                Just("[[[[[[[[\n"),
                Just("]]]]]]]]\n"),
                Just("*alias &anchor !tag\n"),
            ],
            0..400,
        )) {
            let yaml: String = lines.concat();
            let shape = scan::shape(&yaml, MAX_DEPTH);
            prop_assert!(shape.steps <= 4 * yaml.len() + 4, "{:?} for {} bytes", shape, yaml.len());
        }
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            any::<String>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<bool>().prop_map(Value::from),
            Just(Value::Null),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop::collection::vec(inner, 0..4).prop_map(Value::Sequence)
        })
    }

    fn mapping() -> impl Strategy<Value = Mapping> {
        prop::collection::vec(("[a-zA-Z_][a-zA-Z0-9_ -]{0,10}", value()), 0..8).prop_map(|pairs| {
            let mut map = Mapping::new();
            for (k, v) in pairs {
                map.insert(Value::from(k), v);
            }
            map
        })
    }

    proptest! {
        #[test]
        fn emit_then_parse_keeps_every_key_and_the_body(
            yaml in mapping(),
            body in any::<String>(),
        ) {
            let doc = Document { yaml, body, blank_line: true, newline: "\n" };
            let text = doc.emit().unwrap();
            let back = parse(&text).expect("emitted text parses");
            prop_assert_eq!(&back.yaml, &doc.yaml);
            prop_assert_eq!(&back.body, &doc.body);
            prop_assert_eq!(back.emit().unwrap(), text);
        }

        #[test]
        fn last_modified_update_keeps_the_rest(yaml in mapping(), body in any::<String>()) {
            let doc = Document { yaml, body, blank_line: true, newline: "\n" };
            let before: Vec<Value> = doc.yaml.keys().filter(|k| k.as_str() != Some("last_modified")).cloned().collect();
            let text = edit(&doc.emit().unwrap(), &[Change::text("last_modified", "21-11-2026:10:00")]).unwrap();
            let back = parse(&text).unwrap();
            let after: Vec<Value> = back.yaml.keys().filter(|k| k.as_str() != Some("last_modified")).cloned().collect();
            prop_assert_eq!(before, after);
            prop_assert_eq!(back.fields().last_modified, "21-11-2026:10:00");
            prop_assert_eq!(back.body, doc.body);
        }
    }
}

#[test]
fn aliases_are_a_list_or_one_string() {
    let aliases = |text: &str| parse_fields(text).unwrap().0.aliases;
    assert_eq!(
        aliases("---\naliases:\n  - Start here\n  - \" First \"\n---\n"),
        ["Start here", "First"]
    );
    assert_eq!(aliases("---\naliases: Library\n---\n"), ["Library"]);
    assert_eq!(aliases("---\nalias: [One, 2]\n---\n"), ["One", "2"]);
    assert!(aliases("---\naliases: []\ntitle: T\n---\n").is_empty());
}
