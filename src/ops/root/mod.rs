//! The notes dir as an open folder (`RootDir`, a cache of its cap-std handle), and every
//! open and rename of a note beneath it (`rename` also holds the service's own files in
//! `.notes/`), and the removal of folders a delete or move emptied (`emptied`): nothing
//! is checked by path and then used by path.

mod dir;
mod emptied;
mod landing;
mod open;
mod rename;

pub(crate) use dir::RootDir;
pub(crate) use landing::Landing;
pub(crate) use open::{open_error, path_error};
pub(crate) use open::{resolve, resolve_rel};
pub(crate) use rename::again_if_folder_gone;
