//! The supervisor: runs a target's cases in a worker process, survives its
//! crashes and hangs, and writes every finding with its reproducer.

use crate::targets::Target;
use crate::worker;
use crate::Options;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Reproducer files kept per kind of finding; further instances are counted.
const FILES_PER_KIND: usize = 5;

/// One running worker: its process, its stdout lines, its stderr tail.
struct Worker {
    child: Child,
    lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
}

/// Starts a worker for cases `start..end`.
fn spawn(target: &dyn Target, opts: &Options, start: u64, end: u64) -> std::io::Result<Worker> {
    let mut child = Command::new(std::env::current_exe()?)
        .arg(target.name())
        .args(["--cases", &end.to_string()])
        .args(["--seed", &opts.seed.to_string()])
        .args(["--worker", &start.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let (tx, lines) = mpsc::channel();
    let stdout = child.stdout.take().expect("piped");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let stderr = Arc::new(Mutex::new(String::new()));
    let tail = Arc::clone(&stderr);
    let mut err = child.stderr.take().expect("piped");
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = err.read(&mut buf) {
            if n == 0 {
                break;
            }
            let mut t = tail.lock().unwrap_or_else(|p| p.into_inner());
            t.push_str(&String::from_utf8_lossy(&buf[..n]));
            if t.len() > 4096 {
                let cut = t.len() - 2048;
                let cut = (cut..t.len()).find(|&i| t.is_char_boundary(i)).unwrap_or(0);
                t.drain(..cut);
            }
        }
    });
    Ok(Worker {
        child,
        lines,
        stderr,
    })
}

/// Counts and files of one run.
struct Tally<'a> {
    target: &'a dyn Target,
    opts: &'a Options,
    dir: PathBuf,
    by_kind: HashMap<String, usize>,
    failures: u64,
    known: HashMap<String, u64>,
}

impl Tally<'_> {
    /// Records a finding of case `case`.
    fn finding(&mut self, case: u64, class: &str, message: &str) {
        let known = self
            .opts
            .known_open
            .iter()
            .find(|k| class == k.as_str() || message.contains(k.as_str()));
        match known {
            Some(k) => *self.known.entry(k.clone()).or_default() += 1,
            None => self.failures += 1,
        }
        // One kind per class and place (a panic's location), so that one
        // bug does not write thousands of files.
        let kind = match message.rsplit_once(" at ") {
            Some((_, place)) if class == "panic" => format!("{class} {place}"),
            _ => class.to_string(),
        };
        let n = self.by_kind.entry(kind).or_default();
        *n += 1;
        if *n == 1 || (known.is_none() && *n <= FILES_PER_KIND) {
            if let Err(e) = self.write(case, class, message) {
                eprintln!("error: cannot write the finding of case {case}: {e}");
            }
        }
        eprintln!(
            "{}: case {case}: {class}: {}",
            self.target.name(),
            message.chars().take(300).collect::<String>()
        );
    }

    fn write(&self, case: u64, class: &str, message: &str) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let t = self.target;
        let stem = format!("{class}-seed{}-case{case}", self.opts.seed);
        let input_path = self.dir.join(format!("{stem}.{}", t.extension()));
        let input = worker::input(t, self.opts.seed, case);
        std::fs::write(&input_path, &input)?;
        let shown = input_path.display();
        let command = match t.name() {
            "expr" => format!("rangefinder simplify --batch {shown}"),
            "map" => format!("rangefinder map \"$(cat {shown})\""),
            "hlo" => format!("rangefinder hlo {shown} [--instruction NAME] [--input-to-output] [--to-parameters]"),
            "tc" => format!("rangefinder tc {shown} --run --size NAME=VALUE... (the sizes of its first line; 5 for the others)"),
            "layout" => format!("rangefinder layout --shape \"$(sed -n 1p {shown})\" --map \"$(sed -n 2p {shown})\" [--index \"$(sed -n 3p {shown})\"] --inverse"),
            _ => format!("rangefinder te {shown} --run"),
        };
        let note = format!(
            "target: {}\nclass: {class}\nmessage: {message}\ninput: {shown}\nreproduce: cargo run -p fuzz --profile fuzz -- {} --input {shown}\n(or --seed {} --case {case} with this version of the generators)\nor: {command}\n",
            t.name(),
            t.name(),
            self.opts.seed
        );
        std::fs::write(self.dir.join(format!("{stem}.txt")), note)
    }
}

/// What one shard of a run found.
struct Shard<'a> {
    tally: Tally<'a>,
    accepted: u64,
    /// The slowest case and its time in microseconds.
    slowest: (u64, u64),
    /// Whether the shard ran to its end (a worker that stops without a
    /// crash is a harness failure).
    complete: bool,
}

/// Runs cases `lo..hi` of `target` in a worker process, restarting it after
/// every crash or hang.
fn run_shard<'a>(target: &'a dyn Target, opts: &'a Options, lo: u64, hi: u64) -> Shard<'a> {
    let mut tally = Tally {
        target,
        opts,
        dir: opts.findings.join(target.name()),
        by_kind: HashMap::new(),
        failures: 0,
        known: HashMap::new(),
    };
    let timeout = Duration::from_secs(opts.timeout.max(1));
    let mut next = lo;
    let mut restarts = 0;
    let mut accepted = 0u64;
    let mut slowest = (0u64, 0u64);
    let mut complete = true;
    while next < hi {
        let mut w = match spawn(target, opts, next, hi) {
            Ok(w) => w,
            Err(e) => {
                eprintln!("error: cannot start the worker: {e}");
                complete = false;
                break;
            }
        };
        let mut pending: Option<u64> = None;
        loop {
            match w.lines.recv_timeout(timeout) {
                Ok(line) => {
                    let mut parts = line.splitn(4, ' ');
                    let (word, case) = (parts.next(), parts.next().and_then(|c| c.parse().ok()));
                    match (word, case) {
                        (Some("start"), Some(c)) => pending = Some(c),
                        (Some("ok"), Some(c)) => {
                            pending = None;
                            next = c + 1;
                            accepted += u64::from(parts.next() == Some("1"));
                            let us: u64 = parts.next().and_then(|t| t.parse().ok()).unwrap_or(0);
                            if us > slowest.1 {
                                slowest = (c, us);
                            }
                        }
                        (Some("fail"), Some(c)) => {
                            pending = None;
                            next = c + 1;
                            let class = parts.next().unwrap_or("fail");
                            tally.finding(c, class, parts.next().unwrap_or(""));
                        }
                        _ => {}
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    let _ = w.child.kill();
                    let _ = w.child.wait();
                    if let Some(c) = pending {
                        tally.finding(
                            c,
                            "timeout",
                            &format!("still running after {} s", timeout.as_secs()),
                        );
                        next = c + 1;
                    }
                    break;
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = w.child.wait();
                    if let Some(c) = pending {
                        // Give the stderr reader a moment to collect the
                        // runtime's last words.
                        std::thread::sleep(Duration::from_millis(20));
                        let tail = w.stderr.lock().map(|t| t.clone()).unwrap_or_default();
                        let last = tail
                            .lines()
                            .rev()
                            .find(|l| !l.trim().is_empty())
                            .unwrap_or("");
                        let status = status.map(|s| s.to_string()).unwrap_or_default();
                        let class = if tail.contains("overflowed its stack") {
                            "stack-overflow"
                        } else {
                            "abort"
                        };
                        tally.finding(c, class, &format!("worker died ({status}): {last}"));
                        next = c + 1;
                    } else if next < hi {
                        eprintln!("error: the worker stopped before case {next} without a crash");
                        complete = false;
                        next = hi;
                    }
                    break;
                }
            }
        }
        restarts += 1;
        if restarts > hi - lo + 1 {
            break;
        }
    }
    Shard {
        tally,
        accepted,
        slowest,
        complete,
    }
}

/// Runs every case of `target` in `opts.jobs` workers side by side; prints
/// a summary and returns whether there were no findings outside the
/// known-open classes.
pub fn run(target: &dyn Target, opts: &Options) -> bool {
    let started = Instant::now();
    let jobs = opts.jobs.clamp(1, opts.cases.max(1));
    let shards: Vec<Shard<'_>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..jobs)
            .map(|k| {
                let lo = opts.cases * k / jobs;
                let hi = opts.cases * (k + 1) / jobs;
                scope.spawn(move || run_shard(target, opts, lo, hi))
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let complete = shards.len() as u64 == jobs && shards.iter().all(|s| s.complete);
    let accepted: u64 = shards.iter().map(|s| s.accepted).sum();
    let slowest = shards
        .iter()
        .map(|s| s.slowest)
        .max_by_key(|s| s.1)
        .unwrap_or((0, 0));
    let failures: u64 = shards.iter().map(|s| s.tally.failures).sum();
    let mut known: HashMap<String, u64> = HashMap::new();
    for s in &shards {
        for (k, n) in &s.tally.known {
            *known.entry(k.clone()).or_default() += n;
        }
    }
    let dir = opts.findings.join(target.name());
    let secs = started.elapsed().as_secs_f64();
    println!(
        "fuzz {}: {} cases ({} accepted by the front end), seed {}, {:.1} s ({:.0} cases/s), {} findings{}",
        target.name(),
        opts.cases,
        accepted,
        opts.seed,
        secs,
        opts.cases as f64 / secs.max(1e-9),
        failures,
        if failures > 0 {
            format!(" (written to {})", dir.display())
        } else {
            String::new()
        }
    );
    println!(
        "fuzz {}: slowest case {} ({:.1} ms)",
        target.name(),
        slowest.0,
        slowest.1 as f64 / 1000.0
    );
    for (k, n) in &known {
        println!(
            "note: {n} findings of the known-open class `{k}` (class or message containing it) were not counted (--known-open {k})"
        );
    }
    failures == 0 && complete
}
