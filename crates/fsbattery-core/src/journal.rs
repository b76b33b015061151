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
    sink: Sink,
    path: PathBuf,
}

/// Where the lines go: the run's file, or memory for an MPI rank other than 0 (its journal
/// only feeds its own exit status; a file would stay behind if the rank were killed).
enum Sink {
    File(File),
    Memory(Vec<u8>),
}

impl Journal {
    /// Create `dir/journal.jsonl` (which must not exist yet).
    pub fn create(dir: &Path) -> std::io::Result<Journal> {
        let path = dir.join(JOURNAL_FILE);
        let file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(&path)?;
        Ok(Journal {
            sink: Sink::File(file),
            path,
        })
    }

    /// A journal kept in memory only: nothing on disk to leave behind.
    pub fn in_memory() -> Journal {
        Journal {
            sink: Sink::Memory(Vec::new()),
            path: PathBuf::from("(memory)"),
        }
    }

    /// Append one event durably.
    pub fn append(&mut self, ev: &Event) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(ev).map_err(std::io::Error::other)?;
        line.push(b'\n');
        match &mut self.sink {
            Sink::File(file) => {
                file.write_all(&line)?;
                file.sync_data()
            }
            Sink::Memory(buf) => {
                buf.extend_from_slice(&line);
                Ok(())
            }
        }
    }

    /// Every event written so far, read back as a reader of the file would.
    pub fn events(&self) -> Result<Vec<Event>, String> {
        match &self.sink {
            Sink::File(_) => read(&self.path),
            Sink::Memory(buf) => parse(&String::from_utf8_lossy(buf), "in-memory journal"),
        }
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}
