//! Child processes for markerspec: one runner for every program markerspec starts (a Python
//! interpreter, a C library loader, the GPU probe, `nvidia-smi`, conformance adapters).
//!
//! ```
//! # #[cfg(unix)] {
//! use std::process::Command;
//! use std::time::Duration;
//! use markerspec_process::Run;
//!
//! let mut command = Command::new("/bin/sh");
//! command.args(["-c", "echo hello; (sleep 30) &"]);
//! let output = Run::new(Duration::from_secs(5)).run(&mut command).unwrap();
//! assert_eq!(output.stdout.bytes, b"hello\n");
//! // The `sleep` left behind was killed with its group when the shell exited: this took
//! // milliseconds, not 30 seconds.
//! # }
//! ```
//!
//! # Guarantees
//!
//! Every child is started **in a process group of its own** (Unix), which it leads, and the
//! runner keeps one **deadline for the whole exchange**: writing its input, reading its output
//! and waiting for it to exit. On every path out — the child exited, the deadline passed, an
//! error, the handle was dropped, or (with [`kill_children_on_signal`]) this process got
//! SIGINT, SIGTERM, SIGHUP or SIGQUIT — the **whole group is killed** with SIGKILL and the
//! child is **reaped**. Killing the group after a normal exit matters: a program that forked
//! a helper (`(sleep 45) &`) would otherwise keep the output pipes open, and the helper would
//! outlive the run.
//!
//! - The group is killed while the leader is still an unreaped zombie (its exit is observed
//!   with `waitid(WNOWAIT)`), so the group's number cannot have been reused by an unrelated
//!   process.
//! - Output is read by threads into buffers capped at a size the caller chooses; the rest is
//!   read and dropped, so a chatty child never blocks on a full pipe and never grows memory
//!   without bound.
//! - Input is written by a thread, and the caller waits for it only until the deadline: a
//!   child that stops reading cannot hang the caller.
//! - Signals are sent with `kill(2)` through `rustix`; no `kill` or `sh` is run, and nothing
//!   is looked up on `PATH` except the program the caller names ([`find_program`] is the one
//!   lookup, and it skips empty and relative `PATH` entries).
//!
//! Limits, said plainly: a descendant that leaves the group on purpose (`setsid`, `setpgid`)
//! escapes the group kill; a thread blocked on a pipe that such a process holds open is left
//! behind (the caller is not). SIGKILL of this process cannot be caught, so its children then
//! run on until they end by themselves. On systems other than Unix only the direct child is
//! killed.
//!
//! # Signals
//!
//! A library must not install signal handlers behind its caller's back, so this crate does
//! not do it by itself. A program (the `markerspec` command line tool does) calls
//! [`kill_children_on_signal`] once: from then on, SIGINT, SIGTERM, SIGHUP and SIGQUIT kill
//! every running child's group and then end the program as the signal would have.

#![forbid(unsafe_code)]

mod group;
mod path;
mod run;
mod session;
mod signals;

pub use group::Group;
pub use path::{find_program, is_executable};
pub use run::{Capture, Error, Output, Run};
pub use session::{Ended, Line, SendError, Session};
pub use signals::{is_set_id, kill_children_on_signal};

/// The end of `bytes` as text, at most `max` bytes (cut at a character boundary), trimmed, for
/// a message.
///
/// ```
/// assert_eq!(markerspec_process::tail(b"  error: it broke\n", 100), "error: it broke");
/// assert_eq!(markerspec_process::tail(b"a long message", 7), "…message");
/// ```
pub fn tail(bytes: &[u8], max: usize) -> String {
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

/// `text` with control characters escaped (`\u{1b}`, `\r`, …), so that a string another
/// program supplied cannot move the cursor, rewrite a line or forge output when printed.
///
/// ```
/// assert_eq!(markerspec_process::escape_control("ok\u{1b}[2J"), "ok\\u{1b}[2J");
/// assert_eq!(markerspec_process::escape_control("plain"), "plain");
/// ```
pub fn escape_control(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_owned();
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().collect::<String>()
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_are_short() {
        assert_eq!(tail(b"  abc \n", 10), "abc");
        assert_eq!(tail("ééééé".as_bytes(), 3), "…é");
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape_control("plain é"), "plain é");
        assert_eq!(
            escape_control("a\u{1b}[2K\rall pass"),
            "a\\u{1b}[2K\\rall pass"
        );
        assert_eq!(escape_control("tab\there\n"), "tab\\there\\n");
    }
}

// The README's examples run with the doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
