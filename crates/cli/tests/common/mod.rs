//! What the command-line test files share.

use std::path::Path;
use std::process::{Child, Command, Stdio};

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
