//! The one `PATH` lookup: absolute folders only.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// Finds `name` (a bare program name, no folder) in the folders of `path_var` (a `PATH`
/// value), in order, and returns the first executable regular file.
///
/// **Empty and relative entries are skipped**: the shell reads `PATH=:/usr/bin` as "the
/// current folder first", so a `python3` or `nvidia-smi` dropped in whatever folder the user
/// stands in would run. On Windows a name without an extension is also tried with `.exe`
/// first.
///
/// ```
/// # #[cfg(unix)] {
/// use markerspec_process::find_program;
///
/// assert_eq!(find_program("sh".as_ref(), ":.:/bin".as_ref()), Some("/bin/sh".into()));
/// assert_eq!(find_program("sh".as_ref(), ".:bin".as_ref()), None);
/// # }
/// ```
pub fn find_program(name: &OsStr, path_var: &OsStr) -> Option<PathBuf> {
    let names = candidate_names(name);
    std::env::split_paths(path_var)
        .filter(|dir| dir.is_absolute())
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|candidate| is_executable(candidate))
}

fn candidate_names(name: &OsStr) -> Vec<OsString> {
    let mut names = vec![name.to_owned()];
    if cfg!(windows) && Path::new(name).extension().is_none() {
        let mut exe = name.to_owned();
        exe.push(".exe");
        names.insert(0, exe);
    }
    names
}

/// Whether `path` is a regular file this process may execute (on Unix: any execute bit; on
/// other systems: a regular file).
///
/// ```
/// # #[cfg(unix)] {
/// use std::path::Path;
/// assert!(markerspec_process::is_executable(Path::new("/bin/sh")));
/// assert!(!markerspec_process::is_executable(Path::new("/etc/hostname-that-is-not-there")));
/// # }
/// ```
pub fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn skips_empty_and_relative_entries() {
        let dir = std::env::temp_dir().join(format!("markerspec-path-{}", std::process::id()));
        let bin = dir.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let program = bin.join("tool");
        std::fs::write(&program, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(
            &program,
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        let plain = dir.join("plain");
        std::fs::create_dir_all(&plain).unwrap();
        std::fs::write(plain.join("tool"), "not executable").unwrap();

        let path = |entries: &[&Path]| std::env::join_paths(entries).unwrap();
        let found = find_program("tool".as_ref(), &path(&[&plain, &bin]));
        assert_eq!(found, Some(program.clone()));
        // Relative and empty entries are never searched, wherever the current folder is.
        let relative = path(&[Path::new(""), Path::new("."), Path::new("bin")]);
        assert_eq!(find_program("tool".as_ref(), &relative), None);
        assert_eq!(find_program("missing".as_ref(), &path(&[&bin])), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
