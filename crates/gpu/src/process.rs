//! Running a program with a time limit and capped output: the probe child, and `nvidia-smi`.

use std::io::Read;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// Limits for one run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    pub(crate) timeout: Duration,
    /// Bytes of stdout kept; the rest is read and dropped.
    pub(crate) stdout_cap: usize,
    /// Bytes of stderr kept.
    pub(crate) stderr_cap: usize,
    /// Start the program in a process group of its own, and kill the whole group on timeout
    /// (Unix). Off for a program started by the probe child, which is already in the probe's
    /// group, so that killing the probe kills it too.
    pub(crate) own_group: bool,
}

/// Captured output.
#[derive(Debug, Default)]
pub(crate) struct Captured {
    pub(crate) bytes: Vec<u8>,
    /// More was written than the cap kept.
    pub(crate) truncated: bool,
}

/// How a run ended.
#[derive(Debug)]
pub(crate) enum Ran {
    Exited {
        status: ExitStatus,
        stdout: Captured,
        stderr: Captured,
    },
    TimedOut,
    SpawnFailed(std::io::Error),
}

/// Runs `command` with stdin closed, stdout and stderr captured up to the caps, and kills it
/// (with its process group) when `limits.timeout` passes.
pub(crate) fn run(mut command: Command, limits: Limits) -> Ran {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    if limits.own_group {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let start = Instant::now();
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(error) => return Ran::SpawnFailed(error),
    };
    let stdout = child.stdout.take().map(|s| reader(s, limits.stdout_cap));
    let stderr = child.stderr.take().map(|s| reader(s, limits.stderr_cap));

    let deadline = start + limits.timeout;
    let mut pause = Duration::from_millis(1);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(_) => break None,
        }
        let now = Instant::now();
        if now >= deadline {
            kill(&mut child, limits.own_group);
            let _ = child.wait();
            return Ran::TimedOut;
        }
        thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(20));
    };
    let Some(status) = status else {
        kill(&mut child, limits.own_group);
        let status = child.wait();
        return match status {
            Ok(status) => Ran::Exited {
                status,
                stdout: collect(stdout, Duration::from_millis(500)),
                stderr: collect(stderr, Duration::from_millis(500)),
            },
            Err(error) => Ran::SpawnFailed(error),
        };
    };
    // The pipes close when the program exits, unless it left a process behind holding them: wait
    // for the readers until the deadline (and a little), never longer.
    let grace = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(100));
    Ran::Exited {
        status,
        stdout: collect(stdout, grace),
        stderr: collect(stderr, grace),
    }
}

fn reader<R: Read + Send + 'static>(mut source: R, cap: usize) -> mpsc::Receiver<Captured> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut captured = Captured::default();
        let mut chunk = [0u8; 8192];
        loop {
            match source.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = cap.saturating_sub(captured.bytes.len());
                    captured.bytes.extend_from_slice(&chunk[..n.min(room)]);
                    captured.truncated |= n > room;
                }
            }
        }
        let _ = tx.send(captured);
    });
    rx
}

fn collect(rx: Option<mpsc::Receiver<Captured>>, wait: Duration) -> Captured {
    rx.and_then(|rx| rx.recv_timeout(wait).ok())
        .unwrap_or_default()
}

#[cfg(unix)]
fn kill(child: &mut Child, group: bool) {
    if group {
        if let Ok(pid) = libc::pid_t::try_from(child.id()) {
            // SAFETY: kill(2) has no memory-safety preconditions. The child has not been reaped
            // (we have not waited on it), so its pid, and the process group it leads, still
            // belong to it and cannot name an unrelated process.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        }
    }
    let _ = child.kill();
}

#[cfg(not(unix))]
fn kill(child: &mut Child, _group: bool) {
    let _ = child.kill();
}

/// The end of `bytes` as text, at most `max` bytes, for a note.
pub(crate) fn tail(bytes: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim();
    if text.len() <= max {
        return text.to_owned();
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("…{}", &text[start..])
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut command = Command::new("/bin/sh");
        command.arg("-c").arg(script);
        command
    }

    fn limits(ms: u64) -> Limits {
        Limits {
            timeout: Duration::from_millis(ms),
            stdout_cap: 16,
            stderr_cap: 1024,
            own_group: true,
        }
    }

    #[test]
    fn captures_output_and_status() {
        match run(sh("printf hello; printf oops >&2; exit 3"), limits(5000)) {
            Ran::Exited {
                status,
                stdout,
                stderr,
            } => {
                assert_eq!(status.code(), Some(3));
                assert_eq!(stdout.bytes, b"hello");
                assert!(!stdout.truncated);
                assert_eq!(stderr.bytes, b"oops");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn caps_output() {
        match run(
            sh("i=0; while [ $i -lt 100 ]; do printf 0123456789; i=$((i+1)); done"),
            limits(5000),
        ) {
            Ran::Exited { stdout, .. } => {
                assert_eq!(stdout.bytes.len(), 16);
                assert!(stdout.truncated);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn kills_the_whole_group_on_timeout() {
        let start = Instant::now();
        // The grandchild holds the pipes open; killing only the shell would leave it running.
        let ran = run(sh("/bin/sleep 30 & /bin/sleep 30"), limits(200));
        assert!(matches!(ran, Ran::TimedOut), "{ran:?}");
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn reports_a_missing_program() {
        let ran = run(Command::new("/nonexistent/program"), limits(1000));
        assert!(matches!(ran, Ran::SpawnFailed(_)), "{ran:?}");
    }

    #[test]
    fn tails_are_short() {
        assert_eq!(tail(b"  abc \n", 10), "abc");
        assert_eq!(tail("ééééé".as_bytes(), 3), "…é");
    }
}
