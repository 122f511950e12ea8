//! Hostile Markdown, generated: every construct the renderer knows, fed the payloads
//! an attacker would try.

use proptest::prelude::*;
use proptest::sample::select;

const ATTRS: &[&str] = &[
    "#evil",
    ".pwn",
    "autofocus",
    "onfocus=alert(document.domain)",
    "onmouseover=\"alert(1)\"",
    "style=color:red",
    "id=x",
    "class=y",
    "tabindex=1",
    "#a.b",
    "data-x=1",
    "href=javascript:alert(1)",
    "{",
    "}",
];

const SCHEMES: &[&str] = &[
    "javascript:",
    "JaVaScRiPt:",
    "vbscript:",
    "VBScript:",
    "data:",
    "data:text/html,",
    "data:image/svg+xml,",
    "data:image/png;base64,",
    "DATA:image/gif,",
    "data:image/pngx,",
    "data:image/jpeg",
    "&#106;avascript:",
    "&#x6A;avascript:",
    "&#0000106avascript:",
    "javascript&#58;",
    "javascript&colon;",
    "%6Aavascript:",
    "java\tscript:",
    "java&#9;script:",
    "java&Tab;script:",
    "java&#10;script:",
    "\u{1}javascript:",
    "\u{0}javascript:",
    "\u{7f}javascript:",
    "  javascript:",
    "\\javascript:",
    "https:",
    "http://ok.example/",
    "mailto:",
    "tel:",
    "ftp:",
    "//evil.example/",
    "",
    "#",
    "./",
    "file:",
    "blob:",
    "about:",
    "ws:",
    "x-y.z+1:",
];

const PAYLOADS: &[&str] = &[
    "alert(1)",
    "alert(document.domain)",
    "%0Aalert(1)",
    "x",
    ",<script>alert(1)</script>",
    "AAAA",
    "\"onmouseover=\"alert(1)",
];

const RAW_HTML: &[&str] = &[
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<a href=\"javascript:alert(1)\">x</a>",
    "<svg/onload=alert(1)>",
    "<iframe src=javascript:alert(1)>",
    "<style>*{color:red}</style>",
    "<div onclick=\"x\">\n\nhi\n\n</div>",
    "<!-- c -->",
    "<![CDATA[x]]>",
    "<?php x ?>",
    "<!DOCTYPE html>",
    "<details open ontoggle=alert(1)>",
    "<math><mi xlink:href=\"javascript:x\">",
    "<base href=//evil.example/>",
    "<meta http-equiv=refresh content=\"0;url=javascript:x\">",
    "<form action=javascript:x><button>go</button></form>",
    "<textarea>",
    "<plaintext>",
    "</p>",
    "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
    "<b style=\"color:red\" onclick=alert(1)>",
    "<input autofocus onfocus=alert(1)>",
    "&lt;script&gt;",
    "&#x3C;img src=x onerror=alert(1)&#x3E;",
];

const LABELS: &[&str] = &[
    "1",
    "a b",
    "\"><img src=x onerror=alert(1)>",
    "#top",
    "onmouseover=x",
    "Été",
    "x'y",
    "&amp;",
    "fn-1",
    "A",
    "a",
    "-",
    "_",
    "日本",
    "javascript:alert(1)",
];

const CELLS: &[&str] = &[
    "x",
    "`c`",
    "<b onclick=x>",
    "[l](javascript:alert(1))",
    "**b**",
    "a\\|b",
    "![i](x.png)",
    "",
];

const INFOS: &[&str] = &[
    "",
    "rust",
    "\"><img src=x onerror=alert(1)>",
    "js onload=x",
    "c#",
    "{.class #id}",
    "lang\tx",
    "ŝ",
    "a\"b",
];

const INLINE: &[&str] = &[
    "***a**b*",
    "_a *b_ c*",
    "~~x **y~~ z**",
    "**[l](javascript:x)**",
    "*<i onclick=x>*",
    "`<b onclick=x>`",
    "\\<script>",
    "text",
    "Été",
];

fn url() -> impl Strategy<Value = String> {
    (select(SCHEMES), select(PAYLOADS)).prop_map(|(s, p)| format!("{s}{p}"))
}

fn link() -> impl Strategy<Value = String> {
    (url(), 0..9u8, select(INLINE)).prop_map(|(url, form, text)| match form {
        0 => format!("[{text}]({url})"),
        1 => format!("[{text}](<{url}>)"),
        2 => format!("[{text}]({url} \"ti\\\"tle\")"),
        3 => format!("![{text}]({url})"),
        4 => format!("![{text}](<{url}> 'x')"),
        5 => format!("<{url}>"),
        6 => format!("[{text}][r]\n\n[r]: {url}\n"),
        7 => format!("![r]\n\n[r]: <{url}> \"t\"\n"),
        _ => format!("[{text}]\n\n[{text}]: {url}\n"),
    })
}

fn wikilink() -> impl Strategy<Value = String> {
    (url(), select(INLINE), select(INLINE), 0..5u8).prop_map(
        |(url, text, heading, form)| match form {
            0 => format!("[[{url}]]"),
            1 => format!("[[{url}|{text}]]"),
            2 => format!("[[{url}#{heading}]]"),
            3 => format!("![[{url}]]"),
            _ => format!("![[{url}|{text}]]"),
        },
    )
}

fn heading() -> impl Strategy<Value = String> {
    (
        1..7usize,
        select(INLINE),
        prop::collection::vec(select(ATTRS), 0..5),
        any::<bool>(),
    )
        .prop_map(|(level, text, attrs, setext)| {
            let attrs = format!("{{{}}}", attrs.join(" "));
            if setext {
                format!("{text} {attrs}\n===\n")
            } else {
                format!("{} {text} {attrs}\n", "#".repeat(level))
            }
        })
}

fn table() -> impl Strategy<Value = String> {
    (1..5usize).prop_flat_map(|n| {
        (
            prop::collection::vec(select(CELLS), n),
            prop::collection::vec(select(&["---", ":--", ":-:", "--:", ":---:"][..]), n),
            prop::collection::vec(prop::collection::vec(select(CELLS), n), 0..3),
        )
            .prop_map(|(head, aligns, rows)| {
                let row = |cells: &[&str]| format!("| {} |\n", cells.join(" | "));
                let mut out = row(&head);
                out.push_str(&row(&aligns));
                for r in rows {
                    out.push_str(&row(&r));
                }
                out
            })
    })
}

fn footnote() -> impl Strategy<Value = String> {
    (select(LABELS), select(LABELS), select(INLINE)).prop_map(|(a, b, text)| {
        format!("{text}[^{a}] and[^{b}].\n\n[^{a}]: {text}\n[^{b}]: <b onclick=x>\n")
    })
}

fn code() -> impl Strategy<Value = String> {
    (select(INFOS), select(RAW_HTML), 0..3u8).prop_map(|(info, raw, form)| match form {
        0 => format!("```{info}\n{raw}\n```\n"),
        1 => format!("~~~{info}\n{raw}\n"),
        _ => format!("    {raw}\n"),
    })
}

/// Obsidian's marks: callouts (nested, folded, titled with hostile text), block ids,
/// math with raw HTML and links in it.
fn obsidian() -> impl Strategy<Value = String> {
    (select(INLINE), select(RAW_HTML), select(LABELS), 0..6u8).prop_map(
        |(text, raw, label, form)| match form {
            0 => format!("> [!tip] {text}\n> {raw}\n"),
            1 => format!("> [!{label}]- {raw}\n> > [!x]+\n> > {text}\n"),
            2 => format!("{text} ^{label}\n"),
            3 => format!("$\\text{{{raw}}} {text}$ and $$\\href{{javascript:x}}{{{label}}}$$\n"),
            4 => format!("$$\n\\mathrm{{{raw}}} \\\\ {text}\n$$\n"),
            _ => format!("- {text} ^{label}\n  > [!note]\n  > ==x== ^b\n"),
        },
    )
}

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        obsidian(),
        heading(),
        select(RAW_HTML).prop_map(str::to_string),
        link(),
        wikilink(),
        table(),
        footnote(),
        code(),
        select(INLINE).prop_map(|t| format!("- [x] {t}\n- [ ] {t}\n")),
        select(INLINE).prop_map(str::to_string),
        "[ -~]{0,24}",
    ]
}

/// A note body: pieces joined by block and inline separators.
pub(super) fn markdown() -> impl Strategy<Value = String> {
    let sep = select(&["\n\n", "\n", " ", "", "\n> ", "\n- ", "\n3. ", "\n    "][..]);
    prop::collection::vec((piece(), sep), 1..10).prop_map(|parts| {
        parts
            .into_iter()
            .flat_map(|(piece, sep)| [piece, sep.to_string()])
            .collect()
    })
}
