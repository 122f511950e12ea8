//! What a move does to the text of a note: each link that leads to the moved note (by
//! any rule of `links::resolve`) is given a target that leads to its new path, in the
//! link's own style; a link the note's new place would take over keeps its note; and
//! the moved note's own links are written for its new folder. Pure functions over
//! text and names, so every rule is tested here without a disk.

use crate::ops::links::{Link, Resolver, links_of, rewrite};
use crate::ops::path;
use crate::ops::{FilePath, NotePath};

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

/// What a link leads to.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    Note(NotePath),
    File(FilePath),
}

impl Target {
    fn as_str(&self) -> &str {
        match self {
            Target::Note(p) => p.as_str(),
            Target::File(p) => p.as_str(),
        }
    }
}

/// The move `from` → `to`, with every note (and its aliases) and every attachment,
/// before and after it.
pub(crate) struct Move {
    pub(crate) from: NotePath,
    pub(crate) to: NotePath,
    before: Resolver,
    after: Resolver,
    /// What a link to the moved note may be written as, lowercased: its file names
    /// before and after, its aliases.
    names: Vec<String>,
}

impl Move {
    /// From the path and aliases of every note before the move (`from` among them) and
    /// the attachments of the folder.
    pub(crate) fn new(
        from: NotePath,
        to: NotePath,
        notes: &[(NotePath, Vec<String>)],
        files: &[FilePath],
    ) -> Self {
        let before = Resolver::new(notes.iter().map(|(p, a)| (p.clone(), a)), files.to_vec());
        let aliases: &[String] = notes
            .iter()
            .find(|(p, _)| *p == from)
            .map_or(&[], |(_, a)| a.as_slice());
        let after_notes = notes
            .iter()
            .filter(|(p, _)| *p != from && *p != to)
            .map(|(p, a)| (p.clone(), a.as_slice()))
            .chain([(to.clone(), aliases)]);
        let mut names: Vec<String> = [from.stem(), to.stem()]
            .into_iter()
            .chain(aliases.iter().map(String::as_str))
            .map(|n| n.trim().to_lowercase())
            .filter(|n| !n.is_empty())
            .collect();
        names.dedup();
        Move {
            after: Resolver::new(after_notes, files.to_vec()),
            before,
            names,
            from,
            to,
        }
    }

    /// Whether the text of a note other than the moved one may have a link the move
    /// changes: a quick look that never misses one (a link to the note, or one the
    /// note's new place takes over, names one of its names in any case, or is
    /// percent-encoded), so that only such notes are parsed.
    pub(crate) fn may_change(&self, text: &str) -> bool {
        let any_link = text.contains("[[") || text.contains("](") || text.contains("]:");
        if !any_link {
            return false;
        }
        if text.contains('%') {
            return true;
        }
        let lower = text.to_lowercase();
        self.names.iter().any(|name| lower.contains(name.as_str()))
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

    /// Where `link`, in note `here`, leads before the move (the moved note counted at
    /// its new path).
    fn wanted(&self, link: &Link, here: &NotePath) -> Option<Target> {
        if link.is_note() {
            let before = self.before.resolve(here, link)?;
            Some(Target::Note(if before == self.from {
                self.to.clone()
            } else {
                before
            }))
        } else {
            self.before.resolve_file(here, link).map(Target::File)
        }
    }

    /// Whether `link`, in note `here` after the move, leads to `wanted`.
    fn leads(&self, link: &Link, here: &NotePath, wanted: &Target) -> bool {
        let now = if link.is_note() {
            self.after.resolve(here, link).map(Target::Note)
        } else {
            self.after.resolve_file(here, link).map(Target::File)
        };
        now.as_ref() == Some(wanted)
    }

    /// A wikilink's new target: none while it leads, after the move, where it led before;
    /// else, in the link's style, its bare name when that leads there (a link written as
    /// a name), or the shortest end of its path that does. A link that led nowhere is
    /// left as written.
    fn wiki(&self, link: &Link, here: &NotePath, here_after: &NotePath) -> Option<String> {
        let wanted = self.wanted(link, here)?;
        if link.note.is_empty() || self.leads(link, here_after, &wanted) {
            return None;
        }
        let keep_md = link.is_note() && link.note.ends_with(".md");
        let full = wanted.as_str();
        let full = match &wanted {
            Target::Note(_) if !keep_md => full.strip_suffix(".md").unwrap_or(full),
            _ => full,
        };
        let parts: Vec<&str> = full.split('/').collect();
        // The ends of the path, shortest first: `x`, `c/x`, `b/c/x`…
        let ends = (0..parts.len()).rev().map(|at| parts[at..].join("/"));
        let by_name = !link.note.contains('/');
        let heading = link.target.find('#').map_or("", |at| &link.target[at..]);
        ends.filter(|c| by_name || c.contains('/'))
            .filter(|c| !c.contains(NOT_IN_WIKILINK))
            .find(|c| self.leads(&as_wikilink(link, c), here_after, &wanted))
            .map(|c| format!("{c}{heading}"))
    }

    /// A Markdown link's new target: a link to the moved note leads to its new path; the
    /// moved note's own links are written for its new folder. Relative, its `?query` and
    /// `#fragment` kept. A link that leads nowhere keeps the place it names.
    fn markdown(&self, link: &Link, here: &NotePath, here_after: &NotePath) -> Option<String> {
        let wanted = match self.wanted(link, here) {
            Some(wanted) => {
                if self.leads(link, here_after, &wanted) {
                    return None;
                }
                wanted.as_str().to_string()
            }
            None => {
                let place = beneath(here.parent(), &link.note)?;
                if beneath(here_after.parent(), &link.note).as_deref() == Some(place.as_str()) {
                    return None;
                }
                place
            }
        };
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
        kind: link.kind,
        target: note.to_string(),
        note: note.to_string(),
        heading: None,
        label: None,
        line: link.line,
        dest: 0..0,
        to_note: link.to_note,
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

    /// A move among notes named by path (`path=Alias` gives one an alias), with
    /// attachments `files`.
    fn plan_with(notes: &[&str], files: &[&str], from: &str, to: &str) -> Move {
        let notes: Vec<(NotePath, Vec<String>)> = notes
            .iter()
            .map(|n| match n.split_once('=') {
                Some((path, alias)) => (p(path), vec![alias.to_string()]),
                None => (p(n), Vec::new()),
            })
            .collect();
        let files: Vec<FilePath> = files.iter().map(|f| FilePath::parse(f).unwrap()).collect();
        Move::new(p(from), p(to), &notes, &files)
    }

    fn plan(notes: &[&str], from: &str, to: &str) -> Move {
        plan_with(notes, &[], from, to)
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
        // `[[a]]` led to the root's `a.md`; at `x/y/w/a.md` the name `a` is no longer its
        // own (z/a.md has it too, nearer): the shortest path that leads there.
        let m = plan(&["a.md", "n.md", "z/a.md"], "a.md", "x/y/w/a.md");
        assert_eq!(
            m.retarget(&p("n.md"), "see [[a]] and [[a#H]]").unwrap(),
            "see [[w/a]] and [[w/a#H]]"
        );
        // A note's own name staying unique needs nothing.
        let m = plan(&["a.md", "n.md"], "a.md", "x/a.md");
        assert_eq!(m.retarget(&p("n.md"), "[[a]]"), None);
    }

    #[test]
    fn aliases_that_still_lead_there_are_kept() {
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
            "[s](sib.md) [t](../../top.md#x) ![img](../../a/pics/p%201.png) \
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
            ("[[ÉTÉ À PARIS|t]]", true),
            ("[[Été à Paris#H]]", true),
            // Aliases fold case, not accents or blanks.
            ("[[ETE  A paris|t]]", false),
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
    fn escaped_pipes_in_tables_and_files_embedded_by_name() {
        let m = plan_with(
            &["a.md", "n.md", "deep/a.md"],
            &["Attachments/pic.png", "deep/pic.png"],
            "a.md",
            "k/b.md",
        );
        let text = "| x |\n|---|\n| [[a\\|the a]] |\n";
        assert_eq!(
            m.retarget(&p("n.md"), text).unwrap(),
            "| x |\n|---|\n| [[b\\|the a]] |\n"
        );
        // The moved note's embeds by name: still the nearest? `pic.png` from `k/`
        // is Attachments/pic.png (the shorter path) as it was from the root.
        assert_eq!(m.retarget(&p("a.md"), "![[pic.png|100]]"), None);
        // From deep/, a move away changes which `pic.png` is nearest: the path is kept.
        let m = plan_with(
            &["deep/n.md"],
            &["a/pic.png", "deep/pic.png"],
            "deep/n.md",
            "n.md",
        );
        assert_eq!(
            m.retarget(&p("deep/n.md"), "![[pic.png]] ![](pic.png)")
                .unwrap(),
            "![[deep/pic.png]] ![](deep/pic.png)"
        );
    }

    #[test]
    fn code_and_other_notes_links_are_untouched() {
        let m = plan(&["a.md", "b.md", "n.md"], "a.md", "z.md");
        let text = "`[[a]]`\n\n```\n[x](a.md)\n```\n[[b]] [[missing]] [w](https://x/a.md)\n";
        assert_eq!(m.retarget(&p("n.md"), text), None);
    }
}
