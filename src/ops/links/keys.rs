//! Lookup keys, so that backlinks are a lookup and not a scan: each link gives the keys
//! of every note it could resolve to (`p:` a path, `n:` a file name, `t:` a folded
//! title), and a note answers to its own three. The notes whose links share a key with a
//! note are the only ones that can link to it; resolving their links says which do.

use std::collections::BTreeSet;

use super::Link;
use super::resolve::{Folder, bare_name, relative_path, root_path};
use crate::ops::NotePath;

/// The keys of every note link of `links`, the links of note `from`.
pub(crate) fn keys_of_links(
    from: &NotePath,
    links: &[Link],
    folder: &mut Folder,
) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    for link in links.iter().filter(|l| l.is_note()) {
        add_link_keys(from, link, folder, &mut keys);
    }
    keys
}

fn add_link_keys(from: &NotePath, link: &Link, folder: &mut Folder, keys: &mut BTreeSet<String>) {
    if !link.is_wiki() {
        if let Some(path) = relative_path(from, &link.note) {
            keys.insert(path_key(&path));
        }
        return;
    }
    if link.note.is_empty() {
        keys.insert(path_key(from.as_str()));
        return;
    }
    let bare = bare_name(&link.note);
    if let Some(path) = root_path(bare) {
        keys.insert(path_key(path.as_str()));
    }
    let name = bare.rsplit('/').next().unwrap_or(bare);
    keys.insert(format!("n:{name}"));
    keys.insert(format!("t:{}", folder.fold(&link.note)));
}

/// The keys a link to note `path` of title `title` carries.
pub(crate) fn keys_of_note(path: &NotePath, title: &str, folder: &mut Folder) -> [String; 3] {
    [
        path_key(path.as_str()),
        format!("n:{}", path.stem()),
        format!("t:{}", folder.fold(title)),
    ]
}

fn path_key(path: &str) -> String {
    format!("p:{path}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::links::links_of;

    fn keys(from: &str, text: &str) -> Vec<String> {
        keys_of_links(
            &NotePath::parse(from).unwrap(),
            &links_of(text),
            &mut Folder::default(),
        )
        .into_iter()
        .collect()
    }

    #[test]
    fn each_link_carries_the_keys_of_what_it_may_resolve_to() {
        assert_eq!(
            keys("a/x.md", "[[Recipes/Bread.md#Dough|b]]"),
            ["n:Bread", "p:Recipes/Bread.md", "t:recipes/bread.md"]
        );
        assert_eq!(keys("a/x.md", "[[#Top]]"), ["p:a/x.md"]);
        assert_eq!(keys("a/x.md", "[b](../r/b%20c.md#h)"), ["p:r/b c.md"]);
        assert_eq!(keys("a/x.md", "[b](../../c.md)"), Vec::<String>::new());
        assert_eq!(
            keys("a/x.md", "![[pic.png]] ![p](p.png)"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_note_answers_to_the_keys_of_links_that_resolve_to_it() {
        use crate::ops::links::Resolver;
        let target = NotePath::parse("kitchen/Bread.md").unwrap();
        let resolver = Resolver::new([(target.clone(), "Pain de mie")]);
        let mut folder = Folder::default();
        let own = keys_of_note(&target, "Pain de mie", &mut folder);
        for text in [
            "[[kitchen/Bread]]",
            "[[Bread]]",
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
            let keys = keys_of_links(&from, &links_of(text), &mut folder);
            assert!(own.iter().any(|k| keys.contains(k)), "{text}: {keys:?}");
        }
    }
}
