//! Driver tests against a scripted asynchronous engine: no kernel, no clock in the answers,
//! so the queue-keeping contract is checked exactly: every reap is one engine call that pushes
//! out every refill at once, and the queue is full each time the driver waits.

use crate::thread::{drive, ThreadPlan};
use crate::{BufferPool, Completion, Engine, EngineError, EngineSpec, JobSpec, Op, Submit};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::fs::File;
use std::rc::Rc;

const BS: u32 = 4096;

/// What the driver asked of the engine at one reap (one "system call").
#[derive(Debug, Clone, Copy, PartialEq)]
struct Enter {
    /// Operations queued since the previous call, pushed out by this one.
    submitted: usize,
    /// Operations in flight when the call was made.
    in_flight: usize,
    /// Completions the driver asked to wait for.
    min: usize,
}

/// An engine whose device finishes the `ready` oldest operations per call (at least `min`):
/// submit only queues (as io_uring's SQ ring), reap is the one call that submits and collects.
struct Scripted {
    pool: BufferPool,
    queued: Vec<Op>,
    device: VecDeque<Op>,
    ready: usize,
    log: Rc<RefCell<Vec<Enter>>>,
}

impl Engine for Scripted {
    fn name(&self) -> &'static str {
        "scripted"
    }
    fn depth(&self) -> usize {
        self.pool.slots()
    }
    fn in_flight(&self) -> usize {
        self.queued.len() + self.device.len()
    }
    fn buffers(&self) -> &BufferPool {
        &self.pool
    }
    fn buffers_mut(&mut self) -> &mut BufferPool {
        &mut self.pool
    }
    fn add_file(&mut self, _file: File) -> Result<u32, EngineError> {
        Ok(0)
    }
    fn remove_file(&mut self, _id: u32) -> Option<File> {
        None
    }
    fn submit(&mut self, op: Op) -> Result<Submit, EngineError> {
        if self.in_flight() == self.depth() {
            return Ok(Submit::Busy);
        }
        self.queued.push(op);
        Ok(Submit::Queued)
    }
    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> Result<usize, EngineError> {
        self.log.borrow_mut().push(Enter {
            submitted: self.queued.len(),
            in_flight: self.in_flight(),
            min,
        });
        self.device.extend(self.queued.drain(..));
        let n = self.ready.max(min).min(self.device.len());
        for op in self.device.drain(..n) {
            out.push(Completion {
                op,
                result: op.len as i32,
            });
        }
        Ok(n)
    }
}

/// Drive `ops` reads at `depth` with `ready` completions per call; the calls and the result.
fn run(depth: usize, ready: usize, ops: u64) -> (Vec<Enter>, crate::thread::ThreadResult) {
    // A reap batch of 1 (not the auto default): the refill pattern is checked per completion.
    let spec = JobSpec {
        engine: EngineSpec::io_uring(crate::UringOptions {
            depth: depth as u32,
            batch: 1,
            ..Default::default()
        }),
        ..JobSpec::new("/nonexistent", 1 << 20, BS)
    };
    let base = vec![0u8; BS as usize];
    let job = spec.thread_job();
    let plan = ThreadPlan {
        job: &job,
        base: &base,
        first: 0,
        blocks: spec.blocks(),
        quota: ops,
        runtime_ns: u64::MAX,
        seed: 1,
    };
    let log = Rc::new(RefCell::new(Vec::new()));
    let engine = Scripted {
        pool: BufferPool::new(depth, BS as usize, 4096),
        queued: Vec::new(),
        device: VecDeque::new(),
        ready,
        log: Rc::clone(&log),
    };
    let res = drive(engine, 0, &plan).unwrap();
    let calls = log.borrow().clone();
    (calls, res)
}

#[test]
fn every_wait_finds_the_queue_full_and_refills_go_out_in_one_call() {
    for (depth, ready) in [(8, 3), (32, 1), (32, 32), (1, 1), (128, 5)] {
        let ops = 5_000;
        let (calls, res) = run(depth, ready, ops);
        assert_eq!(res.ops[0], ops);
        // One engine call per reap, and every reap asks to wait for one completion only.
        assert_eq!(calls.len() as u64, res.reaps);
        assert!(calls.iter().all(|c| c.min == 1), "{depth}/{ready}");
        // Until the quota runs out, every call finds `depth` in flight and pushes out exactly
        // the refills of the previous call's completions, together.
        let full = ((ops - depth as u64) / ready as u64) as usize;
        assert_eq!(
            calls[0].submitted, depth,
            "first call submits the whole queue"
        );
        for (i, c) in calls.iter().enumerate().take(full + 1) {
            assert_eq!(
                c.in_flight, depth,
                "call {i} at depth {depth}/{ready}: {c:?}"
            );
            if i > 0 {
                assert_eq!(c.submitted, ready.min(depth), "call {i}: {c:?}");
            }
        }
        // Then at most one partial refill, and the tail only drains.
        assert!(calls.iter().skip(full + 2).all(|c| c.submitted == 0));
        let submitted: usize = calls.iter().map(|c| c.submitted).sum();
        assert_eq!(submitted as u64, ops);
        let mean = res.mean_depth();
        assert!(mean <= depth as f64 + 1e-9, "mean depth {mean} at {depth}");
    }
}

#[test]
fn mean_depth_counts_the_time_the_queue_was_full() {
    // 20 000 reads at depth 16, 2 per call: the queue drains only in the last 8 calls of
    // ~10 000, so the time-weighted mean is within a few percent of 16. A preemption during
    // those last calls could stretch them on a loaded machine: any of five runs may show it.
    let means: Vec<f64> = (0..5).map(|_| run(16, 2, 20_000).1.mean_depth()).collect();
    assert!(means.iter().all(|m| *m <= 16.0 + 1e-9), "{means:?}");
    assert!(means.iter().any(|m| *m >= 15.0), "{means:?}");
}

/// A source that takes `think` to prepare each of its writes (as a rate limit's sleep or a
/// pass's invalidation would) and keeps each latency the driver hands back.
struct Slow {
    left: u32,
    think: std::time::Duration,
    latencies: Vec<u64>,
}

impl crate::OpSource for Slow {
    type Error = EngineError;
    fn next(&mut self, slot: u16, _bufs: &mut BufferPool, now: u64) -> Option<Op> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        std::thread::sleep(self.think);
        Some(Op {
            kind: crate::OpKind::Write,
            offset: 0,
            len: BS,
            slot,
            file: 0,
            issued_ns: now,
        })
    }
    fn complete(
        &mut self,
        c: &Completion,
        now: u64,
        _bufs: &BufferPool,
    ) -> Result<(), EngineError> {
        self.latencies.push(now.saturating_sub(c.op.issued_ns));
        Ok(())
    }
}

#[test]
fn a_latency_starts_when_the_operation_is_submitted_not_while_it_is_prepared() {
    let engine = Scripted {
        pool: BufferPool::new(1, BS as usize, 4096),
        queued: Vec::new(),
        device: VecDeque::new(),
        ready: 1,
        log: Rc::new(RefCell::new(Vec::new())),
    };
    let mut driver = crate::Driver::new(engine, 1);
    let mut src = Slow {
        left: 3,
        think: std::time::Duration::from_millis(20),
        latencies: Vec::new(),
    };
    driver.run(&mut src).unwrap();
    // Each write spent 20 ms in its source; the scripted device finishes it at the next
    // call. Stamped before the source ran, each latency would be over 20 ms.
    assert_eq!(src.latencies.len(), 3);
    assert!(
        src.latencies.iter().all(|&ns| ns < 10_000_000),
        "latencies (ns) include the preparation: {:?}",
        src.latencies
    );
}
