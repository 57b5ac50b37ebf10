//! One run of a program: input written, output captured, one deadline, the group killed.

use std::io::{Read, Write};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::group::Group;

/// Output captured from one stream, up to a cap.
///
/// ```
/// # #[cfg(unix)] {
/// use std::process::Command;
/// use std::time::Duration;
/// use markerspec_process::Run;
///
/// let mut yes = Command::new("/bin/sh");
/// yes.args(["-c", "printf 'abcdef'"]);
/// let output = Run::new(Duration::from_secs(5)).stdout_cap(3).run(&mut yes).unwrap();
/// assert!(output.status.success());
/// assert_eq!(output.stdout.bytes, b"abc");
/// assert!(output.stdout.truncated);
/// # }
/// ```
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Capture {
    /// The first bytes the program wrote, at most the cap.
    pub bytes: Vec<u8>,
    /// It wrote more than the cap kept.
    pub truncated: bool,
}

/// What a finished program left.
///
/// ```
/// # #[cfg(unix)] {
/// use std::process::Command;
/// use std::time::Duration;
/// use markerspec_process::Run;
///
/// let mut command = Command::new("/bin/sh");
/// command.args(["-c", "echo out; echo err >&2; exit 3"]);
/// let output = Run::new(Duration::from_secs(5)).run(&mut command).unwrap();
/// assert_eq!(output.status.code(), Some(3));
/// assert_eq!(output.stdout.bytes, b"out\n");
/// assert_eq!(output.stderr.bytes, b"err\n");
/// # }
/// ```
#[derive(Debug)]
pub struct Output {
    /// How the program (the group's leader) ended.
    pub status: ExitStatus,
    /// Its standard output.
    pub stdout: Capture,
    /// Its standard error.
    pub stderr: Capture,
}

/// Why a run gave no [`Output`].
///
/// ```
/// # #[cfg(unix)] {
/// use std::process::Command;
/// use std::time::Duration;
/// use markerspec_process::{Error, Run};
///
/// let mut slow = Command::new("/bin/sh");
/// slow.args(["-c", "echo started; sleep 30"]);
/// match Run::new(Duration::from_millis(300)).run(&mut slow) {
///     Err(Error::TimedOut { stdout, .. }) => assert_eq!(stdout.bytes, b"started\n"),
///     other => panic!("expected a time-out, got {other:?}"),
/// }
/// let missing = Run::new(Duration::from_secs(1)).run(&mut Command::new("/nonexistent"));
/// assert!(matches!(missing, Err(Error::Spawn(_))));
/// # }
/// ```
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The program could not be started.
    #[error("could not start: {0}")]
    Spawn(#[source] std::io::Error),
    /// The deadline passed; the group was killed. What it wrote until then is kept.
    #[error("did not finish within {after:?} and was killed")]
    TimedOut {
        /// The time limit.
        after: Duration,
        /// Standard output until the kill.
        stdout: Capture,
        /// Standard error until the kill.
        stderr: Capture,
    },
    /// Waiting for the program failed (the group was killed).
    #[error("waiting for it failed: {0}")]
    Wait(#[source] std::io::Error),
}

/// How to run a program: its time limit, output caps, input, and group.
///
/// ```
/// # #[cfg(unix)] {
/// use std::process::Command;
/// use std::time::Duration;
/// use markerspec_process::{Error, Run};
///
/// let result = Run::new(Duration::from_millis(100)).run(Command::new("/bin/sleep").arg("5"));
/// assert!(matches!(result, Err(Error::TimedOut { .. })));
///
/// // Input, output caps, and the caller's own process group.
/// let mut command = Command::new("/bin/sh");
/// command.args(["-c", "cat; echo 'a long complaint' >&2"]);
/// let output = Run::new(Duration::from_secs(5))
///     .stdin("hello")
///     .stdout_cap(4)
///     .stderr_cap(6)
///     .in_current_group()
///     .run(&mut command)
///     .unwrap();
/// assert_eq!(output.stdout.bytes, b"hell");
/// assert!(output.stdout.truncated);
/// assert_eq!(output.stderr.bytes, b"a long");
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Run {
    timeout: Duration,
    stdout_cap: usize,
    stderr_cap: usize,
    stdin: Option<Vec<u8>>,
    own_group: bool,
}

impl Run {
    /// A run with this time limit, 1 MiB of stdout and 64 KiB of stderr kept, stdin closed,
    /// in a process group of its own.
    ///
    /// See the example on [`Run`].
    #[must_use]
    pub fn new(timeout: Duration) -> Run {
        Run {
            timeout,
            stdout_cap: 1024 * 1024,
            stderr_cap: 64 * 1024,
            stdin: None,
            own_group: true,
        }
    }

    /// How many bytes of stdout to keep (the rest is read and dropped).
    ///
    /// See the example on [`Run`].
    #[must_use]
    pub fn stdout_cap(mut self, cap: usize) -> Run {
        self.stdout_cap = cap;
        self
    }

    /// How many bytes of stderr to keep.
    ///
    /// See the example on [`Run`].
    #[must_use]
    pub fn stderr_cap(mut self, cap: usize) -> Run {
        self.stderr_cap = cap;
        self
    }

    /// Bytes to write to the program's stdin (then closed). Writing counts against the same
    /// deadline: a program that never reads is killed when it passes.
    ///
    /// See the example on [`Run`].
    #[must_use]
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Run {
        self.stdin = Some(bytes.into());
        self
    }

    /// Runs the program in this process's group instead of a new one, so that whoever kills
    /// this process's group kills it too (for a helper started inside a child that is itself
    /// group-killed). On timeout only the program itself is killed.
    ///
    /// See the example on [`Run`].
    #[must_use]
    pub fn in_current_group(mut self) -> Run {
        self.own_group = false;
        self
    }

    /// Runs `command` (its stdio is replaced by pipes) and waits for it, never past the time
    /// limit. On every return the program's group has been killed and the program reaped.
    ///
    /// # Errors
    /// See [`Error`].
    pub fn run(&self, command: &mut Command) -> Result<Output, Error> {
        let deadline = Instant::now() + self.timeout;
        command
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut group = if self.own_group {
            Group::spawn(command)
        } else {
            Group::spawn_in_current_group(command)
        }
        .map_err(Error::Spawn)?;
        let child = group.child_mut();
        let stdout = child
            .stdout
            .take()
            .map(|s| Reader::start(s, self.stdout_cap));
        let stderr = child
            .stderr
            .take()
            .map(|s| Reader::start(s, self.stderr_cap));
        if let (Some(mut pipe), Some(bytes)) = (child.stdin.take(), self.stdin.clone()) {
            // A thread, so that a program that stops reading blocks the thread (until the
            // group is killed and the pipe breaks), never the caller.
            thread::spawn(move || {
                let _ = pipe.write_all(&bytes);
            });
        }
        let exited = group.wait_until(deadline);
        // The group goes on every path: after a normal exit it takes helpers the program left
        // behind (which would hold the pipes open), after the deadline the program itself.
        let status = group.finish();
        let collect = |reader: Option<Reader>| {
            reader
                .map(|r| r.collect(deadline.max(Instant::now() + GRACE)))
                .unwrap_or_default()
        };
        match exited {
            Ok(true) => {}
            Ok(false) => {
                return Err(Error::TimedOut {
                    after: self.timeout,
                    stdout: collect(stdout),
                    stderr: collect(stderr),
                });
            }
            Err(e) => return Err(Error::Wait(e)),
        }
        let status = status.map_err(Error::Wait)?;
        Ok(Output {
            status,
            stdout: collect(stdout),
            stderr: collect(stderr),
        })
    }
}

/// How long to wait for the readers to drain pipes once the group is dead, when the deadline
/// has already passed.
const GRACE: Duration = Duration::from_millis(50);

/// A thread reading one pipe into a capped buffer.
struct Reader {
    captured: Arc<Mutex<Capture>>,
    done: Receiver<()>,
}

impl Reader {
    fn start(mut source: impl Read + Send + 'static, cap: usize) -> Reader {
        let captured = Arc::new(Mutex::new(Capture::default()));
        let sink = Arc::clone(&captured);
        let (tx, done) = mpsc::channel();
        thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            loop {
                match source.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => {
                        let mut c = sink
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner);
                        let room = cap.saturating_sub(c.bytes.len());
                        c.bytes.extend_from_slice(&chunk[..n.min(room)]);
                        c.truncated |= n > room;
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            let _ = tx.send(());
        });
        Reader { captured, done }
    }

    /// What was read once the pipe closed, or by `deadline` (a process that escaped the group
    /// may hold the pipe open; its reader is then left behind).
    fn collect(self, deadline: Instant) -> Capture {
        let wait = deadline.saturating_duration_since(Instant::now());
        let _ = self.done.recv_timeout(wait);
        let c = self
            .captured
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        c.clone()
    }
}
