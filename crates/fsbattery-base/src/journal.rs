//! The journal writer: one JSON object per line, appended and flushed to disk as results
//! arrive, so a run killed at any moment keeps everything it finished. The events, the reader
//! and the assembler are the record's (`fsbattery_record::journal`), re-exported here.
//!
//! Invariant: the file holds whole lines only, but for a torn last line after a crash. When an
//! append fails (the results directory filled up or turned read-only under the run), what it
//! wrote is cut off again and the journal takes no further event, so the file stays every
//! result up to the failure and the run stops with that one error.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

pub use fsbattery_record::journal::{assemble, parse, read, Event};
pub use fsbattery_record::JOURNAL_FILE;

/// An open journal, appending one flushed, fdatasync'ed line per event.
pub struct Journal {
    sink: Sink,
    path: PathBuf,
    /// Bytes of the whole lines written so far: a failed append is cut back to it.
    len: u64,
    /// The first failed append (its kind and message): every later append fails with it.
    broken: Option<(std::io::ErrorKind, String)>,
}

/// Where the lines go: the run's file, or memory for an MPI rank other than 0 (its journal
/// only feeds its own exit status; a file would stay behind if the rank were killed).
enum Sink {
    File(File),
    Memory(Vec<u8>),
}

impl Journal {
    /// Create `dir/journal.jsonl` (which must not exist yet). The exclusive create is what
    /// claims `dir` for one run: of two runs given the same directory, the second fails here
    /// with [`std::io::ErrorKind::AlreadyExists`].
    pub fn create(dir: &Path) -> std::io::Result<Journal> {
        let path = dir.join(JOURNAL_FILE);
        let file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(&path)?;
        // Held while the run goes on (the kernel drops it when the process ends, however it
        // ends): `run --resume` refuses a journal that a live run still writes.
        let _ = file.try_lock();
        Ok(Journal {
            sink: Sink::File(file),
            path,
            len: 0,
            broken: None,
        })
    }

    /// Reopen the journal of an interrupted run in `dir` to continue it (`run --resume`): its
    /// events so far, and the journal, cut back to its last whole line (a run killed mid-write
    /// leaves a torn one, which would otherwise sit inside the file) and ready to append.
    /// Refused with [`std::io::ErrorKind::WouldBlock`] while another process holds it (the
    /// run is still going, or another resume of it).
    pub fn reopen(dir: &Path) -> std::io::Result<(Journal, Vec<Event>)> {
        let path = dir.join(JOURNAL_FILE);
        let file = OpenOptions::new().read(true).append(true).open(&path)?;
        file.try_lock().map_err(|e| match e {
            std::fs::TryLockError::WouldBlock => std::io::Error::new(
                std::io::ErrorKind::WouldBlock,
                format!("{} is held by a run still going", path.display()),
            ),
            std::fs::TryLockError::Error(e) => e,
        })?;
        let bytes = std::fs::read(&path)?;
        let whole = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        if whole < bytes.len() {
            file.set_len(whole as u64)?;
            file.sync_data()?;
        }
        let text = String::from_utf8_lossy(&bytes[..whole]);
        let events = parse(&text, &path.display().to_string()).map_err(std::io::Error::other)?;
        let journal = Journal {
            sink: Sink::File(file),
            path,
            len: whole as u64,
            broken: None,
        };
        Ok((journal, events))
    }

    /// A journal kept in memory only: nothing on disk to leave behind.
    pub fn in_memory() -> Journal {
        Journal {
            sink: Sink::Memory(Vec::new()),
            path: PathBuf::from("(memory)"),
            len: 0,
            broken: None,
        }
    }

    /// Append one event durably.
    pub fn append(&mut self, ev: &Event) -> std::io::Result<()> {
        if let Some((kind, msg)) = &self.broken {
            return Err(std::io::Error::new(*kind, msg.clone()));
        }
        let mut line = serde_json::to_vec(ev).map_err(std::io::Error::other)?;
        line.push(b'\n');
        match &mut self.sink {
            Sink::File(file) => {
                match file.write_all(&line).and_then(|()| file.sync_data()) {
                    Ok(()) => {
                        self.len += line.len() as u64;
                        Ok(())
                    }
                    Err(e) => {
                        // A full disk can take half a line; a later line landing after it
                        // would leave a torn line inside the journal. Best effort: on a
                        // read-only filesystem nothing was written and nothing can be cut.
                        let _ = file.set_len(self.len);
                        let msg = format!("appending to {}: {e}", self.path.display());
                        self.broken = Some((e.kind(), msg.clone()));
                        Err(std::io::Error::new(e.kind(), msg))
                    }
                }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn end() -> Event {
        Event::End {
            finished: "2026-01-01T00:00:00Z".into(),
            interrupted: false,
        }
    }

    #[test]
    fn a_failed_append_stops_the_journal_and_keeps_whole_lines() {
        let dir = tempfile::tempdir().unwrap();
        let mut j = Journal::create(dir.path()).unwrap();
        j.append(&end()).unwrap();
        let before = std::fs::read(j.path()).unwrap();
        // A journal whose file turned read-only under it (as a remount would make it).
        let path = j.path().to_path_buf();
        if let Sink::File(f) = &mut j.sink {
            *f = std::fs::File::open(&path).unwrap();
        }
        let e = j.append(&end()).unwrap_err();
        assert!(e.to_string().starts_with("appending to "), "{e}");
        let again = j.append(&end()).unwrap_err();
        assert_eq!(again.to_string(), e.to_string(), "later appends fail alike");
        assert_eq!(std::fs::read(&path).unwrap(), before);
        assert_eq!(j.events().unwrap().len(), 1);
    }

    #[test]
    fn reopen_cuts_a_torn_line_and_appends_after_the_whole_ones() {
        let dir = tempfile::tempdir().unwrap();
        let mut j = Journal::create(dir.path()).unwrap();
        j.append(&end()).unwrap();
        drop(j);
        let path = dir.path().join(JOURNAL_FILE);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"event\":\"sam").unwrap();
        drop(f);
        let (mut j, events) = Journal::reopen(dir.path()).unwrap();
        assert_eq!(events, vec![end()]);
        j.append(&end()).unwrap();
        assert_eq!(read(&path).unwrap(), vec![end(), end()]);
        let held = Journal::reopen(dir.path()).err().unwrap();
        assert_eq!(held.kind(), std::io::ErrorKind::WouldBlock, "{held}");
        drop(j);
        assert!(
            Journal::reopen(dir.path()).is_ok(),
            "free once the first is gone"
        );
    }

    #[test]
    fn a_second_create_in_one_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let _first = Journal::create(dir.path()).unwrap();
        let e = Journal::create(dir.path()).err().unwrap();
        assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
    }
}
