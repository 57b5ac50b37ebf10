//! `host_arch` (SPEC §8.12): the machine's CPU architecture as seen from outside any emulation
//! (Rosetta 2, WoW64, Windows on Arm's x64 emulation).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use markerspec_pep508::{EnvValue, canonical_arch};
use markerspec_process::{Error as RunError, Run};

use crate::facts::Provenance;

/// The program asked on macOS whether this process is translated.
pub(crate) const SYSCTL: &str = "/usr/sbin/sysctl";

/// The operating systems whose rules differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HostOs {
    MacOs,
    Windows,
    /// Linux and the other Unix systems: the kernel's `uname().machine`.
    Other,
}

impl HostOs {
    pub(crate) fn current() -> HostOs {
        if cfg!(target_os = "macos") {
            HostOs::MacOs
        } else if cfg!(windows) {
            HostOs::Windows
        } else {
            HostOs::Other
        }
    }
}

/// What macOS says about translation: `sysctl -in sysctl.proc_translated` prints `1` in a
/// process Rosetta 2 translates, `0` in a native one, and nothing where the name does not exist
/// (Intel Macs before Rosetta, which run nothing translated): `Ok(Some(true))`,
/// `Ok(Some(false))`, `Ok(None)`. `Err` when the program cannot be run or says something else.
pub(crate) fn proc_translated(sysctl: &Path, timeout: Duration) -> Result<Option<bool>, String> {
    let mut command = Command::new(sysctl);
    command.args(["-in", "sysctl.proc_translated"]);
    let shown = sysctl.display();
    let output = match Run::new(timeout).run(&mut command) {
        Ok(output) => output,
        Err(RunError::Spawn(e)) => return Err(format!("cannot run {shown}: {e}")),
        Err(RunError::TimedOut { .. }) => {
            return Err(format!("{shown} did not answer within {timeout:?}"));
        }
        Err(RunError::Wait(e)) => return Err(format!("{shown}: {e}")),
    };
    if !output.status.success() {
        return Err(format!("{shown} failed ({})", output.status));
    }
    match String::from_utf8_lossy(&output.stdout.bytes).trim() {
        "1" => Ok(Some(true)),
        "0" => Ok(Some(false)),
        "" => Ok(None),
        other => Err(format!(
            "{shown} -in sysctl.proc_translated printed {other:?}, not 0 or 1"
        )),
    }
}

/// The canonical architecture (SPEC §8.3) of an `IMAGE_FILE_MACHINE_*` code, as
/// `IsWow64Process2` reports the native machine (SPEC §8.12): `0x8664` (AMD64) `x86_64`,
/// `0xAA64` (ARM64) `aarch64`, `0x014C` (I386) `x86`, `0x01C4` (ARMNT) `arm`; `None` for any
/// other code.
pub(crate) fn windows_machine(code: u16) -> Option<&'static str> {
    match code {
        0x8664 => Some("x86_64"),
        0xAA64 => Some("aarch64"),
        0x014C => Some("x86"),
        0x01C4 => Some("arm"),
        _ => None,
    }
}

/// `host_arch` from the platform's answers:
///
/// - macOS: `machine` is `uname -m` (the translated architecture inside a Rosetta process);
///   `translated` is [`proc_translated`]'s answer. Translated means the host is `aarch64`
///   (Rosetta 2 runs x86-64 code on Apple silicon only); not translated, or a system without
///   the name, means the process's own architecture. When the question could not be asked, an
///   `arm64` process still proves an Apple-silicon host, and an `x86_64` one proves nothing.
/// - Windows: `native` is `IsWow64Process2`'s native machine ([`windows_machine`]), which sees
///   through WoW64 and through the x64 emulation of Windows on Arm. Where the function does not
///   exist (`Ok(None)`), fails, or names a machine outside the table, `machine` is used:
///   `PROCESSOR_ARCHITEW6432` when set, else `PROCESSOR_ARCHITECTURE` (SPEC §8.12's fallback).
/// - Others: the kernel's `uname().machine`, without the pointer-size correction of §8.3
///   (a 32-bit userland on a 64-bit kernel has `host_arch == "x86_64"`).
///
/// Every value is mapped through the table of §8.3.
pub(crate) fn host_arch(
    os: HostOs,
    machine: Option<&str>,
    translated: Result<Option<bool>, String>,
    native: Result<Option<u16>, String>,
) -> (EnvValue, Provenance) {
    let p = |method: &'static str| Provenance::new("host", method);
    // Windows: the native machine first; the variables only when it cannot be had.
    let mut fallback = None;
    if os == HostOs::Windows {
        match native {
            Ok(Some(code)) => match windows_machine(code) {
                Some(arch) => return (EnvValue::String(arch.into()), p("IsWow64Process2")),
                None => fallback = Some(format!("IsWow64Process2 named machine {code:#06x}")),
            },
            Ok(None) => {
                fallback =
                    Some("IsWow64Process2 does not exist here (before Windows 10 1709)".into())
            }
            Err(why) => fallback = Some(why),
        }
    }
    let Some(machine) = machine.filter(|m| !m.trim().is_empty()) else {
        let method = if os == HostOs::Windows {
            "PROCESSOR_ARCHITECTURE"
        } else {
            "uname"
        };
        return (
            EnvValue::Unknown,
            p(method).with_detail("the machine's architecture is not reported"),
        );
    };
    let own = canonical_arch(machine, None);
    match os {
        HostOs::Other => (EnvValue::String(own.into()), p("uname")),
        HostOs::Windows => (
            EnvValue::String(own.into()),
            p("PROCESSOR_ARCHITECTURE").with_detail(format!(
                "{}: x64 emulation on Arm is not seen",
                fallback.unwrap_or_default()
            )),
        ),
        HostOs::MacOs => match translated {
            Ok(Some(true)) => (
                EnvValue::String("aarch64".into()),
                p("sysctl.proc_translated").with_detail(format!(
                    "this process runs translated by Rosetta 2 (as {own})"
                )),
            ),
            Ok(_) => (EnvValue::String(own.into()), p("sysctl.proc_translated")),
            Err(_) if own == "aarch64" => (
                EnvValue::String(own.into()),
                p("uname").with_detail("an arm64 process runs natively"),
            ),
            Err(why) => (
                EnvValue::Unknown,
                p("sysctl.proc_translated").with_detail(format!(
                    "whether this {own} process runs under Rosetta 2 cannot be told: {why}"
                )),
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(v: &(EnvValue, Provenance)) -> Option<&str> {
        match &v.0 {
            EnvValue::String(s) => Some(s),
            _ => None,
        }
    }

    #[test]
    fn rosetta_and_native_macs() {
        let rosetta = host_arch(HostOs::MacOs, Some("x86_64"), Ok(Some(true)), Ok(None));
        assert_eq!(known(&rosetta), Some("aarch64"));
        assert_eq!(
            rosetta.1.to_string(),
            "host (sysctl.proc_translated): this process runs translated by Rosetta 2 (as x86_64)"
        );
        let native = host_arch(HostOs::MacOs, Some("arm64"), Ok(Some(false)), Ok(None));
        assert_eq!(known(&native), Some("aarch64"));
        let intel = host_arch(HostOs::MacOs, Some("x86_64"), Ok(None), Ok(None));
        assert_eq!(known(&intel), Some("x86_64"));
        // Cannot ask: arm64 is still arm64, x86_64 cannot be told.
        let arm = host_arch(
            HostOs::MacOs,
            Some("arm64"),
            Err("no sysctl".into()),
            Ok(None),
        );
        assert_eq!(known(&arm), Some("aarch64"));
        let x86 = host_arch(
            HostOs::MacOs,
            Some("x86_64"),
            Err("no sysctl".into()),
            Ok(None),
        );
        assert_eq!(x86.0, EnvValue::Unknown);
        assert!(x86.1.detail().unwrap().contains("no sysctl"));
    }

    #[test]
    fn linux_and_windows() {
        // No pointer-size correction: the kernel's machine.
        let linux = host_arch(HostOs::Other, Some("x86_64"), Ok(None), Ok(None));
        assert_eq!(known(&linux), Some("x86_64"));
        assert_eq!(linux.1.to_string(), "host (uname)");
        assert_eq!(
            known(&host_arch(
                HostOs::Other,
                Some("armv7l"),
                Ok(None),
                Ok(None)
            )),
            Some("arm")
        );
        assert_eq!(
            known(&host_arch(
                HostOs::Windows,
                Some("AMD64"),
                Ok(None),
                Ok(None)
            )),
            Some("x86_64")
        );
        assert_eq!(
            known(&host_arch(
                HostOs::Windows,
                Some("ARM64"),
                Ok(None),
                Ok(None)
            )),
            Some("aarch64")
        );
        assert_eq!(
            host_arch(HostOs::Windows, None, Ok(None), Ok(None)).0,
            EnvValue::Unknown
        );
    }

    #[test]
    fn windows_machine_codes_map_to_the_canonical_names() {
        // winnt.h's IMAGE_FILE_MACHINE_* values.
        assert_eq!(windows_machine(0x8664), Some("x86_64"));
        assert_eq!(windows_machine(0xAA64), Some("aarch64"));
        assert_eq!(windows_machine(0x014C), Some("x86"));
        assert_eq!(windows_machine(0x01C4), Some("arm"));
        assert_eq!(windows_machine(0), None, "IMAGE_FILE_MACHINE_UNKNOWN");
        assert_eq!(windows_machine(0x0200), None, "IA64");
        // Every name is already canonical (SPEC §8.3).
        for code in [0x8664, 0xAA64, 0x014C, 0x01C4] {
            let arch = windows_machine(code).unwrap();
            assert_eq!(canonical_arch(arch, None), arch);
        }
    }

    #[test]
    fn windows_on_arm_and_wow64_see_the_native_machine() {
        // An x64 process emulated on Windows on Arm: the variables say AMD64, Windows says Arm64.
        let emulated = host_arch(HostOs::Windows, Some("AMD64"), Ok(None), Ok(Some(0xAA64)));
        assert_eq!(known(&emulated), Some("aarch64"));
        assert_eq!(emulated.1.to_string(), "host (IsWow64Process2)");
        // A 32-bit process under WoW64 on x64.
        let wow64 = host_arch(HostOs::Windows, Some("x86"), Ok(None), Ok(Some(0x8664)));
        assert_eq!(known(&wow64), Some("x86_64"));
        // No such function, a failure, a machine outside the table: the variables, saying why.
        for (native, why) in [
            (Ok(None), "does not exist"),
            (Err("IsWow64Process2 failed: denied".to_owned()), "denied"),
            (Ok(Some(0x0200)), "0x0200"),
        ] {
            let v = host_arch(HostOs::Windows, Some("ARM64"), Ok(None), native);
            assert_eq!(known(&v), Some("aarch64"));
            assert_eq!(v.1.method(), "PROCESSOR_ARCHITECTURE");
            assert!(v.1.detail().unwrap().contains(why), "{}", v.1);
        }
        // Elsewhere the Windows answer is not looked at.
        let linux = host_arch(HostOs::Other, Some("x86_64"), Ok(None), Ok(Some(0xAA64)));
        assert_eq!(known(&linux), Some("x86_64"));
    }

    #[cfg(unix)]
    #[test]
    fn the_sysctl_answer_is_read() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("markerspec-sysctl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let script = |name: &str, body: &str| {
            let path = dir.join(name);
            std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            path
        };
        let t = Duration::from_secs(5);
        // The arguments are those of SPEC §8.12's Python equivalent.
        let args = script(
            "args",
            r#"[ "$1 $2" = "-in sysctl.proc_translated" ] && echo 1 || echo wrong"#,
        );
        assert_eq!(proc_translated(&args, t), Ok(Some(true)));
        assert_eq!(
            proc_translated(&script("zero", "echo 0"), t),
            Ok(Some(false))
        );
        assert_eq!(proc_translated(&script("none", "true"), t), Ok(None));
        assert!(proc_translated(&script("odd", "echo 2"), t).is_err());
        assert!(proc_translated(&script("fails", "exit 1"), t).is_err());
        assert!(proc_translated(&dir.join("missing"), t).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
