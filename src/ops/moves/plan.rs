//! What a move does to the text of a note: each link that leads to the moved note is
//! given a target that leads to its new path, in the link's own style, and the moved
//! note's relative Markdown links are written for its new folder. Pure functions over
//! text and names, so every rule is tested here without a disk.

use std::collections::HashMap;

use crate::ops::NotePath;
use crate::ops::links::{Link, LinkKind, Resolver, fold, links_of, rewrite};
use crate::ops::path;

/// Whether an ASCII character is percent-encoded in a rewritten Markdown link's path:
/// blanks, controls and what would end or change the destination (`(`, `)`, `<`, `>`,
/// `#`, `?`, `%`…). Letters of any script stay as they are, as people write them (which
/// the percent-encoding crate's sets cannot express: they encode every non-ASCII byte).
fn encoded_in_links(c: char) -> bool {
    c.is_ascii_control() || " \"#%()<>?[\\]^`{|}".contains(c)
}

/// A file or folder name as a Markdown link writes it: `a (1).md` → `a%20%281%29.md`.
fn link_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 8);
    for c in name.chars() {
        if c.is_ascii() && encoded_in_links(c) {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Characters a wikilink target cannot hold: they would end it or start its heading.
const NOT_IN_WIKILINK: [char; 6] = ['[', ']', '|', '#', '\n', '\r'];

/// The move `from` → `to`, with what every note is called before and after it.
pub(crate) struct Move {
    pub(crate) from: NotePath,
    pub(crate) to: NotePath,
    before: Resolver,
    after: Resolver,
    /// How many notes have each file name (without `.md`) after the move.
    stems_after: HashMap<String, usize>,
    /// The moved note's title before and after, folded (`links::fold`).
    titles: [String; 2],
}

impl Move {
    /// From the path and title of every note before the move (`from` among them), and
    /// the title the moved note has at `to` (its file name, when it has no title).
    pub(crate) fn new(
        from: NotePath,
        to: NotePath,
        notes: &[(NotePath, String)],
        title_at_to: &str,
    ) -> Self {
        let before = Resolver::new(notes.iter().map(|(p, t)| (p.clone(), t.as_str())));
        let after_notes: Vec<(NotePath, &str)> = notes
            .iter()
            .filter(|(p, _)| *p != from && *p != to)
            .map(|(p, t)| (p.clone(), t.as_str()))
            .chain([(to.clone(), title_at_to)])
            .collect();
        let mut stems_after = HashMap::new();
        for (p, _) in &after_notes {
            *stems_after.entry(p.stem().to_string()).or_insert(0) += 1;
        }
        let title_before = notes
            .iter()
            .find(|(p, _)| *p == from)
            .map_or("", |(_, t)| t.as_str());
        Move {
            titles: [fold(title_before), fold(title_at_to)],
            after: Resolver::new(after_notes),
            before,
            stems_after,
            from,
            to,
        }
    }

    /// Whether the text of a note other than the moved one may have a link the move
    /// changes: a quick look that never misses one (a link to the note names its file
    /// name, or its title, or is percent-encoded), so that only such notes are parsed.
    pub(crate) fn may_change(&self, text: &str) -> bool {
        let any_link = text.contains("[[") || text.contains("](") || text.contains("]:");
        if !any_link {
            return false;
        }
        if text.contains(self.from.stem()) || text.contains(self.to.stem()) || text.contains('%') {
            return true;
        }
        // By title: a wikilink whose text folds to the moved note's title.
        text.split("[[").skip(1).any(|rest| {
            let end = rest.find("]]").unwrap_or(rest.len());
            let inside = &rest[..end];
            let target = inside.split(['|', '#']).next().unwrap_or_default();
            let folded = if target.is_ascii() {
                // What the fold does to ASCII: lowercase, blanks made single spaces.
                let words: Vec<&str> = target.split_whitespace().collect();
                words.join(" ").to_ascii_lowercase()
            } else {
                fold(target)
            };
            self.titles.contains(&folded)
        })
    }

    /// The text of note `path` (its path before the move) with its links retargeted;
    /// `None` when no link changes.
    pub(crate) fn retarget(&self, path: &NotePath, text: &str) -> Option<String> {
        let here_after = if *path == self.from { &self.to } else { path };
        let links = links_of(text);
        let changes: Vec<(&Link, String)> = links
            .iter()
            .filter_map(|link| {
                let target = if link.is_wiki() {
                    self.wiki(link, path, here_after)
                } else {
                    self.markdown(link, path, here_after)
                }?;
                (target != link.target).then_some((link, target))
            })
            .collect();
        (!changes.is_empty()).then(|| rewrite(text, &changes))
    }

    /// A wikilink's new target: none while it leads, after the move, where it led before
    /// (the moved note counting as itself); else the first form, in the link's style, that
    /// does. A link that led nowhere is left as written.
    fn wiki(&self, link: &Link, here: &NotePath, here_after: &NotePath) -> Option<String> {
        if !link.is_note() {
            return None;
        }
        let before = self.before.resolve(here, link)?;
        let wanted = if before == self.from {
            self.to.clone()
        } else {
            before
        };
        if self.after.resolve(here_after, link).as_ref() == Some(&wanted) {
            return None;
        }
        let with_md = link.note.ends_with(".md");
        let full = wanted.as_str();
        let full = if with_md {
            full
        } else {
            full.strip_suffix(".md").unwrap_or(full)
        };
        let name = if with_md {
            wanted.file_name()
        } else {
            wanted.stem()
        };
        // A link written by name stays a name when that name is the note's alone;
        // otherwise, and for a link written as a path, the path from the root.
        let by_name =
            !link.note.contains('/') && self.stems_after.get(wanted.stem()).copied() == Some(1);
        let candidates = by_name.then_some(name).into_iter().chain([full]);
        let heading = link.target.find('#').map_or("", |at| &link.target[at..]);
        candidates
            .filter(|c| !c.contains(NOT_IN_WIKILINK))
            .find(|c| {
                self.after
                    .resolve(here_after, &as_wikilink(link, c))
                    .as_ref()
                    == Some(&wanted)
            })
            .map(|c| format!("{c}{heading}"))
    }

    /// A Markdown link's new target: a link to the moved note leads to its new path; the
    /// moved note's own links are written for its new folder. Relative, its `?query` and
    /// `#fragment` kept.
    fn markdown(&self, link: &Link, here: &NotePath, here_after: &NotePath) -> Option<String> {
        let place = beneath(here.parent(), &link.note)?;
        let wanted = if place == self.from.as_str() {
            self.to.as_str().to_string()
        } else {
            place
        };
        if beneath(here_after.parent(), &link.note).as_deref() == Some(wanted.as_str()) {
            return None;
        }
        let rest = link
            .target
            .find(['?', '#'])
            .map_or("", |at| &link.target[at..]);
        Some(format!("{}{rest}", relative(here_after.parent(), &wanted)))
    }
}

/// `link` as if its note part read `note`, for asking the resolver where that leads.
fn as_wikilink(link: &Link, note: &str) -> Link {
    Link {
        kind: LinkKind::Wiki,
        target: note.to_string(),
        note: note.to_string(),
        heading: None,
        label: None,
        line: link.line,
        dest: 0..0,
        to_note: true,
    }
}

/// The path from the root that `rel`, written in folder `dir`, leads to; `None` when it
/// climbs above the root.
fn beneath(dir: &str, rel: &str) -> Option<String> {
    let joined = match dir {
        "." => rel.to_string(),
        dir => format!("{dir}/{rel}"),
    };
    let cleaned = path::clean(&joined);
    (!cleaned.starts_with("..") && !cleaned.starts_with('/') && !cleaned.is_empty())
        .then_some(cleaned)
}

/// The relative link from folder `dir` to `target` (both from the root), each name
/// percent-encoded where a link needs it: `relative("a/b", "a/c d.md")` is
/// `../c%20d.md`.
fn relative(dir: &str, target: &str) -> String {
    let base: Vec<&str> = match dir {
        "." => Vec::new(),
        dir => dir.split('/').collect(),
    };
    let parts: Vec<&str> = target.split('/').collect();
    let folders = &parts[..parts.len().saturating_sub(1)];
    let common = base.iter().zip(folders).take_while(|(a, b)| a == b).count();
    let ups = std::iter::repeat_n("..".to_string(), base.len() - common);
    let downs = parts[common..].iter().map(|name| link_name(name));
    ups.chain(downs).collect::<Vec<_>>().join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> NotePath {
        NotePath::parse(s).unwrap()
    }

    /// A move among notes named by path (titles: their file names, or `path=Title`).
    fn plan(notes: &[&str], from: &str, to: &str) -> Move {
        let notes: Vec<(NotePath, String)> = notes
            .iter()
            .map(|n| match n.split_once('=') {
                Some((path, title)) => (p(path), title.to_string()),
                None => (p(n), p(n).stem().to_string()),
            })
            .collect();
        let title = notes
            .iter()
            .find(|(path, _)| path.as_str() == from)
            .map(|(_, t)| t.clone())
            .unwrap();
        let title = if title == p(from).stem() {
            p(to).stem().to_string()
        } else {
            title
        };
        Move::new(p(from), p(to), &notes, &title)
    }

    #[test]
    fn relative_paths_between_folders() {
        assert_eq!(relative(".", "a.md"), "a.md");
        assert_eq!(relative("a/b", "a/c d.md"), "../c%20d.md");
        assert_eq!(relative("a", "x/y/z.md"), "../x/y/z.md");
        assert_eq!(relative(".", "x/(1) é#.md"), "x/%281%29%20é%23.md");
        assert_eq!(relative("x/y", "x/y/z.md"), "z.md");
        assert_eq!(beneath("a", "../../b.md"), None);
        assert_eq!(beneath("a/b", "../c.md").as_deref(), Some("a/c.md"));
    }

    #[test]
    fn wikilinks_keep_labels_headings_and_their_style() {
        let m = plan(
            &["a.md", "b.md", "sub/c.md", "deep/other/a.md"],
            "a.md",
            "archive/renamed.md",
        );
        let text = "[[a]] [[a|label]] [[a#Heading|label]] ![[a]] [[a.md]] [[b]] [[#Local]]\n";
        assert_eq!(
            m.retarget(&p("b.md"), text).unwrap(),
            "[[renamed]] [[renamed|label]] [[renamed#Heading|label]] ![[renamed]] \
             [[renamed.md]] [[b]] [[#Local]]\n"
        );
        // Written as a path: stays a path.
        assert_eq!(
            m.retarget(&p("sub/c.md"), "[[/a|x]] [[deep/other/a]]")
                .unwrap(),
            "[[archive/renamed|x]] [[deep/other/a]]"
        );
    }

    #[test]
    fn a_name_shared_with_another_note_becomes_the_path() {
        // `[[a]]` led to the root's `a.md`; at `x/a.md` the name `a` is no longer its own
        // (z/a.md has it too) and by the shortest path would lead elsewhere.
        let m = plan(&["a.md", "n.md", "z/a.md"], "a.md", "x/y/w/a.md");
        assert_eq!(
            m.retarget(&p("n.md"), "see [[a]] and [[a#H]]").unwrap(),
            "see [[x/y/w/a]] and [[x/y/w/a#H]]"
        );
        // A note's own name staying unique needs nothing.
        let m = plan(&["a.md", "n.md"], "a.md", "x/a.md");
        assert_eq!(m.retarget(&p("n.md"), "[[a]]"), None);
    }

    #[test]
    fn titles_that_still_lead_there_are_kept() {
        let m = plan(&["bread.md=Good Bread", "n.md"], "bread.md", "k/loaf.md");
        assert_eq!(
            m.retarget(&p("n.md"), "[[good bread]] [[bread]]").unwrap(),
            "[[good bread]] [[loaf]]"
        );
    }

    #[test]
    fn links_the_new_name_would_take_over_keep_their_note() {
        // `[[b]]` led to `x/b.md` by its name; a note moved to `b.md` would take it by path.
        let m = plan(&["a.md", "x/b.md", "n.md"], "a.md", "b.md");
        assert_eq!(
            m.retarget(&p("n.md"), "[[b]] [[a]]").unwrap(),
            "[[x/b]] [[b]]"
        );
    }

    #[test]
    fn markdown_links_to_the_note_follow_it() {
        let m = plan(&["a.md", "sub/n.md", "top.md"], "a.md", "new place/b.md");
        let text = "[x](../a.md#h) [y](../a.md?v=1#h) [ref][r] [t](../top.md) ![i](../a.md)\n\n\
                    [r]: <../a.md> \"T\"\n";
        assert_eq!(
            m.retarget(&p("sub/n.md"), text).unwrap(),
            "[x](../new%20place/b.md#h) [y](../new%20place/b.md?v=1#h) [ref][r] \
             [t](../top.md) ![i](../new%20place/b.md)\n\n[r]: <../new%20place/b.md> \"T\"\n"
        );
        assert_eq!(
            m.retarget(&p("top.md"), "[a](a.md) [s](sub/n.md)").unwrap(),
            "[a](new%20place/b.md) [s](sub/n.md)"
        );
    }

    #[test]
    fn the_moved_notes_own_links_follow_its_folder() {
        let m = plan(&["a/n.md", "a/sib.md", "top.md"], "a/n.md", "b/c/n.md");
        let text = "[s](sib.md) [t](../top.md#x) ![img](pics/p%201.png) [me](n.md) \
                    [[sib]] [out](../../x.md) [gone](missing.md)\n";
        assert_eq!(
            m.retarget(&p("a/n.md"), text).unwrap(),
            "[s](../../a/sib.md) [t](../../top.md#x) ![img](../../a/pics/p%201.png) \
             [me](n.md) [[sib]] [out](../../x.md) [gone](../../a/missing.md)\n"
        );
        // Within its folder, only a rename: nothing to change but links to itself.
        let m = plan(&["a/n.md", "a/sib.md"], "a/n.md", "a/m.md");
        assert_eq!(m.retarget(&p("a/n.md"), "[s](sib.md) [[sib]]"), None);
        assert_eq!(
            m.retarget(&p("a/n.md"), "[me](n.md)").unwrap(),
            "[me](m.md)"
        );
    }

    #[test]
    fn the_quick_look_finds_every_note_a_move_changes() {
        let m = plan(
            &["zeta.md=Été à Paris", "n.md", "x/q.md"],
            "zeta.md",
            "k/omega.md",
        );
        let texts = [
            ("[[zeta]]", true),
            ("[x](zeta.md)", true),
            ("[x](z%65ta.md)", true),
            ("[[ETE  A paris|t]]", true),
            ("[[Été à Paris#H]]", true),
            ("[[omega]]", true),
            ("[[q]] and [x](x/q.md)", false),
            ("zeta, but no link", false),
        ];
        for (text, may) in texts {
            assert_eq!(m.may_change(text), may, "{text}");
            if !may {
                assert_eq!(m.retarget(&p("n.md"), text), None, "{text}");
            }
        }
        assert!(m.retarget(&p("n.md"), "[x](z%65ta.md)").is_some());
    }

    #[test]
    fn code_and_other_notes_links_are_untouched() {
        let m = plan(&["a.md", "b.md", "n.md"], "a.md", "z.md");
        let text = "`[[a]]`\n\n```\n[x](a.md)\n```\n[[b]] [[missing]] [w](https://x/a.md)\n";
        assert_eq!(m.retarget(&p("n.md"), text), None);
    }
}
