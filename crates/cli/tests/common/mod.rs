//! What the command-line test files share (each file is its own crate and uses a part).
#![allow(dead_code, reason = "each test file uses a part of what is here")]

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

/// A fresh folder under the system's temporary folder, named `markerspec-NAME-…`, removed
/// with everything in it when dropped, so a test run leaves nothing behind. It reads as the
/// folder's [`Path`].
pub struct Scratch(tempfile::TempDir);

impl Scratch {
    /// Makes the folder; fails the test when it cannot.
    pub fn new(name: &str) -> Scratch {
        let dir = tempfile::Builder::new()
            .prefix(&format!("markerspec-{name}-"))
            .tempdir()
            .unwrap_or_else(|e| panic!("cannot make a temporary folder: {e}"));
        Scratch(dir)
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

/// A finished run of the binary: its output, and the command line for failure messages.
pub struct Run {
    pub out: Output,
    pub cmd: String,
}

impl Run {
    /// The exit code; -1 when a signal ended the process.
    pub fn code(&self) -> i32 {
        self.out.status.code().unwrap_or(-1)
    }

    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.out.stdout).into_owned()
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.out.stderr).into_owned()
    }

    /// Fails, showing the command and what it printed, unless it exited with CODE and
    /// printed exactly STDOUT.
    #[track_caller]
    pub fn expect(&self, code: i32, stdout: &str) -> &Self {
        let ok = self.code() == code && self.stdout() == stdout;
        self.check(ok, &format!("exit {code} and stdout {stdout:?}"))
    }

    /// Fails, showing the command and what it printed, unless it exited with CODE.
    #[track_caller]
    pub fn expect_code(&self, code: i32) -> &Self {
        self.check(self.code() == code, &format!("exit {code}"))
    }

    /// Fails, showing the command and what it printed, unless its stdout contains NEEDLE.
    #[track_caller]
    pub fn expect_stdout_contains(&self, needle: &str) -> &Self {
        let ok = self.stdout().contains(needle);
        self.check(ok, &format!("stdout containing {needle:?}"))
    }

    #[track_caller]
    fn check(&self, ok: bool, expected: &str) -> &Self {
        assert!(
            ok,
            "command: {}\nexpected {expected}\ngot exit {}\nstdout:\n{}\nstderr:\n{}",
            self.cmd,
            self.code(),
            self.stdout(),
            self.stderr()
        );
        self
    }
}

/// Starts the `markerspec` binary in DIR with ARGS, a cleared environment, and its three
/// standard streams piped.
pub fn spawn_piped(dir: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_markerspec"))
        .args(args)
        .current_dir(dir)
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start markerspec {args:?}: {e}"))
}
