//! An engine's table of open files: operations name a file by its index.
//!
//! Invariants: an index stays valid until that file is removed and is then reused by the next
//! insert (so a sparse io_uring registration of `capacity` entries can mirror the table one to
//! one); the raw descriptors are cached beside the owned files so the hot path reads one
//! integer; a removed or never-used index yields -1, which the kernel answers with EBADF.

use std::fs::File;
use std::os::fd::{AsRawFd, RawFd};

/// Owned files by index, with their raw descriptors cached.
#[derive(Debug, Default)]
pub(crate) struct FileTable {
    files: Vec<Option<File>>,
    fds: Vec<RawFd>,
}

impl FileTable {
    /// Add `file` at the lowest free index.
    pub fn insert(&mut self, file: File) -> u32 {
        let fd = file.as_raw_fd();
        let i = match self.files.iter().position(Option::is_none) {
            Some(i) => i,
            None => {
                self.files.push(None);
                self.fds.push(-1);
                self.files.len() - 1
            }
        };
        self.files[i] = Some(file);
        self.fds[i] = fd;
        i as u32
    }

    /// Take file `id` out of the table.
    pub fn remove(&mut self, id: u32) -> Option<File> {
        let i = id as usize;
        let f = self.files.get_mut(i)?.take();
        self.fds[i] = -1;
        f
    }

    /// Raw descriptor of file `id`, or -1.
    #[inline]
    pub fn fd(&self, id: u32) -> RawFd {
        self.fds.get(id as usize).copied().unwrap_or(-1)
    }
}
