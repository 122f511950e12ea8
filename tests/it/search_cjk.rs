//! Chinese, Japanese and Korean, written without spaces between words: any word of two
//! characters or more inside a run is found, a run typed whole finds only the notes
//! that have it in a row, and the snippet marks what was asked for.

use std::time::Duration;

use crate::support::{Workspace, eventually, json, note, search_paths};

const WAIT: Duration = Duration::from_secs(30);

#[test]
fn a_word_inside_a_run_of_cjk_characters_is_found() {
    let ws = Workspace::new();
    ws.write(
        "graph.md",
        &note("Graph", &[], "关系图谱是笔记之间的链接。\n"),
    );
    ws.write(
        "knowledge.md",
        &note("Knowledge", &[], "知识图谱和关系数据库\n"),
    );
    ws.write(
        "apart.md",
        &note("Apart", &[], "图表之间没有关系，谱子在这里\n"),
    );
    ws.write("ja.md", &note("Ja", &[], "日本語のテキストを検索する\n"));
    ws.write("ko.md", &note("Ko", &[], "한국어 문서를 검색합니다\n"));
    ws.write("one.md", &note("One", &[], "图 alone\n"));
    let server = ws.serve();
    assert!(eventually(WAIT, || search_paths(&server, "图谱").len() == 2));
    assert_eq!(search_paths(&server, "图谱").len(), 2);
    let mut both = search_paths(&server, "关系 图谱");
    both.sort();
    assert_eq!(both, ["graph.md", "knowledge.md"]);
    // Typed whole, a run finds only the notes with it in a row.
    assert_eq!(search_paths(&server, "关系图谱"), ["graph.md"]);
    assert_eq!(search_paths(&server, "\"知识图谱\""), ["knowledge.md"]);
    assert_eq!(search_paths(&server, "テキスト"), ["ja.md"]);
    assert_eq!(search_paths(&server, "검색"), ["ko.md"]);
    assert_eq!(search_paths(&server, "图"), ["one.md"]);

    let (status, body) = json(server.get("/api/v1/search?q=%E5%9B%BE%E8%B0%B1"));
    assert_eq!(status, 200, "{body}");
    let snippets: Vec<&str> = body["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["snippet"].as_str())
        .collect();
    assert!(snippets.iter().any(|s| s.contains("⟦图谱⟧")), "{body}");
}
