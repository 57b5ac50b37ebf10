//! The C library a program runs on (SPEC §8.4): the `PT_INTERP` program header of an ELF file
//! names its dynamic loader; a musl loader prints `Version X.Y.Z` when run without arguments, a
//! glibc loader prints its version with `--version`. No `unsafe`, no `dlopen`: the loader is
//! run as a program, with a time limit.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use markerspec_process::{Error as RunError, Run, tail};

/// What the C library question came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Libc {
    /// glibc, `major.minor`, found through `method`.
    Glibc { version: String, method: String },
    /// musl, as its loader reports it.
    Musl { version: String, method: String },
    /// Could not be told; the reason.
    Unknown(String),
}

/// The ELF interpreter (`PT_INTERP`) of `path`, `Ok(None)` for an ELF file without one (a
/// static executable).
///
/// # Errors
/// The file cannot be read or is not an ELF file.
pub(crate) fn elf_interpreter(path: &Path) -> Result<Option<PathBuf>, String> {
    let mut file = File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let mut ident = [0u8; 64];
    let n = read_at(&mut file, 0, &mut ident)?;
    if n < 52 || &ident[..4] != b"\x7fELF" {
        return Err(format!("{} is not an ELF file", path.display()));
    }
    let wide = match ident[4] {
        1 => false,
        2 => true,
        _ => return Err(format!("{}: unknown ELF class", path.display())),
    };
    let little = match ident[5] {
        1 => true,
        2 => false,
        _ => return Err(format!("{}: unknown ELF byte order", path.display())),
    };
    let u16_at = |b: &[u8], at: usize| {
        let v = [b[at], b[at + 1]];
        if little {
            u16::from_le_bytes(v)
        } else {
            u16::from_be_bytes(v)
        }
    };
    let u32_at = |b: &[u8], at: usize| {
        let v = [b[at], b[at + 1], b[at + 2], b[at + 3]];
        if little {
            u32::from_le_bytes(v)
        } else {
            u32::from_be_bytes(v)
        }
    };
    let u64_at = |b: &[u8], at: usize| {
        let mut v = [0u8; 8];
        v.copy_from_slice(&b[at..at + 8]);
        if little {
            u64::from_le_bytes(v)
        } else {
            u64::from_be_bytes(v)
        }
    };
    let (phoff, phentsize, phnum) = if wide {
        (u64_at(&ident, 32), u16_at(&ident, 54), u16_at(&ident, 56))
    } else {
        (
            u64::from(u32_at(&ident, 28)),
            u16_at(&ident, 42),
            u16_at(&ident, 44),
        )
    };
    let min_entry = if wide { 56 } else { 32 };
    if usize::from(phentsize) < min_entry || phnum > 512 {
        return Err(format!("{}: odd ELF program headers", path.display()));
    }
    let mut table = vec![0u8; usize::from(phentsize) * usize::from(phnum)];
    let got = read_at(&mut file, phoff, &mut table)?;
    if got < table.len() {
        return Err(format!("{}: truncated ELF program headers", path.display()));
    }
    for entry in table.chunks_exact(usize::from(phentsize)) {
        const PT_INTERP: u32 = 3;
        if u32_at(entry, 0) != PT_INTERP {
            continue;
        }
        let (offset, size) = if wide {
            (u64_at(entry, 8), u64_at(entry, 32))
        } else {
            (u64::from(u32_at(entry, 4)), u64::from(u32_at(entry, 16)))
        };
        if size == 0 || size > 4096 {
            return Err(format!("{}: odd PT_INTERP size {size}", path.display()));
        }
        let mut name = vec![0u8; usize::try_from(size).unwrap_or(0)];
        let got = read_at(&mut file, offset, &mut name)?;
        name.truncate(got);
        let end = name.iter().position(|b| *b == 0).unwrap_or(name.len());
        let text = String::from_utf8_lossy(&name[..end]).into_owned();
        return Ok(Some(PathBuf::from(text)));
    }
    Ok(None)
}

fn read_at(file: &mut File, offset: u64, buf: &mut [u8]) -> Result<usize, String> {
    file.seek(SeekFrom::Start(offset))
        .map_err(|e| format!("cannot read: {e}"))?;
    let mut total = 0;
    while total < buf.len() {
        match file.read(&mut buf[total..]) {
            Ok(0) => break,
            Ok(n) => total += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("cannot read: {e}")),
        }
    }
    Ok(total)
}

/// Whether a loader path is musl's (`ld-musl-<arch>.so.1`).
fn is_musl_loader(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("ld-musl-"))
}

/// `Version 1.2.5` from a musl loader's banner.
pub(crate) fn parse_musl_banner(text: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let version = line.trim().strip_prefix("Version ")?.trim();
        valid_dotted(version).then(|| version.to_owned())
    })
}

/// `2.36` from the first line of `ld.so --version`:
/// `ld.so (Debian GLIBC 2.36-9+deb12u14) stable release version 2.36.`
pub(crate) fn parse_glibc_banner(text: &str) -> Option<String> {
    let first = text.lines().next()?;
    if !first.contains("GLIBC") && !first.contains("GNU C Library") && !first.contains("ld.so") {
        return None;
    }
    let after = &first[first.rfind("version ")? + "version ".len()..];
    let version = after.trim().trim_end_matches('.');
    let mut parts = version.split('.');
    let (major, minor) = (parts.next()?, parts.next()?);
    let version = format!("{major}.{minor}");
    valid_dotted(&version).then_some(version)
}

/// `glibc 2.35` (from `os.confstr("CS_GNU_LIBC_VERSION")`) → `2.35`.
pub(crate) fn parse_confstr(text: &str) -> Option<String> {
    let version = text.trim().strip_prefix("glibc ")?.trim();
    let mut parts = version.split('.');
    let version = format!("{}.{}", parts.next()?, parts.next()?);
    valid_dotted(&version).then_some(version)
}

fn valid_dotted(s: &str) -> bool {
    s.split('.').count() >= 2
        && s.split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// Asks the loader named by `interpreter` for its C library.
///
/// Only an absolute path is run: a `PT_INTERP` without a slash would otherwise be looked up on
/// `PATH` (and one with a relative path resolved against the current folder).
pub(crate) fn ask_loader(interpreter: &Path, timeout: Duration) -> Libc {
    if !interpreter.is_absolute() {
        return Libc::Unknown(format!(
            "the ELF interpreter `{}` is not an absolute path; it is not run",
            interpreter.display()
        ));
    }
    let musl = is_musl_loader(interpreter);
    let mut command = Command::new(interpreter);
    if !musl {
        command.arg("--version");
    }
    let shown = interpreter.display();
    let finished = match Run::new(timeout).run(&mut command) {
        Ok(f) => f,
        Err(RunError::Spawn(e)) => return Libc::Unknown(format!("cannot run {shown}: {e}")),
        Err(RunError::TimedOut { .. }) => {
            return Libc::Unknown(format!("{shown} did not answer within {timeout:?}"));
        }
        Err(RunError::Wait(e)) => return Libc::Unknown(format!("{shown}: {e}")),
    };
    if musl {
        // The musl loader prints its banner on stderr and exits 1 without arguments.
        let text = String::from_utf8_lossy(&finished.stderr.bytes);
        match parse_musl_banner(&text) {
            Some(version) => Libc::Musl {
                version,
                method: format!("{shown} banner"),
            },
            None => Libc::Unknown(format!(
                "no `Version` line in the banner of {shown}: {:?}",
                tail(&finished.stderr.bytes, 200)
            )),
        }
    } else {
        let text = String::from_utf8_lossy(&finished.stdout.bytes);
        match parse_glibc_banner(&text) {
            Some(version) => Libc::Glibc {
                version,
                method: format!("{shown} --version"),
            },
            None => Libc::Unknown(format!(
                "{shown} --version did not name a glibc version: {:?}",
                tail(&finished.stdout.bytes, 200)
            )),
        }
    }
}

/// The C library of the first of `programs` that is a dynamically linked ELF file (SPEC §8.4:
/// `/bin/sh`, then `/usr/bin/env`, `/bin/dash`, `/bin/ls`).
pub(crate) fn detect_from(programs: &[&Path], timeout: Duration) -> Libc {
    let mut reasons = Vec::new();
    for program in programs {
        match elf_interpreter(program) {
            Ok(Some(interpreter)) => return ask_loader(&interpreter, timeout),
            Ok(None) => reasons.push(format!("{} is statically linked", program.display())),
            Err(e) => reasons.push(e),
        }
    }
    Libc::Unknown(format!(
        "no dynamically linked program to read the loader from ({})",
        reasons.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn banners() {
        assert_eq!(
            parse_glibc_banner(
                "ld.so (Debian GLIBC 2.36-9+deb12u14) stable release version 2.36.\nCopyright"
            )
            .as_deref(),
            Some("2.36")
        );
        assert_eq!(
            parse_glibc_banner("ld.so (Ubuntu GLIBC 2.39-0ubuntu8.4) stable release version 2.39.")
                .as_deref(),
            Some("2.39")
        );
        assert_eq!(
            parse_glibc_banner("ld.so (GNU libc) stable release version 2.40.9000.\n").as_deref(),
            Some("2.40")
        );
        assert_eq!(parse_glibc_banner("usage: whatever"), None);
        assert_eq!(
            parse_musl_banner("musl libc (x86_64)\nVersion 1.2.5\nDynamic Program Loader\n")
                .as_deref(),
            Some("1.2.5")
        );
        assert_eq!(parse_musl_banner("musl libc\n"), None);
        assert_eq!(parse_confstr("glibc 2.35").as_deref(), Some("2.35"));
        assert_eq!(parse_confstr("glibc 2.28.9000").as_deref(), Some("2.28"));
        assert_eq!(parse_confstr("musl"), None);
        assert!(is_musl_loader(Path::new("/lib/ld-musl-x86_64.so.1")));
        assert!(!is_musl_loader(Path::new("/lib64/ld-linux-x86-64.so.2")));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn reads_the_interpreter_of_a_real_program() {
        let interp = elf_interpreter(Path::new("/bin/sh")).unwrap();
        let interp = interp.expect("/bin/sh is dynamically linked here");
        assert!(interp.is_absolute(), "{interp:?}");
        assert!(
            interp.to_string_lossy().contains("ld"),
            "{}",
            interp.display()
        );
    }

    #[test]
    fn rejects_files_that_are_not_elf() {
        let err = elf_interpreter(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("Cargo.toml")
                .as_path(),
        )
        .unwrap_err();
        assert!(err.contains("not an ELF file"), "{err}");
        assert!(elf_interpreter(Path::new("/nonexistent")).is_err());
    }

    #[test]
    fn a_relative_elf_interpreter_is_never_run() {
        for name in ["ld-linux-x86-64.so.2", "./ld-musl-x86_64.so.1", "lib/ld.so"] {
            let found = ask_loader(Path::new(name), Duration::from_secs(1));
            assert!(
                matches!(&found, Libc::Unknown(why) if why.contains("not an absolute path")),
                "{name}: {found:?}"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_fake_musl_loader_is_run_without_arguments() {
        let dir = std::env::temp_dir().join(format!("markerspec-env-musl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let loader = dir.join("ld-musl-x86_64.so.1");
        std::fs::write(
            &loader,
            "#!/bin/sh\n[ $# -eq 0 ] || exit 9\necho 'musl libc (x86_64)' >&2\necho 'Version 1.2.4' >&2\nexit 1\n",
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&loader, std::fs::Permissions::from_mode(0o755)).unwrap();
        // A test thread forking while the script was open for writing makes exec fail with
        // "text file busy" for a moment; try again.
        let mut found = ask_loader(&loader, Duration::from_secs(10));
        for _ in 0..20 {
            if !matches!(&found, Libc::Unknown(why) if why.contains("busy")) {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
            found = ask_loader(&loader, Duration::from_secs(10));
        }
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            matches!(&found, Libc::Musl { version, .. } if version == "1.2.4"),
            "{found:?}"
        );
    }
}
