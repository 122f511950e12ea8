//! Media names, the names a page refers to, and publishing with attachments on a temp
//! notebook: failures leave no copy behind, nothing is written outside the public dir.

use super::*;

#[test]
fn names_follow_the_content_and_keep_to_safe_ascii() {
    let a = media_name("Ridge photo (1).PNG", b"one");
    let b = media_name("Ridge photo (1).PNG", b"two");
    assert_ne!(a, b);
    assert_eq!(a, media_name("Ridge photo (1).PNG", b"one"));
    assert!(a.ends_with("-Ridge-photo-1.png"), "{a}");
    assert_eq!(a.len(), HASH_HEX + "-Ridge-photo-1.png".len());
    assert!(is_media_name(&a));
    assert!(media_name("été.pdf", b"x").ends_with("-t.pdf"));
    assert!(media_name("日本.jpg", b"x").ends_with("-file.jpg"));
    assert!(media_name("Makefile", b"x").ends_with("-Makefile"));
    assert!(media_name("a.tar.g z", b"x").ends_with("-a-tar"));
    let long = media_name(&"x".repeat(300), b"x");
    assert_eq!(long.len(), HASH_HEX + 1 + NAME_CHARS);
}

#[test]
fn pages_name_only_media_in_attributes() {
    let a = media_name("a.png", b"a");
    let b = media_name("b.pdf", b"b");
    let html = format!(
        "<img src=\"media/{a}\" alt=\"x\"><a href=\"media/{b}\">b</a> \
         <p>&quot;media/{a}x&quot; \"media/../x\" \"media/.hidden\"</p>"
    );
    let names = names_in(&html);
    assert_eq!(names, BTreeSet::from([a, b]));
}

mod publishing {
    use super::*;
    use crate::error::Error;
    use crate::ops::NotePath;
    use crate::ops::model::{NoteInput, Precondition};
    use crate::ops::temp_notebook;

    fn write_note(nb: &Notebook, rel: &str, text: &str) -> NotePath {
        let path = NotePath::parse(rel).unwrap();
        nb.put(
            &path,
            NoteInput::Markdown(text.to_string()),
            Precondition::None,
        )
        .unwrap();
        path
    }

    fn media_files(nb: &Notebook) -> BTreeSet<String> {
        all_media(nb.public_dir()).unwrap()
    }

    #[test]
    fn a_folder_scope_copies_nothing_it_may_not_read_and_keeps_others_pages() {
        use crate::ops::tokens::Prefix;
        let (_root, nb) = temp_notebook();
        let work = Scope::new(false, Some(Prefix::parse("work").unwrap()));
        std::fs::create_dir_all(nb.notes_dir().join("private")).unwrap();
        std::fs::write(nb.notes_dir().join("private/s.png"), b"secret image").unwrap();
        std::fs::write(nb.notes_dir().join("private/o.png"), b"owner image").unwrap();
        // The owner's public page shows its own image and links to a work note.
        let owners = write_note(
            &nb,
            "private/page.md",
            "# Owner\n\n![o](o.png) [pub](../work/pub.md)\n",
        );
        nb.publish(&owners, &Scope::full()).unwrap();
        let owner_copy = media_name("o.png", b"owner image");
        assert_eq!(media_files(&nb), BTreeSet::from([owner_copy.clone()]));
        // A work token publishes a note naming both private images: neither is copied,
        // and its page shows their text; the owner's page, rendered again for its link,
        // keeps the copy it had.
        let mine = write_note(
            &nb,
            "work/pub.md",
            "# Pub\n\n![s](../private/s.png) ![o](../private/o.png)\n",
        );
        nb.publish(&mine, &work).unwrap();
        assert_eq!(media_files(&nb), BTreeSet::from([owner_copy.clone()]));
        let page = std::fs::read_to_string(nb.public_dir().join("pub.html")).unwrap();
        assert!(names_in(&page).is_empty(), "{page}");
        let page = std::fs::read_to_string(nb.public_dir().join("page.html")).unwrap();
        assert!(page.contains("pub.html"), "{page}");
        assert_eq!(names_in(&page), BTreeSet::from([owner_copy]));
        // Nor through a path outside the folder.
        let outside = NotePath::parse("private/page.md").unwrap();
        assert!(matches!(
            nb.publish(&outside, &work),
            Err(Error::OutsideScope)
        ));
    }

    #[test]
    fn a_failed_publication_leaves_no_copy_behind() {
        let (_root, nb) = temp_notebook();
        let kept = write_note(&nb, "kept.md", "# Kept\n\n![k](k.png)\n");
        std::fs::write(nb.notes_dir().join("k.png"), b"kept image").unwrap();
        nb.publish(&kept, &Scope::full()).unwrap();
        let kept_copy = media_name("k.png", b"kept image");
        assert_eq!(media_files(&nb), BTreeSet::from([kept_copy.clone()]));
        let n = write_note(&nb, "n.md", "# N\n\n![n](n.png) ![k](k.png)\n");
        std::fs::write(nb.notes_dir().join("n.png"), b"new image").unwrap();
        // The feed cannot be written: the change fails and is undone.
        let feed = nb.public_dir().join(crate::ops::publish::feed::FILE);
        std::fs::remove_file(&feed).unwrap();
        std::fs::create_dir_all(feed.join("in-the-way")).unwrap();
        assert!(matches!(
            nb.publish(&n, &Scope::full()),
            Err(Error::PublishFailed(_))
        ));
        assert_eq!(
            media_files(&nb),
            BTreeSet::from([kept_copy]),
            "the copy made for the failed change is gone, the kept page's stays"
        );
    }

    #[test]
    fn a_cut_copy_or_a_link_in_the_way_is_replaced_by_the_whole_file() {
        let (root, nb) = temp_notebook();
        let n = write_note(&nb, "n.md", "# N\n\n![a](a.png) ![b](b.png)\n");
        std::fs::write(nb.notes_dir().join("a.png"), b"all of a").unwrap();
        std::fs::write(nb.notes_dir().join("b.png"), b"all of b").unwrap();
        let dir = nb.public_dir().join(MEDIA_DIR);
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (
            media_name("a.png", b"all of a"),
            media_name("b.png", b"all of b"),
        );
        std::fs::write(dir.join(&a), b"all").unwrap();
        let elsewhere = root.path().join("elsewhere.png");
        std::fs::write(&elsewhere, b"not to be touched").unwrap();
        std::os::unix::fs::symlink(&elsewhere, dir.join(&b)).unwrap();
        nb.publish(&n, &Scope::full()).unwrap();
        assert_eq!(std::fs::read(dir.join(&a)).unwrap(), b"all of a");
        assert!(std::fs::symlink_metadata(dir.join(&b)).unwrap().is_file());
        assert_eq!(std::fs::read(dir.join(&b)).unwrap(), b"all of b");
        assert_eq!(std::fs::read(&elsewhere).unwrap(), b"not to be touched");
    }

    #[test]
    fn a_media_folder_leading_outside_the_public_dir_is_never_written() {
        let (root, nb) = temp_notebook();
        let n = write_note(&nb, "n.md", "# N\n\n![a](a.png)\n");
        std::fs::write(nb.notes_dir().join("a.png"), b"image").unwrap();
        let outside = root.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::create_dir_all(nb.public_dir()).unwrap();
        std::os::unix::fs::symlink(&outside, nb.public_dir().join(MEDIA_DIR)).unwrap();
        assert!(matches!(
            nb.publish(&n, &Scope::full()),
            Err(Error::PublishFailed(_))
        ));
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
        assert!(!nb.public_dir().join("n.html").exists());
    }
}
