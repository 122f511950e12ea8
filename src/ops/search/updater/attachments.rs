//! The attachments' documents: brought up to date with the files, one by one or in a
//! whole pass.

use super::*;

impl IndexUpdater {
    /// Brings the attachments' documents up to date with the files (without committing).
    pub(super) fn catch_up_files(&mut self) -> Result<Changes> {
        let files = crate::ops::files::attachment_files(&self.notes_dir, &self.notes_dir);
        let on_disk: HashSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
        let gone: Vec<Box<str>> = self
            .known_files
            .keys()
            .filter(|p| !on_disk.contains(&***p))
            .cloned()
            .collect();
        let mut changes = Changes::default();
        for path in gone {
            self.remove_file(&path);
            changes.removed += 1;
        }
        for file in &files {
            if self.known_files.get(file.path.as_str()) != Some(&stamp_key(&FileId::of(&file.meta)))
            {
                self.add_file(file)?;
                changes.indexed += 1;
            }
        }
        Ok(changes)
    }

    /// The notes and attachments under the folder `folder` (or the attachment it names,
    /// when gone): those on disk, and those the index holds.
    pub(crate) fn under(&self, folder: &str) -> (Vec<NotePath>, Vec<FilePath>) {
        let notes = crate::ops::store::note_files_under(&self.notes_dir, folder)
            .into_iter()
            .map(|file| file.path);
        let files = crate::ops::store::folder_beneath(&self.notes_dir, folder)
            .map(|start| crate::ops::files::attachment_files(&self.notes_dir, &start))
            .unwrap_or_default()
            .into_iter()
            .map(|file| file.path);
        (
            with_known(notes, &self.known, folder, |p| NotePath::parse(p).ok()),
            with_known(files, &self.known_files, folder, |p| {
                FilePath::parse(p).ok()
            }),
        )
    }

    /// Looks at the named attachments again: indexed when the file exists and differs
    /// from the version indexed, removed when it does not exist any more.
    pub(crate) fn update_files<'a>(
        &mut self,
        paths: impl IntoIterator<Item = &'a FilePath>,
    ) -> Result<Changes> {
        let mut changes = Changes::default();
        for path in paths {
            match self.root.open_attachment(path) {
                Ok((_, meta)) => {
                    if self.known_files.get(path.as_str()) != Some(&stamp_key(&FileId::of(&meta))) {
                        self.add_file(&AttachmentFile {
                            path: path.clone(),
                            meta,
                        })?;
                        changes.indexed += 1;
                    }
                }
                Err(_) if self.known_files.contains_key(path.as_str()) => {
                    self.remove_file(path.as_str());
                    changes.removed += 1;
                }
                Err(_) => {}
            }
        }
        if changes != Changes::default() {
            self.commit()?;
        }
        Ok(changes)
    }

    pub(super) fn add_file(&mut self, file: &AttachmentFile) -> Result<()> {
        let stamp = schema::stamp_of(&FileId::of(&file.meta));
        let doc = schema::file_document(&self.index.fields, &file.path, &stamp);
        self.writer.delete_term(Term::from_field_text(
            self.index.fields.file,
            file.path.as_str(),
        ));
        self.queue(doc, file.path.as_str().len())?;
        self.known_files
            .insert(file.path.as_str().into(), hash_of(&stamp));
        Ok(())
    }

    pub(super) fn remove_file(&mut self, path: &str) {
        self.writer
            .delete_term(Term::from_field_text(self.index.fields.file, path));
        self.known_files.remove(path);
    }
}

/// Path → stamp of every attachment the index holds.
pub(super) fn known_file_stamps(index: &NotesIndex) -> Result<Stamps> {
    stamps_of(index, "file", 0)
}

/// The paths `on_disk`, and those `known` names that are `folder` or under it; sorted,
/// each once.
fn with_known<T: Ord>(
    on_disk: impl Iterator<Item = T>,
    known: &Stamps,
    folder: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Vec<T> {
    let mut paths: Vec<T> = on_disk
        .chain(
            known
                .keys()
                .filter(|path| &***path == folder || crate::ops::tags::is_under(path, folder))
                .filter_map(|path| parse(path)),
        )
        .collect();
    paths.sort_unstable();
    paths.dedup();
    paths
}
