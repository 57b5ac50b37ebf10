//! A child leading a process group of its own, registered for the signal guard, killed with its
//! group and reaped when it is finished with or dropped.

use std::io;
use std::process::{Child, Command, ExitStatus};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The groups of the children running now, for [`kill_children_on_signal`](crate::kill_children_on_signal).
pub(crate) struct Registry {
    /// Process-group ids (each the pid of its unreaped leader).
    pub(crate) groups: Vec<u32>,
    /// Set once a terminating signal arrived: no child may start after the sweep.
    pub(crate) stopping: bool,
}

pub(crate) static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    groups: Vec::new(),
    stopping: false,
});

pub(crate) fn registry() -> MutexGuard<'static, Registry> {
    // A panic while holding the lock leaves a plain list behind; it is still usable.
    REGISTRY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A running child that leads a process group of its own (on Unix).
///
/// Dropping it kills the group and reaps the child. [`Run`](crate::Run) and
/// [`Session`](crate::Session) are built on it; use it directly for anything else.
///
/// ```
/// # #[cfg(unix)] {
/// use std::process::Command;
/// use std::time::{Duration, Instant};
/// use markerspec_process::Group;
///
/// let mut group = Group::spawn(Command::new("/bin/sleep").arg("30")).unwrap();
/// // Not finished within 100 ms: kill the whole group and reap the child.
/// assert!(!group.wait_until(Instant::now() + Duration::from_millis(100)).unwrap());
/// let status = group.finish().unwrap();
/// assert!(!status.success()); // killed
///
/// // The child's pipes, its id, and a kill without reaping.
/// let mut command = Command::new("/bin/sh");
/// command.args(["-c", "echo $$; sleep 30"]).stdout(std::process::Stdio::piped());
/// let mut group = Group::spawn(&mut command).unwrap();
/// let mut pid = String::new();
/// std::io::BufRead::read_line(
///     &mut std::io::BufReader::new(group.child_mut().stdout.take().unwrap()),
///     &mut pid,
/// )
/// .unwrap();
/// assert_eq!(pid.trim(), group.id().to_string());
/// assert!(!group.has_exited().unwrap());
/// group.kill();
/// assert!(group.wait_until(Instant::now() + Duration::from_secs(5)).unwrap());
/// assert!(!group.finish().unwrap().success());
///
/// // A helper in this process's own group.
/// let mut helper = Group::spawn_in_current_group(&mut Command::new("/bin/true")).unwrap();
/// assert!(helper.wait_until(Instant::now() + Duration::from_secs(5)).unwrap());
/// assert!(helper.finish().unwrap().success());
/// # }
/// ```
#[derive(Debug)]
pub struct Group {
    child: Child,
    /// Whether the child leads its own group (so that `kill(-pid)` reaches its descendants).
    own_group: bool,
    status: Option<ExitStatus>,
}

impl Group {
    /// Starts `command` as the leader of a new process group, with its stdio as the command
    /// says.
    ///
    /// # Errors
    /// The program could not be started, or a terminating signal is being handled (kind
    /// [`io::ErrorKind::Interrupted`]).
    ///
    /// See the example on [`Group`].
    pub fn spawn(command: &mut Command) -> io::Result<Group> {
        Group::spawn_in(command, true)
    }

    /// Starts `command` in this process's own group, for a helper that must die when whoever
    /// kills this process's group kills it (the GPU probe's `nvidia-smi`). Only the child
    /// itself is killed on timeout.
    ///
    /// # Errors
    /// As [`Group::spawn`].
    ///
    /// See the example on [`Group`].
    pub fn spawn_in_current_group(command: &mut Command) -> io::Result<Group> {
        Group::spawn_in(command, false)
    }

    fn spawn_in(command: &mut Command, own_group: bool) -> io::Result<Group> {
        #[cfg(unix)]
        if own_group {
            std::os::unix::process::CommandExt::process_group(command, 0);
        }
        // Spawn under the lock, so that the signal guard either sees this group or stops the
        // spawn: no child can slip between its sweep and the end of the process.
        let mut registry = registry();
        if registry.stopping {
            return Err(io::Error::new(
                io::ErrorKind::Interrupted,
                "a terminating signal arrived; no new process is started",
            ));
        }
        let child = spawn_retrying_busy(command)?;
        if own_group {
            registry.groups.push(child.id());
        }
        drop(registry);
        Ok(Group {
            child,
            own_group,
            status: None,
        })
    }

    /// The child's process id (also its group's id when it leads one).
    ///
    /// See the example on [`Group`].
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The underlying child, to take its pipes.
    ///
    /// See the example on [`Group`].
    pub fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    /// Whether the child has exited. It is not reaped yet (on Unix), so its group's number
    /// stays its own until [`finish`](Self::finish).
    ///
    /// # Errors
    /// Asking the system failed.
    ///
    /// See the example on [`Group`].
    pub fn has_exited(&mut self) -> io::Result<bool> {
        if self.status.is_some() {
            return Ok(true);
        }
        #[cfg(unix)]
        {
            use rustix::process::{Pid, WaitId, WaitIdOptions, waitid};
            let pid = Pid::from_child(&self.child);
            let options = WaitIdOptions::EXITED | WaitIdOptions::NOWAIT | WaitIdOptions::NOHANG;
            match waitid(WaitId::Pid(pid), options) {
                Ok(found) => Ok(found.is_some()),
                Err(rustix::io::Errno::INTR) => Ok(false),
                Err(e) => Err(e.into()),
            }
        }
        #[cfg(not(unix))]
        {
            let status = self.child.try_wait()?;
            self.status = status;
            Ok(status.is_some())
        }
    }

    /// Waits until the child exits or `deadline` passes; true when it exited.
    ///
    /// # Errors
    /// Asking the system failed.
    ///
    /// See the example on [`Group`].
    pub fn wait_until(&mut self, deadline: Instant) -> io::Result<bool> {
        let mut pause = Duration::from_micros(100);
        loop {
            if self.has_exited()? {
                return Ok(true);
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(false);
            }
            std::thread::sleep(pause.min(deadline - now));
            pause = (pause * 2).min(Duration::from_millis(10));
        }
    }

    /// Kills the child's whole group (the child alone when it shares this process's group)
    /// without reaping it.
    ///
    /// See the example on [`Group`].
    pub fn kill(&mut self) {
        if self.status.is_some() {
            return;
        }
        #[cfg(unix)]
        if self.own_group {
            kill_group(self.child.id());
        }
        let _ = self.child.kill();
    }

    /// Kills whatever is left of the group, reaps the child and returns how it ended.
    ///
    /// # Errors
    /// Waiting for the child failed.
    ///
    /// See the example on [`Group`].
    pub fn finish(&mut self) -> io::Result<ExitStatus> {
        if let Some(status) = self.status {
            return Ok(status);
        }
        // Leftovers of a child that exited, or the child itself: the group goes first, while
        // the unreaped leader still holds the group's number.
        self.kill();
        if self.own_group {
            // Unregistered before the leader is reaped: the guard must never signal a group
            // number that may already belong to someone else.
            let id = self.child.id();
            registry().groups.retain(|g| *g != id);
        }
        let status = self.child.wait()?;
        self.status = Some(status);
        Ok(status)
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// `kill(-pgid, SIGKILL)`, never for group 0 or 1 (which would mean this process's group, or
/// every process).
#[cfg(unix)]
pub(crate) fn kill_group(pgid: u32) {
    use rustix::process::{Pid, Signal, kill_process_group};
    let Ok(raw) = i32::try_from(pgid) else { return };
    if raw <= 1 {
        return;
    }
    if let Some(pid) = Pid::from_raw(raw) {
        let _ = kill_process_group(pid, Signal::KILL);
    }
}

/// `command.spawn()`, tried again a few times while it fails with "text file busy" (`ETXTBSY`):
/// a program written just before it is run (a probe or adapter script) can still be open for
/// writing in a child that another thread of this process forked in the meantime, until that
/// child execs. The wait is short and bounded (about 0.3 s in all).
fn spawn_retrying_busy(command: &mut Command) -> io::Result<std::process::Child> {
    /// `ETXTBSY` on Linux and the BSDs (macOS included).
    const ETXTBSY: i32 = 26;
    let mut attempt: u64 = 0;
    loop {
        match command.spawn() {
            Err(e) if cfg!(unix) && e.raw_os_error() == Some(ETXTBSY) && attempt < 7 => {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(10 * attempt));
            }
            r => return r,
        }
    }
}
