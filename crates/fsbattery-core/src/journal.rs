//! The journal writer: one JSON object per line, appended and flushed to disk as results
//! arrive, so a run killed at any moment keeps everything it finished. The events, the reader
//! and the assembler are the record's (`fsbattery_record::journal`), re-exported here.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

pub use fsbattery_record::journal::{assemble, parse, read, Event};
pub use fsbattery_record::JOURNAL_FILE;

/// An open journal, appending one flushed, fdatasync'ed line per event.
pub struct Journal {
    file: File,
    path: PathBuf,
}

impl Journal {
    /// Create `dir/journal.jsonl` (which must not exist yet).
    pub fn create(dir: &Path) -> std::io::Result<Journal> {
        let path = dir.join(JOURNAL_FILE);
        let file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(&path)?;
        Ok(Journal { file, path })
    }

    /// Append one event durably.
    pub fn append(&mut self, ev: &Event) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(ev).map_err(std::io::Error::other)?;
        line.push(b'\n');
        self.file.write_all(&line)?;
        self.file.sync_data()
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}
