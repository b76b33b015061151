//! io500's find phase as the app runs it (pfind, VI4IO/pfind aaba722 `src/pfind.c`): over
//! the whole data directory, files `-newer` the timestamp file (status change time in whole
//! seconds, at or after the file's, as pfind compares), `-size 3901c` and `-name "*01*"`,
//! counting matches. A name that is not a directory is tried against the pattern with
//! glibc's `regexec`, as pfind does (see `name_match`); one that matches is `lstat`ed. The
//! phase's rate is every file looked at (pfind's `total_files`) over the time, as the app
//! scores it.
//!
//! Ranks share the work as pfind's do, by stealing it (`pfind_find`'s loop): rank 0 starts
//! with the data directory; a rank whose stack is empty asks a rank drawn with the C
//! library's `rand()` (as pfind draws it) for work and waits for the answer, answering others'
//! requests meanwhile with nothing; a rank with work answers each request between steps
//! with the top half of its stack. Termination is pfind's token ring: a token passes from
//! rank to rank while they have nothing to do; rank 0 counts the rounds in which nobody took
//! work (1: maybe done, 2: stop stealing, 3: done), and any rank that received work since
//! the token last passed sets the count back to 0. On io500's tree (three large directories
//! and a few small ones) the split that results varies from run to run as pfind's does (one
//! rank may end up reading two of the large directories, or all three while the other
//! `lstat`s matches it stole). The work between messages is `find_work`'s.
//!
//! An interrupted rank drops its work and goes on answering and passing the token until
//! every rank is done, so no rank waits for one that left; errors are counted and reported
//! once all are done (pfind counts them and goes on).

use super::find_query::{Found, Query};
use super::find_work::{Queue, Walker};
use crate::error::{IoContext, WorkloadError};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The messages find's ranks exchange, point to point (pfind's `MPI_Send`/`MPI_Iprobe`).
pub(super) trait Mail {
    fn rank(&self) -> usize;
    fn size(&self) -> usize;
    /// `bytes` to rank `to` under `tag`; returns once they are sent or buffered.
    fn send(&self, to: usize, tag: u16, bytes: &[u8]);
    /// A message under `tag` from `from` (any rank: `None`), if one is waiting: its sender
    /// and bytes.
    fn try_receive(&self, from: Option<usize>, tag: u16) -> Option<(usize, Vec<u8>)>;
}

/// pfind's message tags.
const COMPLETE: u16 = 777;
const STEAL: u16 = 800;
const STEAL_RESPONSE: u16 = 820;

/// The token ring's state on one rank (pfind's `have_finalize_token`,
/// `have_processed_work_after_token`, `phase`).
struct Token {
    held: bool,
    worked_since: bool,
    phase: u8,
}

/// Find below `dir` with the other ranks of `mail` (see the module header); `queue` is the
/// stack's memory, made before the phase. What this rank counted.
pub(super) fn find(
    dir: &Path,
    q: &Query,
    mail: &dyn Mail,
    queue: &mut Queue,
) -> Result<Found, WorkloadError> {
    let start = std::fs::canonicalize(dir).ctx(|| format!("realpath {}", dir.display()))?;
    let start = CString::new(start.as_os_str().as_bytes())
        .map_err(|_| WorkloadError::Failed(format!("{} holds a NUL byte", dir.display())))?;
    let rank = mail.rank();
    let mut w = Walker::new(q, start, queue);
    if rank == 0 {
        w.seed();
    }
    let mut token = Token {
        held: rank == 0,
        worked_since: true,
        phase: 0,
    };
    let mut interrupted = false;
    loop {
        let completed = w.completed();
        if !completed {
            if crate::interrupt::requested() {
                interrupted = true;
                w.stop();
            } else {
                w.step();
            }
        }
        if pass_token(mail, &mut token, completed) {
            break;
        }
        while let Some((from, _)) = mail.try_receive(None, STEAL) {
            mail.send(from, STEAL_RESPONSE, &w.give());
        }
        if w.pending() == 0 && token.phase < 2 && !interrupted && steal(mail, &mut w) > 0 {
            token.worked_since = true;
        }
    }
    if interrupted {
        return Err(WorkloadError::Interrupted);
    }
    if let Some(e) = w.first_error.take() {
        return Err(WorkloadError::Failed(format!(
            "find: {} errors, the first: {e}",
            w.errors
        )));
    }
    Ok(w.out)
}

/// The token's part of one turn of the loop: take it from the left neighbour if it is
/// there; when this rank has nothing to do, pass it on (rank 0 counting the quiet rounds).
/// True when the walk is over on this rank.
fn pass_token(mail: &dyn Mail, t: &mut Token, completed: bool) -> bool {
    let (rank, size) = (mail.rank(), mail.size());
    let left = (rank + size - 1) % size;
    if let Some((_, b)) = mail.try_receive(Some(left), COMPLETE) {
        t.phase = b.first().copied().unwrap_or(0);
        t.held = true;
    }
    if !(completed && t.held) {
        return false;
    }
    if t.worked_since {
        t.phase = 0;
    } else if rank == 0 {
        t.phase += 1;
    }
    if size == 1 {
        return true;
    }
    let right = (rank + 1) % size;
    if right == 0 && t.phase == 3 {
        return true;
    }
    mail.send(right, COMPLETE, &[t.phase]);
    if t.phase == 3 {
        return true;
    }
    t.worked_since = false;
    t.held = false;
    false
}

/// Ask a rank drawn with `rand()` for work and wait for its answer, answering requests to
/// this rank with nothing meanwhile; how many items came.
fn steal(mail: &dyn Mail, w: &mut Walker<'_>) -> usize {
    // SAFETY: rand() has no preconditions (pfind draws its victim with it).
    let victim = unsafe { libc::rand() } as usize % mail.size();
    if victim == mail.rank() {
        return 0;
    }
    mail.send(victim, STEAL, &[]);
    loop {
        if let Some((_, records)) = mail.try_receive(Some(victim), STEAL_RESPONSE) {
            return w.take(&records);
        }
        if let Some((from, _)) = mail.try_receive(None, STEAL) {
            mail.send(from, STEAL_RESPONSE, &[]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::find_query::IO500_NAME;
    use super::super::name_match::NameMatch;
    use super::*;
    use std::collections::VecDeque;
    use std::sync::{Arc, Mutex};

    fn query(newer_s: i64) -> Query {
        Query {
            newer_s,
            size: 3,
            name: NameMatch::new(IO500_NAME).unwrap(),
        }
    }

    /// Every rank's mailbox: (sender, tag, bytes) in arrival order.
    type Boxes = Arc<Mutex<Vec<VecDeque<(usize, u16, Vec<u8>)>>>>;

    /// A rank of threads that post to each other's mailboxes, as MPI ranks send messages:
    /// per sender and tag in the order sent.
    struct Post {
        rank: usize,
        boxes: Boxes,
    }

    impl Mail for Post {
        fn rank(&self) -> usize {
            self.rank
        }
        fn size(&self) -> usize {
            self.boxes.lock().unwrap().len()
        }
        fn send(&self, to: usize, tag: u16, bytes: &[u8]) {
            self.boxes.lock().unwrap()[to].push_back((self.rank, tag, bytes.to_vec()));
        }
        fn try_receive(&self, from: Option<usize>, tag: u16) -> Option<(usize, Vec<u8>)> {
            let mut boxes = self.boxes.lock().unwrap();
            let mine = &mut boxes[self.rank];
            let at = mine
                .iter()
                .position(|(s, t, _)| *t == tag && from.is_none_or(|f| f == *s))?;
            let (s, _, b) = mine.remove(at).expect("found");
            Some((s, b))
        }
    }

    /// `ranks` threads finding below `dir` together; what each rank counted, in rank order,
    /// and whether every mailbox was empty at the end (no message left behind).
    fn find_on(ranks: usize, dir: &Path) -> (Vec<Found>, bool) {
        let boxes: Boxes = Arc::new(Mutex::new(vec![VecDeque::new(); ranks]));
        let threads: Vec<_> = (0..ranks)
            .map(|rank| {
                let (boxes, dir) = (boxes.clone(), dir.to_path_buf());
                std::thread::spawn(move || {
                    let post = Post { rank, boxes };
                    find(&dir, &query(0), &post, &mut Queue::new()).unwrap()
                })
            })
            .collect();
        let found = threads.into_iter().map(|t| t.join().unwrap()).collect();
        let empty = boxes.lock().unwrap().iter().all(VecDeque::is_empty);
        (found, empty)
    }

    #[test]
    fn find_counts_as_pfind() {
        let d = tempfile::tempdir().unwrap();
        let sub = d.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        // Matches: name with "01" and 3 bytes. Not: wrong size, wrong name.
        for (name, bytes) in [("x01", 3), ("y01", 2), ("z02", 3), ("w101", 3)] {
            std::fs::write(sub.join(name), vec![0u8; bytes]).unwrap();
        }
        std::fs::write(d.path().join("top01"), b"abc").unwrap();
        let (alone, _) = find_on(1, d.path());
        assert_eq!(alone, vec![Found { total: 5, found: 3 }]);
        // Newer than now + an hour: nothing.
        let later = query(chrono::Utc::now().timestamp() + 3600);
        let one = Post {
            rank: 0,
            boxes: Arc::new(Mutex::new(vec![VecDeque::new()])),
        };
        assert_eq!(
            find(d.path(), &later, &one, &mut Queue::new())
                .unwrap()
                .found,
            0
        );
    }

    /// A directory for a planted tree in memory (/dev/shm when there is one), off the root
    /// disk: the agreement tests run right after these and time loop images on that disk,
    /// and 15,000 files made and removed there just before are writeback they could meet
    /// (bonnie's file rates failed in two CI runs once these tests were on disk; not shown
    /// to be the cause).
    fn in_memory() -> tempfile::TempDir {
        tempfile::tempdir_in("/dev/shm").unwrap_or_else(|_| tempfile::tempdir().unwrap())
    }

    /// A tree like io500's: a few small directories and some with more entries than a step
    /// reads (1,000) and than the stack holds (10,000 matching names), each with matches.
    fn planted(root: &Path) -> (u64, u64) {
        let (mut total, mut found) = (0, 0);
        for (i, n) in [10u64, 2_500, 0, 12_500].iter().enumerate() {
            let sub = root.join(format!("top/d{i}/leaf"));
            std::fs::create_dir_all(&sub).unwrap();
            for f in 0..*n {
                // Every name of d3 matches (more than the stack holds); elsewhere 1 in 10.
                let name = if i == 3 || f % 10 == 0 {
                    format!("m01.{f}")
                } else {
                    format!("f{f}")
                };
                let size = if f % 3 == 0 { 3 } else { 4 };
                std::fs::write(sub.join(&name), vec![0u8; size]).unwrap();
                total += 1;
                found += u64::from(name.contains("01") && size == 3);
            }
        }
        (total, found)
    }

    #[test]
    fn ranks_that_steal_count_every_file_once_and_leave_no_message() {
        let d = in_memory();
        let want = planted(d.path());
        let (alone, _) = find_on(1, d.path());
        assert_eq!((alone[0].total, alone[0].found), want);
        for ranks in [2, 3, 4] {
            for _ in 0..3 {
                let (parts, empty) = find_on(ranks, d.path());
                let total: u64 = parts.iter().map(|f| f.total).sum();
                let found: u64 = parts.iter().map(|f| f.found).sum();
                assert_eq!((total, found), want, "{ranks} ranks: {parts:?}");
                assert!(empty, "{ranks} ranks: a message was left unread");
            }
        }
    }

    #[test]
    fn half_the_stack_given_away_is_walked_whole_by_the_thief() {
        let d = in_memory();
        let want = planted(d.path());
        let q = query(0);
        let start = CString::new(d.path().as_os_str().as_bytes()).unwrap();
        let (mut a, mut b) = (Queue::new(), Queue::new());
        let mut w = Walker::new(&q, start.clone(), &mut a);
        w.seed();
        // The root, then "top": its four directories on the stack.
        while w.pending() < 4 {
            w.step();
        }
        let given = w.give();
        assert_eq!(w.pending(), 2);
        let mut thief = Walker::new(&q, start, &mut b);
        assert_eq!(thief.take(&given), 2);
        for walker in [&mut w, &mut thief] {
            while !walker.completed() {
                walker.step();
            }
        }
        let sum = (w.out.total + thief.out.total, w.out.found + thief.out.found);
        assert_eq!(sum, want);
        assert!(w.out.total > 0 && thief.out.total > 0, "both walked some");
    }
}
