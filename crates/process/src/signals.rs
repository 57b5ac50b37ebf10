//! The signal guard, and the set-ID check.

use std::io;
use std::sync::OnceLock;

/// Makes SIGINT, SIGTERM, SIGHUP and SIGQUIT kill every child's group started through this
/// crate (and still running), then end this process as the signal would have. Children that
/// start after the signal arrived are refused. Call it once, early in `main`; later calls do
/// nothing.
///
/// ```no_run
/// // First thing in `main`:
/// if let Err(error) = markerspec_process::kill_children_on_signal() {
///     eprintln!("warning: children may outlive an interrupt: {error}");
/// }
/// // ... then start children through `Run`, `Session` or `Group` ...
/// ```
///
/// The work is done on a thread of its own (through `signal-hook`), not in a signal handler.
/// On systems other than Unix it does nothing.
///
/// # Errors
/// The handlers could not be installed.
pub fn kill_children_on_signal() -> io::Result<()> {
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    INSTALLED
        .get_or_init(install)
        .clone()
        .map_err(io::Error::other)
}

#[cfg(unix)]
fn install() -> Result<(), String> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    use signal_hook::iterator::Signals;
    let mut signals =
        Signals::new([SIGINT, SIGTERM, SIGHUP, SIGQUIT]).map_err(|e| e.to_string())?;
    std::thread::Builder::new()
        .name("markerspec-signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                let mut registry = crate::group::registry();
                registry.stopping = true;
                for &group in &registry.groups {
                    crate::group::kill_group(group);
                }
                // Keep the lock: no child starts between the sweep and the end.
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                // The default action of these signals ends the process; should it not have
                // (a caller that ignores the signal at the same time), exit as a shell would.
                drop(registry);
                std::process::exit(128 + signal);
            }
        })
        .map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(not(unix))]
fn install() -> Result<(), String> {
    Ok(())
}

/// Whether this process runs with privileges its caller does not have: set-user-ID or
/// set-group-ID (real and effective IDs differ). Such a process must not honour requests that
/// make it load or run files named by the caller.
///
/// ```
/// if markerspec_process::is_set_id() {
///     eprintln!("refusing a caller-supplied library path in a set-ID process");
/// }
/// ```
pub fn is_set_id() -> bool {
    #[cfg(unix)]
    {
        use rustix::process::{getegid, geteuid, getgid, getuid};
        getuid() != geteuid() || getgid() != getegid()
    }
    #[cfg(not(unix))]
    {
        false
    }
}
