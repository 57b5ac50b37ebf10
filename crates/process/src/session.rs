//! A long-running child spoken to in lines: requests written to its stdin, responses read
//! from its stdout, each exchange under a deadline.

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::group::Group;

/// How many bytes of stderr a [`Session`] keeps (the most recent ones).
const STDERR_KEPT: usize = 4096;

/// One line read from a [`Session`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// A line, without its `\n` (or `\r\n`).
    Text(Vec<u8>),
    /// A line longer than the session's limit; it was skipped to its end.
    TooLong,
    /// The program closed its stdout (it exited, most likely).
    Eof,
    /// No line before the deadline.
    TimedOut,
}

/// Why [`Session::send`] did not deliver a request.
///
/// ```
/// # #[cfg(unix)] {
/// use std::process::Command;
/// use std::time::{Duration, Instant};
/// use markerspec_process::{Line, SendError, Session};
///
/// // A program that exits at once: its stdin closes, and sending fails.
/// let mut done = Session::spawn(&mut Command::new("/bin/true"), 1024).unwrap();
/// let deadline = Instant::now() + Duration::from_secs(5);
/// assert_eq!(done.read_line(deadline), Line::Eof);
/// let mut result = Ok(());
/// for _ in 0..100 {
///     result = done.send(vec![b'x'; 1 << 16], deadline);
///     if result.is_err() {
///         break;
///     }
/// }
/// assert!(matches!(result, Err(SendError::Closed(_))));
/// # }
/// ```
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    /// The program no longer reads (its stdin is closed; it exited, most likely).
    #[error("the program no longer reads its input: {0}")]
    Closed(#[source] io::Error),
    /// The program did not take the bytes before the deadline (it stopped reading).
    #[error("the program did not take the request before the deadline")]
    TimedOut,
}

/// How a [`Session`] ended.
#[derive(Debug)]
pub struct Ended {
    /// The program's exit status (killed, most likely).
    pub status: io::Result<ExitStatus>,
    /// The last bytes (at most 4 KiB) it wrote on stderr, read after the kill.
    pub stderr_tail: Vec<u8>,
}

/// A running program spoken to in lines, in a process group of its own.
///
/// Writes go through a thread and reads come from a thread, so every call returns by its
/// deadline whatever the program does. Dropping the session (or [`close`](Self::close),
/// [`kill`](Self::kill)) kills the group and reaps the program.
///
/// ```
/// # #[cfg(unix)] {
/// use std::process::Command;
/// use std::time::{Duration, Instant};
/// use markerspec_process::{Line, Session};
///
/// let mut cat = Session::spawn(&mut Command::new("/bin/cat"), 1024).unwrap();
/// let deadline = Instant::now() + Duration::from_secs(5);
/// cat.send(b"ping\n".to_vec(), deadline).unwrap();
/// assert_eq!(cat.read_line(deadline), Line::Text(b"ping".to_vec()));
/// // Closing stdin asks `cat` to exit; it does, within the grace period.
/// let ended = cat.close(Duration::from_secs(5));
/// assert!(ended.status.unwrap().success());
///
/// // A program that complains on stderr, then is killed.
/// let mut command = Command::new("/bin/sh");
/// command.args(["-c", "echo oops >&2; echo ready; sleep 30"]);
/// let mut noisy = Session::spawn(&mut command, 1024).unwrap();
/// assert_eq!(noisy.read_line(deadline), Line::Text(b"ready".to_vec()));
/// while noisy.stderr_tail().is_empty() && Instant::now() < deadline {
///     std::thread::sleep(Duration::from_millis(10));
/// }
/// assert_eq!(noisy.stderr_tail(), b"oops\n");
/// let ended = noisy.kill();
/// assert!(!ended.status.unwrap().success());
/// assert_eq!(ended.stderr_tail, b"oops\n");
/// # }
/// ```
#[derive(Debug)]
pub struct Session {
    group: Group,
    requests: Option<Sender<Vec<u8>>>,
    acks: Receiver<io::Result<()>>,
    lines: Receiver<Line>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    stderr_done: Receiver<()>,
}

impl Session {
    /// Starts `command` with piped stdio in a new process group. Lines longer than
    /// `max_line` bytes are reported as [`Line::TooLong`].
    ///
    /// # Errors
    /// The program could not be started.
    ///
    /// See the example on [`Session`].
    pub fn spawn(command: &mut Command, max_line: usize) -> io::Result<Session> {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut group = Group::spawn(command)?;
        let child = group.child_mut();
        let (Some(mut stdin), Some(stdout), Some(mut stderr_pipe)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(io::Error::other("the program's pipes were not set up"));
        };

        let (requests, incoming) = mpsc::channel::<Vec<u8>>();
        let (ack, acks) = mpsc::channel();
        thread::spawn(move || {
            for bytes in incoming {
                let written = stdin.write_all(&bytes).and_then(|()| stdin.flush());
                let failed = written.is_err();
                if ack.send(written).is_err() || failed {
                    break;
                }
            }
        });

        let (line_tx, lines) = mpsc::channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let line = read_bounded_line(&mut reader, max_line);
                let end = line == Line::Eof;
                if line_tx.send(line).is_err() || end {
                    break;
                }
            }
        });

        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let sink = Arc::clone(&stderr);
        let (stderr_tx, stderr_done) = mpsc::channel();
        thread::spawn(move || {
            let mut buf = [0u8; 4096];
            loop {
                match stderr_pipe.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        let mut q = sink
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner);
                        q.extend(&buf[..n]);
                        let excess = q.len().saturating_sub(STDERR_KEPT);
                        q.drain(..excess);
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            let _ = stderr_tx.send(());
        });

        Ok(Session {
            group,
            requests: Some(requests),
            acks,
            lines,
            stderr,
            stderr_done,
        })
    }

    /// Writes `bytes` to the program's stdin, waiting for the write no later than `deadline`.
    /// After [`SendError::TimedOut`] the session is unusable: kill it.
    ///
    /// # Errors
    /// See [`SendError`].
    pub fn send(&mut self, bytes: Vec<u8>, deadline: Instant) -> Result<(), SendError> {
        let closed = || SendError::Closed(io::Error::from(io::ErrorKind::BrokenPipe));
        let requests = self.requests.as_ref().ok_or_else(closed)?;
        requests.send(bytes).map_err(|_| closed())?;
        match self
            .acks
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => {
                self.requests = None;
                Err(SendError::Closed(e))
            }
            Err(RecvTimeoutError::Timeout) => {
                self.requests = None;
                Err(SendError::TimedOut)
            }
            Err(RecvTimeoutError::Disconnected) => {
                self.requests = None;
                Err(closed())
            }
        }
    }

    /// The next line the program writes, waiting no later than `deadline`.
    ///
    /// See the example on [`Session`].
    pub fn read_line(&mut self, deadline: Instant) -> Line {
        match self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => Line::TimedOut,
            Err(RecvTimeoutError::Disconnected) => Line::Eof,
        }
    }

    /// The last bytes (at most 4 KiB) the program wrote on stderr.
    ///
    /// See the example on [`Session`].
    pub fn stderr_tail(&self) -> Vec<u8> {
        let q = self
            .stderr
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        q.iter().copied().collect()
    }

    /// Kills the program's group now, reaps it, and says how it ended.
    ///
    /// See the example on [`Session`].
    pub fn kill(mut self) -> Ended {
        self.requests = None;
        let status = self.group.finish();
        // The pipe is closed now (unless something escaped the group): let the stderr reader
        // catch up with the last lines, briefly.
        let _ = self.stderr_done.recv_timeout(Duration::from_millis(100));
        Ended {
            status,
            stderr_tail: self.stderr_tail(),
        }
    }

    /// Closes the program's stdin (the protocol's way of asking it to exit), waits up to
    /// `grace` for it to exit, then kills its group and reaps it.
    ///
    /// See the example on [`Session`].
    pub fn close(mut self, grace: Duration) -> Ended {
        self.requests = None;
        let _ = self.group.wait_until(Instant::now() + grace);
        self.kill()
    }
}

/// Reads one line of at most `max` bytes; a longer one is skipped to its end so that the
/// stream stays in step.
fn read_bounded_line(reader: &mut impl BufRead, max: usize) -> Line {
    let mut buf = Vec::new();
    let mut too_long = false;
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return Line::Eof,
        };
        if available.is_empty() {
            return if too_long {
                Line::TooLong
            } else if buf.is_empty() {
                Line::Eof
            } else {
                Line::Text(buf)
            };
        }
        let (chunk, newline) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], true),
            None => (available, false),
        };
        if !too_long {
            if buf.len() + chunk.len() > max {
                too_long = true;
                buf = Vec::new();
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        let used = chunk.len() + usize::from(newline);
        reader.consume(used);
        if newline {
            if too_long {
                return Line::TooLong;
            }
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Line::Text(buf);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_bounded_and_the_stream_stays_in_step() {
        let mut input: &[u8] = b"short\r\nwaytoolongline\nnext\nlast";
        assert_eq!(
            read_bounded_line(&mut input, 8),
            Line::Text(b"short".to_vec())
        );
        assert_eq!(read_bounded_line(&mut input, 8), Line::TooLong);
        assert_eq!(
            read_bounded_line(&mut input, 8),
            Line::Text(b"next".to_vec())
        );
        assert_eq!(
            read_bounded_line(&mut input, 8),
            Line::Text(b"last".to_vec())
        );
        assert_eq!(read_bounded_line(&mut input, 8), Line::Eof);
    }
}
