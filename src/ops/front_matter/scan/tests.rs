//! The scanner's count of nesting and aliases in YAML, and where it stops.

use super::*;

fn depth(yaml: &str) -> usize {
    shape(yaml, 1000).depth
}

#[test]
fn flow_and_block_nesting_both_count() {
    assert_eq!(depth("title: T\n"), 1);
    assert_eq!(depth("x: [[1]]\n"), 3);
    assert_eq!(depth("x: {a: [1, {b: 2}]}\n"), 4);
    assert_eq!(depth("a:\n  b:\n    c: 1\n"), 3);
    assert_eq!(depth("tags:\n- a\n- b\nnext: 1\n"), 2);
    assert_eq!(depth("a:\n- b: 1\n  c:\n  - - x\n"), 5);
    assert_eq!(depth("a:\n  - [x, [y]]\n"), 4);
}

#[test]
fn quotes_comments_and_plain_text_do_not_count() {
    assert_eq!(depth("x: \"[[[[{{\"\n"), 1);
    assert_eq!(depth("x: 'it''s [[[['\n"), 1);
    assert_eq!(depth("x: \"esc \\\" [[[[\"\n"), 1);
    assert_eq!(depth("x: 1 # [[[[\n# [[[[\n"), 1);
    assert_eq!(depth("title: Notes on [x [y [z\n"), 1);
    assert_eq!(depth("x: [\"]]]\", ']]', a] # ]]\n"), 2);
    assert_eq!(depth("x: |\n  [[[[\n  {{{{\ny: 1\n"), 1);
    assert_eq!(depth("x: >-\n    [[[[\n\n    ]]\n"), 1);
}

#[test]
fn what_the_parser_reads_as_structure_is_counted() {
    // A quote inside a continued plain scalar is no quote: the next key nests.
    let deep = format!(
        "k: v\n 'x\ny: {}{}\nz: 'end\n",
        "[".repeat(80),
        "]".repeat(80)
    );
    assert!(depth(&deep) > 64);
    // A block scalar's content is more indented than its mapping (column 2 here).
    let deep = format!("- k: |\n  {}\n", "[".repeat(80));
    assert!(depth(&deep) > 64);
    // A document start marker with content on its line.
    assert!(depth(&format!("--- {}\n", "[".repeat(80))) > 64);
    // Anchors and tags are skipped by their own characters only.
    assert!(depth(&format!("x: &a {}\n", "[".repeat(80))) > 64);
    assert!(depth(&format!("x: !!seq {}\n", "[".repeat(80))) > 64);
    // Inside a flow collection, brackets in plain text are indicators.
    assert!(depth(&format!("x: [a{}\n", "[".repeat(80))) > 64);
}

#[test]
fn aliases_are_counted() {
    assert_eq!(shape("a: &x 1\nb: *x\nc: [*x, 'y*']\n", 64).aliases, 2);
    assert_eq!(shape("a: 2*3 * 4\n", 64).aliases, 0);
}

#[test]
fn the_scan_stops_at_the_limit() {
    let yaml = format!("x: {}", "[".repeat(1_000_000));
    let found = shape(&yaml, 64);
    assert_eq!(found.depth, 65);
    assert!(found.steps <= 4 * yaml.len(), "{found:?}");
}
