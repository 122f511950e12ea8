//! Lookup keys, so that backlinks are a lookup and not a scan: each link gives the keys
//! of every note it could resolve to (`n:` its file name, `a:` an alias, `p:` the note
//! itself for `[[#Heading]]`), and a note answers to its own (its path, its name, each
//! alias). Every rule of `resolve` that finds a note by a path finds one of that file
//! name, so the name key covers them. The notes whose links share a key with a note are
//! the only ones that can link to it; resolving their links says which do.

use std::collections::BTreeSet;

use super::Link;
use super::resolve::lower;
use crate::ops::NotePath;

/// The keys of every note link of `links`, the links of note `from`.
pub(crate) fn keys_of_links(from: &NotePath, links: &[Link]) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    for link in links.iter().filter(|l| l.is_note()) {
        add_link_keys(from, link, &mut keys);
    }
    keys
}

fn add_link_keys(from: &NotePath, link: &Link, keys: &mut BTreeSet<String>) {
    if link.note.is_empty() {
        keys.insert(path_key(from.as_str()));
        return;
    }
    let written = link.note.trim_start_matches('/');
    let name = written.rsplit('/').next().unwrap_or(written);
    let name = name.strip_suffix(".md").unwrap_or(name);
    keys.insert(format!("n:{}", lower(name)));
    if link.is_wiki() {
        keys.insert(format!("a:{}", lower(written.trim())));
    }
}

/// The keys a link to note `path` with aliases `aliases` carries.
pub(crate) fn keys_of_note(path: &NotePath, aliases: &[impl AsRef<str>]) -> Vec<String> {
    let mut keys = vec![path_key(path.as_str()), format!("n:{}", lower(path.stem()))];
    keys.extend(
        aliases
            .iter()
            .map(|a| format!("a:{}", lower(a.as_ref().trim()))),
    );
    keys
}

fn path_key(path: &str) -> String {
    format!("p:{path}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::links::links_of;

    fn keys(from: &str, text: &str) -> Vec<String> {
        keys_of_links(&NotePath::parse(from).unwrap(), &links_of(text))
            .into_iter()
            .collect()
    }

    #[test]
    fn each_link_carries_the_keys_of_what_it_may_resolve_to() {
        assert_eq!(
            keys("a/x.md", "[[Recipes/Bread.md#Dough|b]]"),
            ["a:recipes/bread.md", "n:bread"]
        );
        assert_eq!(keys("a/x.md", "[[#Top]]"), ["p:a/x.md"]);
        assert_eq!(keys("a/x.md", "[b](../r/b%20c.md#h)"), ["n:b c"]);
        assert_eq!(
            keys("a/x.md", "![[pic.png]] ![p](p.png)"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_note_answers_to_the_keys_of_links_that_resolve_to_it() {
        use crate::ops::links::Resolver;
        let target = NotePath::parse("kitchen/Bread.md").unwrap();
        let aliases = ["Pain de mie"];
        let resolver = Resolver::new([(target.clone(), aliases)], []);
        let own = keys_of_note(&target, &aliases);
        for text in [
            "[[kitchen/Bread]]",
            "[[Bread]]",
            "[[bread]]",
            "[[kitchen/Bread.md#x]]",
            "[[PAIN DE MIE]]",
            "[b](kitchen/Bread.md)",
        ] {
            let from = NotePath::parse("x.md").unwrap();
            let link = &links_of(text)[0];
            assert_eq!(
                resolver.resolve(&from, link).as_ref(),
                Some(&target),
                "{text}"
            );
            let keys = keys_of_links(&from, &links_of(text));
            assert!(own.iter().any(|k| keys.contains(k)), "{text}: {keys:?}");
        }
    }
}
