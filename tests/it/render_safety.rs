//! A note written to attack its readers, seen where readers see it: the public page, the
//! web note page and the editor's preview. Each is parsed as a browser would parse it; no
//! event handler, `style`, author-chosen attribute or scripting URL may survive, and the
//! public page carries its Content Security Policy.

use crate::support::{Workspace, json, note};

/// The attacks, one per line of the note body.
const HOSTILE: &str = "# Hi {autofocus onfocus=alert(document.domain)}\n\n\
## Styled {#evil .pwn style=color:red tabindex=1}\n\n\
![x](x.png \"t\") <img src=x onerror=alert(1)> ![y](javascript:alert(2))\n\n\
[click](javascript:alert(3)) [too](<java\tscript:alert(4)>) [ent](&#106;avascript:alert(5)) \
[data](data:text/html,<script>alert(6)</script>) ![svg](data:image/svg+xml,<svg/onload=alert(7)>)\n\n\
[ref] and <javascript:alert(8)>\n\n[ref]: VBScript:alert(9)\n\n\
| left | middle | right |\n|:--|:-:|--:|\n| <b style=\"color:red\">a</b> | b | c |\n\n\
Footnote[^\"><img src=x onerror=alert(10)>].\n\n[^\"><img src=x onerror=alert(10)>]: Said.\n\n\
```\"><svg onload=alert(11)>\ncode\n```\n\n\
<div onclick=\"alert(12)\" style=\"position:fixed\">raw</div>\n\n\
- [x] done <a href=\"javascript:alert(13)\">raw link</a>\n\n\
[[javascript:alert(14)]] [[x\" onclick=\"alert(15)]] ![[y\" onerror=\"alert(16)]] \
[[Attack#\"><b onclick=alert(17)>]] ![[javascript:alert(18)|z]]\n";

/// The public policy every generated page carries in `<meta>` (the spec of item 4).
const PUBLIC_CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self' data: https:; base-uri 'none'; form-action 'none'";

/// Every way a parsed page breaks the promise: event handlers, `style`, the attributes
/// and values the note wrote, scripting URLs; and inside the rendered note (`scope`, a
/// CSS selector, or the whole document) any attribute beyond the renderer's own.
fn violations(html: &str, scope: &str) -> Vec<String> {
    let doc = scraper::Html::parse_document(html);
    let all = scraper::Selector::parse("*").unwrap();
    let mut found = Vec::new();
    for element in doc.select(&all) {
        let el = element.value();
        let tag = el.name();
        for (name, value) in el.attrs() {
            let lower = value.to_ascii_lowercase();
            if name.starts_with("on")
                || name == "style"
                || name == "autofocus"
                || name == "tabindex"
            {
                found.push(format!("{name}={value:?} on <{tag}>"));
            }
            if ["evil", "pwn"]
                .iter()
                .any(|bad| value.split(' ').any(|v| v == *bad))
            {
                found.push(format!("author's value {name}={value:?} on <{tag}>"));
            }
            if matches!(name, "href" | "src" | "action" | "formaction") && !url_allowed(value, tag)
            {
                found.push(format!("URL {name}={value:?} on <{tag}>"));
            }
            // Text the page shows (an image's alt, a title, the page's description) may
            // quote the note; no other attribute may.
            let shown = matches!((tag, name), (_, "alt" | "title") | ("meta", "content"));
            if lower.contains("alert(") && !shown {
                found.push(format!("payload in {name}={value:?} on <{tag}>"));
            }
        }
    }
    let scope = scraper::Selector::parse(scope).unwrap();
    for root in doc.select(&scope) {
        for element in root
            .descendants()
            .skip(1)
            .filter_map(scraper::ElementRef::wrap)
        {
            let el = element.value();
            if matches!(
                el.name(),
                "script"
                    | "style"
                    | "iframe"
                    | "object"
                    | "embed"
                    | "svg"
                    | "math"
                    | "base"
                    | "form"
            ) {
                found.push(format!("tag <{}> in the note", el.name()));
            }
            for (name, value) in el.attrs() {
                let ours = match (el.name(), name) {
                    ("h1" | "h2" | "h3" | "h4" | "h5" | "h6", "id") => value
                        .chars()
                        .all(|c| c.is_alphanumeric() || c == '-' || c == '_'),
                    ("div", "id") => value.starts_with("fn-"),
                    ("a", "href" | "title") | ("img", "src" | "alt" | "title") => true,
                    ("th" | "td", "class") => value.starts_with("align-"),
                    ("code", "class") => value.starts_with("language-"),
                    ("div" | "sup", "class") => value.starts_with("footnote-"),
                    ("a", "class") => value == "missing" || value == "embed",
                    ("span", "class") => value == "embed-title",
                    ("input", "type" | "disabled" | "checked") => true,
                    _ => false,
                };
                if !ours {
                    found.push(format!("{name}={value:?} on <{}> in the note", el.name()));
                }
            }
        }
    }
    found
}

/// Relative, `#…`, or a navigating scheme; a raster `data:` image on `<img>` only.
fn url_allowed(value: &str, tag: &str) -> bool {
    let cleaned: String = value
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect::<String>()
        .to_ascii_lowercase();
    let Some((scheme, rest)) = cleaned.split_once(':') else {
        return true;
    };
    let is_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    !is_scheme
        || ["http", "https", "mailto", "tel", "ftp"].contains(&scheme)
        || (tag == "img" && scheme == "data" && rest.starts_with("image/png"))
}

/// The attributes of the elements `selector` picks, in document order.
fn attrs_of(html: &str, selector: &str) -> Vec<Vec<(String, String)>> {
    let doc = scraper::Html::parse_document(html);
    let selector = scraper::Selector::parse(selector).unwrap();
    doc.select(&selector)
        .map(|e| {
            e.value()
                .attrs()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

#[test]
fn hostile_notes_render_without_script_everywhere() {
    let ws = Workspace::new();
    let server = ws.serve();
    let text = note("Attack", &[], HOSTILE);
    let (status, body) = json(server.put_markdown("/api/v1/notes/dir/attack.md", &text));
    assert!(status == 200 || status == 201, "{status} {body}");
    let (status, body) = server.toggle("dir/attack.md");
    assert_eq!(
        (status, body["status"].as_str()),
        (200, Some("public")),
        "{body}"
    );

    let public = server.get("/public/attack.html");
    assert_eq!(public.status(), 200);
    let public = public.text().unwrap();
    let web = server.get("/note/dir/attack.md");
    assert_eq!(web.status(), 200);
    let web = web.text().unwrap();
    let form = serde_urlencoded::to_string([("title", "Attack"), ("body", HOSTILE)]).unwrap();
    let preview = server.post_form("/preview", &form);
    assert_eq!(preview.status(), 200);
    let preview = format!(
        "<!DOCTYPE html><html><body><div class=\"content\">{}</div></body></html>",
        preview.text().unwrap()
    );

    for (name, page) in [("public", &public), ("web", &web), ("preview", &preview)] {
        // The note did reach the page: its headings and table are there, made safe.
        let h1 = attrs_of(page, "div.content h1");
        assert_eq!(
            h1,
            [[(
                "id".to_string(),
                "hi-autofocus-onfocus-alert-document-domain".to_string()
            )]],
            "{name}: {page}"
        );
        assert_eq!(
            attrs_of(page, "div.content td, div.content th")
                .iter()
                .filter(|a| !a.is_empty())
                .count(),
            6,
            "{name}: aligned cells keep their alignment as a class: {page}"
        );
        assert!(
            attrs_of(page, "div.content div[id^=\"fn-\"]").len() == 1,
            "{name}: {page}"
        );
        let found = violations(page, "div.content");
        assert!(found.is_empty(), "{name}: {found:#?}\n{page}");
    }

    // The page file itself carries the policy, first in <head> after the charset.
    let file = ws.public_text("attack.html");
    assert_eq!(file, public);
    let head = file.split_once("<head>\n").map(|(_, rest)| rest).unwrap();
    assert!(
        head.starts_with(&format!(
            "<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"{PUBLIC_CSP}\">\n"
        )),
        "{file}"
    );
    let index = ws.public_text("index.html");
    assert!(
        index.contains(&format!(
            "<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"{PUBLIC_CSP}\">\n"
        )),
        "{index}"
    );
    let policies = attrs_of(
        &index,
        "head > meta[http-equiv=\"Content-Security-Policy\"]",
    );
    assert_eq!(policies.len(), 1, "{index}");
    assert!(violations(&index, "div.content").is_empty(), "{index}");

    // The feed carries titles and text summaries only, never the note's HTML.
    let feed = ws.public_text("feed.xml");
    assert!(
        !feed.contains("<img") && !feed.contains("&lt;img"),
        "{feed}"
    );
}

#[test]
fn the_checker_catches_each_attack() {
    // Each line is what the renderer wrote before: the checker must refuse all of them.
    for bad in [
        r#"<div class="content"><h1 id="hi" autofocus="" onfocus="alert(document.domain)">Hi</h1></div>"#,
        r#"<div class="content"><table><tr><td style="text-align: center">a</td></tr></table></div>"#,
        r#"<div class="content"><h2 id="evil" class="pwn">x</h2></div>"#,
        r#"<div class="content"><a href="JaVa&#9;Script:alert(1)">x</a></div>"#,
        r#"<div class="content"><img src="data:image/svg+xml,x"></div>"#,
        r#"<div class="content"><p title="x">y</p></div>"#,
        r#"<div class="content"><svg><a href="x">y</a></svg></div>"#,
    ] {
        assert!(!violations(bad, "div.content").is_empty(), "{bad}");
    }
    assert!(
        violations(
            r##"<div class="content"><h2 id="a-b">x</h2><a href="#fn-1">1</a><img src="data:image/png;base64,AA" alt="a"></div>"##,
            "div.content"
        )
        .is_empty()
    );
}
