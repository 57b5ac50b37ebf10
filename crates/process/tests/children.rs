//! Hostile children: fork storms, helpers that keep the pipes open, programs that never read,
//! and signals to the parent. After each, the process table must hold nothing of theirs.
#![cfg(target_os = "linux")]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use markerspec_process::{Error, Line, Run, SendError, Session};

/// A value no other process carries in its environment: every child of a test gets it, and the
/// process table is searched for it afterwards.
fn token(test: &str) -> String {
    format!("{test}-{}-{:?}", std::process::id(), Instant::now())
}

/// The live (not zombie) processes whose environment holds `MARKERSPEC_TEST_TOKEN=token`.
fn survivors(token: &str) -> Vec<u32> {
    let needle = format!("MARKERSPEC_TEST_TOKEN={token}");
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if !environ
            .split(|&b| b == 0)
            .any(|var| var == needle.as_bytes())
        {
            continue;
        }
        let state = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // The state follows the command name, which is in parentheses.
        let zombie = state
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X'));
        if !zombie {
            found.push(pid);
        }
    }
    found
}

/// Waits briefly for `token`'s processes to go (SIGKILL takes effect asynchronously), then
/// asserts that none is left; kills any that are, by pid, so that a failing test cleans up.
#[track_caller]
fn assert_none_left(token: &str) {
    let until = Instant::now() + Duration::from_secs(2);
    let mut left = survivors(token);
    while !left.is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
        left = survivors(token);
    }
    for pid in &left {
        if let Some(pid) = rustix::process::Pid::from_raw(*pid as i32) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
    assert!(left.is_empty(), "processes left behind: {left:?}");
}

/// Kills what is left of a test's processes, by pid, when the test ends, even by a failed
/// assertion.
struct Cleanup(String);

impl Drop for Cleanup {
    fn drop(&mut self) {
        for pid in survivors(&self.0) {
            if let Some(pid) = rustix::process::Pid::from_raw(pid as i32) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
        }
    }
}

fn sh(token: &str, script: &str) -> Command {
    let mut command = Command::new("/bin/sh");
    command
        .arg("-c")
        .arg(script)
        .env("MARKERSPEC_TEST_TOKEN", token);
    command
}

#[test]
fn a_forked_helper_holding_the_pipes_does_not_hold_the_caller() {
    let token = token("helper");
    let _cleanup = Cleanup(token.clone());
    let started = Instant::now();
    let output = Run::new(Duration::from_secs(3))
        .run(&mut sh(&token, "echo report; (/bin/sleep 45) & exit 0"))
        .unwrap();
    let took = started.elapsed();
    // The report is kept, and the helper did not make the run wait for it.
    assert_eq!(output.stdout.bytes, b"report\n");
    assert!(output.status.success());
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert_none_left(&token);
}

#[test]
fn a_hung_program_and_its_descendants_are_killed_at_the_deadline() {
    let token = token("hung");
    let _cleanup = Cleanup(token.clone());
    let started = Instant::now();
    let result = Run::new(Duration::from_millis(500)).run(&mut sh(
        &token,
        "echo partial; /bin/sleep 30 & /bin/sleep 30 & /bin/sleep 30",
    ));
    let took = started.elapsed();
    match result {
        Err(Error::TimedOut { stdout, .. }) => assert_eq!(stdout.bytes, b"partial\n"),
        other => panic!("{other:?}"),
    }
    assert!(took < Duration::from_secs(3), "took {took:?}");
    assert_none_left(&token);
}

#[test]
fn a_fork_storm_is_killed_whole() {
    let token = token("storm");
    let _cleanup = Cleanup(token.clone());
    // Every process starts two more until there are a few hundred, all sleeping: a bounded
    // fork bomb, still forking when the deadline comes.
    let script = "storm() { [ \"$1\" -gt 0 ] || exec /bin/sleep 30; \
                  storm $(($1 - 1)) & storm $(($1 - 1)) & wait; }; storm 7";
    let started = Instant::now();
    let result = Run::new(Duration::from_millis(700)).run(&mut sh(&token, script));
    assert!(matches!(result, Err(Error::TimedOut { .. })), "{result:?}");
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_none_left(&token);
}

#[test]
fn a_program_that_never_reads_its_input_cannot_hang_the_writer() {
    let token = token("noread");
    let _cleanup = Cleanup(token.clone());
    let started = Instant::now();
    // Four megabytes: far more than a pipe holds.
    let result = Run::new(Duration::from_millis(500))
        .stdin(vec![b'x'; 4 << 20])
        .run(&mut sh(&token, "exec /bin/sleep 30"));
    assert!(matches!(result, Err(Error::TimedOut { .. })), "{result:?}");
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_none_left(&token);
}

#[test]
fn input_is_written_and_output_capped() {
    let token = token("cat");
    let _cleanup = Cleanup(token.clone());
    let output = Run::new(Duration::from_secs(10))
        .stdin(vec![b'y'; 300_000])
        .stdout_cap(1000)
        .run(&mut sh(&token, "exec /bin/cat"))
        .unwrap();
    assert_eq!(output.stdout.bytes, vec![b'y'; 1000]);
    assert!(output.stdout.truncated);
    assert!(output.status.success());
}

#[test]
fn a_session_peer_that_stops_reading_is_given_up_at_the_deadline() {
    let token = token("session");
    let _cleanup = Cleanup(token.clone());
    let mut session = Session::spawn(
        &mut sh(&token, "read line; echo \"got $line\"; exec /bin/sleep 30"),
        1 << 20,
    )
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    session.send(b"hello\n".to_vec(), deadline).unwrap();
    assert_eq!(
        session.read_line(deadline),
        Line::Text(b"got hello".to_vec())
    );
    // 66 KB, like the conformance suite's largest requests: more than the pipe holds.
    let started = Instant::now();
    let sent = session.send(
        vec![b'z'; 66_000],
        Instant::now() + Duration::from_millis(300),
    );
    assert!(matches!(sent, Err(SendError::TimedOut)), "{sent:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(
        session.read_line(Instant::now() + Duration::from_millis(100)),
        Line::TimedOut
    );
    let status = session.kill().status.unwrap();
    assert!(!status.success());
    assert_none_left(&token);
}

#[test]
fn a_dropped_session_leaves_nothing() {
    let token = token("dropped");
    let _cleanup = Cleanup(token.clone());
    let session = Session::spawn(&mut sh(&token, "/bin/sleep 30 & exec /bin/sleep 30"), 1024);
    std::thread::sleep(Duration::from_millis(100));
    assert!(!survivors(&token).is_empty());
    drop(session);
    assert_none_left(&token);
}

#[test]
fn a_missing_program_does_not_start() {
    let result = Run::new(Duration::from_secs(1)).run(&mut Command::new("/nonexistent/program"));
    assert!(matches!(result, Err(Error::Spawn(_))), "{result:?}");
}

const ROLE: &str = "MARKERSPEC_PROCESS_TEST_ROLE";

/// Run twice: as the test, it starts this test binary again as a program with the signal
/// guard and a running child, sends that program SIGTERM (and SIGINT), and checks that the
/// child's group died with it. As the program (`ROLE` set), it is that program.
#[test]
fn a_signal_to_the_parent_kills_the_children() {
    if let Ok(token) = std::env::var(ROLE) {
        markerspec_process::kill_children_on_signal().unwrap();
        println!("ready");
        let result =
            Run::new(Duration::from_secs(60)).run(&mut sh(&token, "/bin/sleep 60 & /bin/sleep 60"));
        // Only reached if the signal did not end the program.
        panic!("the run ended without the signal: {result:?}");
    }
    for signal in [rustix::process::Signal::TERM, rustix::process::Signal::INT] {
        let token = token("signal");
        let _cleanup = Cleanup(token.clone());
        let exe = std::env::current_exe().unwrap();
        let mut program = Command::new(exe)
            .args([
                "--exact",
                "a_signal_to_the_parent_kills_the_children",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(ROLE, &token)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(program.stdout.take().unwrap()).lines();
        assert!(
            lines.any(|l| l.is_ok_and(|l| l.contains("ready"))),
            "the program did not start"
        );
        let until = Instant::now() + Duration::from_secs(10);
        while survivors(&token).len() < 3 && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(survivors(&token).len(), 3, "the children did not start");
        let pid = rustix::process::Pid::from_child(&program);
        rustix::process::kill_process(pid, signal).unwrap();
        let status = program.wait().unwrap();
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&status),
            Some(signal.as_raw()),
            "{status}"
        );
        assert_none_left(&token);
    }
}

#[test]
fn only_absolute_path_entries_are_searched() {
    let found = markerspec_process::find_program("sh".as_ref(), ":.:/bin".as_ref());
    assert_eq!(found.as_deref(), Some(Path::new("/bin/sh")));
}
