//! Running a helper program (an interpreter, a C library loader) with a time limit and capped
//! output.

use std::io::Read;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// The most output kept from each stream.
const CAP: usize = 1024 * 1024;

/// What a finished program left.
pub(crate) struct Finished {
    pub(crate) status: ExitStatus,
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: Vec<u8>,
}

/// Why a program did not finish.
pub(crate) enum RunError {
    /// It could not be started.
    Spawn(std::io::Error),
    /// It ran past the limit and was killed.
    TimedOut,
    /// Waiting for it failed.
    Wait(std::io::Error),
}

fn reader(stream: Option<impl Read + Send + 'static>) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(stream) = stream {
            let mut limited = stream.take(CAP as u64);
            let _ = limited.read_to_end(&mut out);
            // Drain the rest so the program never blocks on a full pipe.
            let _ = std::io::copy(&mut limited.into_inner(), &mut std::io::sink());
        }
        out
    })
}

/// Runs `command` with stdin closed, collecting stdout and stderr (1 MiB each at most), and
/// kills it when `timeout` passes.
pub(crate) fn run(command: &mut Command, timeout: Duration) -> Result<Finished, RunError> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().map_err(RunError::Spawn)?;
    let out = reader(child.stdout.take());
    let err = reader(child.stderr.take());
    let status = wait(&mut child, timeout)?;
    // The readers end when the program and anything it started close the pipes.
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    Ok(Finished {
        status,
        stdout,
        stderr,
    })
}

fn wait(child: &mut Child, timeout: Duration) -> Result<ExitStatus, RunError> {
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_micros(200);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) => {}
            Err(e) => return Err(RunError::Wait(e)),
        }
        let now = Instant::now();
        if now >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(RunError::TimedOut);
        }
        thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// The last `max` bytes of `bytes` as text, trimmed.
pub(crate) fn tail(bytes: &[u8], max: usize) -> String {
    let start = bytes.len().saturating_sub(max);
    String::from_utf8_lossy(&bytes[start..]).trim().to_owned()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn collects_output_and_status() {
        let done = run(
            Command::new("sh").args(["-c", "echo out; echo err >&2; exit 3"]),
            Duration::from_secs(10),
        )
        .ok()
        .unwrap();
        assert_eq!(done.stdout, b"out\n");
        assert_eq!(done.stderr, b"err\n");
        assert_eq!(done.status.code(), Some(3));
    }

    #[test]
    fn kills_at_the_limit() {
        let started = Instant::now();
        let result = run(
            Command::new("sh").args(["-c", "exec sleep 30"]),
            Duration::from_millis(200),
        );
        assert!(matches!(result, Err(RunError::TimedOut)));
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_missing_program_does_not_start() {
        let result = run(
            &mut Command::new("/nonexistent/program"),
            Duration::from_secs(1),
        );
        assert!(matches!(result, Err(RunError::Spawn(_))));
    }
}
