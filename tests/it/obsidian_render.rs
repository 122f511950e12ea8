//! Obsidian-flavoured Markdown through the real binary: callouts, math as MathML, block
//! ids that `#^id` links land on, and task lists, on the web note page, in the editor's
//! preview and on the public page of a published note; search snippets show the text a
//! reader sees.

use std::time::Duration;

use crate::support::{Workspace, body_of_type, eventually, json, note};

const BODY: &str = "> [!tip] Where to begin\n> Read the first steps.\n\n\
                    > [!warning]- Folded away\n> Hidden until opened.\n\n\
                    Energy is $E = mc^2$, and lines:\n\n$$\na \\\\ b\n$$\n\n\
                    - [ ] water the plants\n- [x] write the welcome note\n\n\
                    The garden grows slowly. ^garden\n\n\
                    Back to [[#^garden|the garden]]. ![[pic.png]]\n";

/// The parts every rendering of `BODY` has, exactly.
const RENDERED: &[&str] = &[
    "<div class=\"callout callout-tip\">\n<div class=\"callout-title\">Where to begin</div>\n\
     <div class=\"callout-content\">\n<p>Read the first steps.</p>\n</div>\n</div>",
    "<details class=\"callout callout-warning\">\n<summary class=\"callout-title\">Folded away</summary>",
    "<math display=\"inline\"><mi>E</mi><mo>=</mo><mi>m</mi><msup><mi>c</mi><mn>2</mn></msup></math>",
    "<math display=\"block\"><mtable><mtr><mtd><mi>a</mi></mtd></mtr><mtr><mtd><mi>b</mi></mtd></mtr></mtable></math>",
    "<li><input disabled=\"\" type=\"checkbox\"/>\nwater the plants</li>",
    "<li><input disabled=\"\" type=\"checkbox\" checked=\"\"/>\nwrite the welcome note</li>",
    "<p id=\"^garden\">The garden grows slowly.</p>",
];

fn assert_rendered(page: &str) {
    for part in RENDERED {
        assert!(page.contains(part), "{part} missing: {page}");
    }
    for raw in [
        "[!tip]",
        "[!warning]",
        "^garden<",
        "slowly. ^garden",
        "$E",
        "$$",
    ] {
        assert!(!page.contains(raw), "{raw} shown: {page}");
    }
}

#[test]
fn callouts_math_block_ids_and_task_lists_render_on_web_and_public_pages() {
    let ws = Workspace::new();
    ws.write("obs.md", &note("Obs", &[], BODY));
    ws.write(
        "other.md",
        &note(
            "Other",
            &[],
            "See [[obs#^garden]] and [[obs#^GARDEN|again]].\n",
        ),
    );
    let server = ws.serve();

    let (status, page) = body_of_type(server.get("/note/obs.md"), "text/html; charset=utf-8");
    assert_eq!(status, 200);
    assert_rendered(&page);
    // A link within the page lands on the block.
    assert!(page.contains("href=\"#^garden\">the garden</a>"), "{page}");

    // The editor's preview renders the same.
    let form = serde_urlencoded::to_string([("title", "Obs"), ("body", BODY), ("path", "obs.md")])
        .unwrap();
    let preview = server.post_form("/preview", &form);
    assert_eq!(preview.status(), 200);
    assert_rendered(&preview.text().unwrap());

    let (status, other) = body_of_type(server.get("/note/other.md"), "text/html; charset=utf-8");
    assert_eq!(status, 200);
    assert!(
        other.contains("href=\"/note/obs.md#^garden\">obs &gt; ^garden</a>"),
        "{other}"
    );
    assert!(
        other.contains("href=\"/note/obs.md#^garden\">again</a>"),
        "{other}"
    );

    for path in ["obs.md", "other.md"] {
        let (status, body) = server.toggle(path);
        assert_eq!(status, 200, "{body}");
    }
    let (status, public) = body_of_type(server.get("/public/obs.html"), "text/html; charset=utf-8");
    assert_eq!(status, 200);
    assert_rendered(&public);
    let (status, other) =
        body_of_type(server.get("/public/other.html"), "text/html; charset=utf-8");
    assert_eq!(status, 200);
    assert!(other.contains("href=\"obs.html#^garden\""), "{other}");

    // The snippet of a match in the callout has its title, no marker, id or file name.
    let snippet = |query: &str| {
        let (status, body) = json(server.get(&format!("/api/v1/search?q={query}")));
        assert_eq!(status, 200, "{body}");
        body["results"][0]["snippet"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    assert!(eventually(Duration::from_secs(20), || snippet("steps")
        .contains("first ⟦steps⟧")));
    let steps = snippet("steps");
    assert!(steps.contains("Where to begin"), "{steps}");
    for raw in ["[!tip]", "[!warning]", "^garden", "pic.png"] {
        assert!(!steps.contains(raw), "{raw} in snippet: {steps}");
    }
    let garden = snippet("slowly");
    assert!(garden.contains("grows ⟦slowly⟧."), "{garden}");
    assert!(!garden.contains("^garden"), "{garden}");
}
