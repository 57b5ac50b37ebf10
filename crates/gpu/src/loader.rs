//! Run-time loading of the driver and library files, and where to look for them.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A library loaded for detection. It is never unloaded: a driver library that started threads
/// (libcuda after `cuInit`) cannot be unloaded safely, and the child process ends soon anyway.
pub(crate) struct Loaded {
    lib: &'static libloading::Library,
    /// What was loaded: the path or the soname that worked.
    pub(crate) name: String,
    /// Set when the explicit path did not load and a later candidate did: the caller asked for
    /// one file and got another, which a person should hear about.
    pub(crate) override_note: Option<String>,
}

impl Loaded {
    /// Looks up a function.
    ///
    /// # Safety
    ///
    /// `T` must be the `unsafe extern "C" fn` pointer type of the C declaration of `symbol`.
    pub(crate) unsafe fn function<T: Copy>(&self, symbol: &str) -> Option<T> {
        let mut name = Vec::with_capacity(symbol.len() + 1);
        name.extend_from_slice(symbol.as_bytes());
        name.push(0);
        // SAFETY: the caller vouches for `T`; the library is leaked, so the pointer stays valid
        // for the rest of the process and copying it out of the `Symbol` is sound.
        unsafe { self.lib.get::<T>(&name) }
            .ok()
            .map(|symbol| *symbol)
    }
}

/// Which library: its sonames (most wanted first) and the extra folders to try after the
/// system loader.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Spec {
    /// For notes: `NVML`, `libcuda`, `cuDNN`.
    pub(crate) label: &'static str,
    pub(crate) names: &'static [&'static str],
    pub(crate) dirs: fn() -> Vec<PathBuf>,
}

/// One file or soname to try.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Candidate {
    pub(crate) name: OsString,
    /// Given by the caller, not found by the search.
    pub(crate) explicit: bool,
}

/// Every file or name to try, in order: the explicit path; then, when searching the system, each
/// soname through the system loader, then each soname in each extra folder.
pub(crate) fn candidates(spec: &Spec, explicit: Option<&Path>, search: bool) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = explicit
        .map(|p| Candidate {
            name: p.as_os_str().to_owned(),
            explicit: true,
        })
        .into_iter()
        .collect();
    if search {
        let searched = |name: OsString| Candidate {
            name,
            explicit: false,
        };
        out.extend(spec.names.iter().map(|n| searched(OsString::from(n))));
        for dir in (spec.dirs)() {
            out.extend(
                spec.names
                    .iter()
                    .map(|n| searched(dir.join(n).into_os_string())),
            );
        }
    }
    out
}

/// Loads the first candidate that loads. `Err` carries why each failed, for the notes; a
/// searched path that does not exist is skipped quietly.
pub(crate) fn load_first(candidates: &[Candidate]) -> Result<Loaded, Vec<String>> {
    let mut errors = Vec::new();
    let mut explicit_failure = None;
    for Candidate {
        name: candidate,
        explicit,
    } in candidates
    {
        let path = Path::new(candidate);
        if path.is_absolute() && !path.exists() {
            if *explicit {
                let why = format!("{} does not exist", path.display());
                errors.push(why.clone());
                explicit_failure = Some(why);
            }
            continue;
        }
        // SAFETY: loading runs the library's initialisers. The candidates are the driver and
        // library files named by the caller or by the documented search list, and running them
        // is what detection is; `Detector::detect` does it in a child process so that a
        // misbehaving library cannot take the caller down.
        match unsafe { libloading::Library::new(candidate) } {
            Ok(lib) => {
                let name = candidate.to_string_lossy().into_owned();
                return Ok(Loaded {
                    lib: Box::leak(Box::new(lib)),
                    override_note: explicit_failure.map(|why| format!("{why}; loaded {name}")),
                    name,
                });
            }
            Err(error) => {
                if *explicit {
                    explicit_failure = Some(error.to_string());
                }
                errors.push(error.to_string());
            }
        }
    }
    Err(errors)
}

/// Why nothing loaded, as one note.
pub(crate) fn not_found_note(label: &str, candidates: &[Candidate], errors: &[String]) -> String {
    let tried: Vec<_> = candidates
        .iter()
        .map(|c| c.name.to_string_lossy())
        .collect();
    let mut note = if tried.is_empty() {
        format!("{label}: no library to try (system search disabled)")
    } else {
        format!("{label}: not found (tried {})", tried.join(", "))
    };
    let interesting = interesting_errors(errors);
    if !interesting.is_empty() {
        note.push_str(": ");
        note.push_str(&interesting.join("; "));
    }
    note
}

/// The load errors worth telling a person: a library that exists but does not load (wrong
/// architecture, missing dependency). "Cannot open shared object file" for a soname is just
/// "not installed".
pub(crate) fn interesting_errors(errors: &[String]) -> Vec<&str> {
    errors
        .iter()
        .map(String::as_str)
        .filter(|e| {
            e.ends_with("does not exist")
                || !e.contains("No such file") && !e.contains("cannot open shared object file")
        })
        .collect()
}

/// The multiarch folder name of this target (`x86_64-linux-gnu`).
#[cfg(target_os = "linux")]
fn multiarch() -> &'static str {
    if cfg!(target_arch = "x86_64") {
        "x86_64-linux-gnu"
    } else if cfg!(target_arch = "aarch64") {
        "aarch64-linux-gnu"
    } else if cfg!(target_arch = "powerpc64") {
        "powerpc64le-linux-gnu"
    } else if cfg!(target_arch = "x86") {
        "i386-linux-gnu"
    } else {
        "unknown-linux-gnu"
    }
}

/// Where the NVIDIA driver's user-space libraries live when the loader's cache does not list them.
#[cfg(target_os = "linux")]
pub(crate) fn driver_dirs() -> Vec<PathBuf> {
    [
        // WSL 2: the Windows driver's Linux libraries.
        "/usr/lib/wsl/lib".to_owned(),
        // Containers built on NVIDIA's images.
        "/usr/local/nvidia/lib64".to_owned(),
        "/usr/local/nvidia/lib".to_owned(),
        // Fedora/RHEL (negativo17, RPM Fusion), Debian's alternatives, NixOS.
        "/usr/lib64/nvidia".to_owned(),
        format!("/usr/lib/{}/nvidia/current", multiarch()),
        "/usr/lib/nvidia".to_owned(),
        "/run/opengl-driver/lib".to_owned(),
    ]
    .into_iter()
    .map(PathBuf::from)
    .collect()
}

/// Where the CUDA toolkit's libraries live when the loader's cache does not list them.
#[cfg(target_os = "linux")]
pub(crate) fn toolkit_dirs() -> Vec<PathBuf> {
    vec![
        PathBuf::from("/usr/local/cuda/lib64"),
        PathBuf::from("/usr/local/cuda/targets/x86_64-linux/lib"),
    ]
}

/// Where the ROCm libraries live.
#[cfg(target_os = "linux")]
pub(crate) fn rocm_dirs() -> Vec<PathBuf> {
    vec![PathBuf::from("/opt/rocm/lib")]
}

/// `%ProgramFiles%\NVIDIA Corporation\NVSMI` and `%SystemRoot%\System32`: the location of the
/// driver's DLLs and of `nvidia-smi.exe` (not an override: Windows says where these folders are).
#[cfg(windows)]
pub(crate) fn driver_dirs() -> Vec<PathBuf> {
    let program_files =
        std::env::var_os("ProgramFiles").unwrap_or_else(|| OsString::from(r"C:\Program Files"));
    let system_root =
        std::env::var_os("SystemRoot").unwrap_or_else(|| OsString::from(r"C:\Windows"));
    vec![
        PathBuf::from(program_files).join(r"NVIDIA Corporation\NVSMI"),
        PathBuf::from(system_root).join("System32"),
    ]
}

/// The CUDA toolkit's `bin` folder is on `PATH` when installed; nothing else to add.
#[cfg(windows)]
pub(crate) fn toolkit_dirs() -> Vec<PathBuf> {
    Vec::new()
}

/// `%HIP_PATH%` is for the CLI edge to pass in; nothing fixed to add.
#[cfg(windows)]
pub(crate) fn rocm_dirs() -> Vec<PathBuf> {
    Vec::new()
}

/// No NVIDIA or ROCm stack elsewhere (macOS, the BSDs): nothing to add.
#[cfg(not(any(target_os = "linux", windows)))]
pub(crate) fn driver_dirs() -> Vec<PathBuf> {
    Vec::new()
}

/// See [`driver_dirs`].
#[cfg(not(any(target_os = "linux", windows)))]
pub(crate) fn toolkit_dirs() -> Vec<PathBuf> {
    Vec::new()
}

/// See [`driver_dirs`].
#[cfg(not(any(target_os = "linux", windows)))]
pub(crate) fn rocm_dirs() -> Vec<PathBuf> {
    Vec::new()
}

macro_rules! per_os {
    (unix: $unix:expr, windows: $windows:expr $(,)?) => {{
        #[cfg(windows)]
        let names: &'static [&'static str] = $windows;
        #[cfg(not(windows))]
        let names: &'static [&'static str] = $unix;
        names
    }};
}

/// NVML.
pub(crate) const NVML: Spec = Spec {
    label: "NVML",
    names: per_os!(unix: &["libnvidia-ml.so.1"], windows: &["nvml.dll"]),
    dirs: driver_dirs,
};

/// The CUDA driver API.
pub(crate) const LIBCUDA: Spec = Spec {
    label: "libcuda",
    names: per_os!(unix: &["libcuda.so.1"], windows: &["nvcuda.dll"]),
    dirs: driver_dirs,
};

/// cuDNN: 9 first, then the older sonames.
pub(crate) const CUDNN: Spec = Spec {
    label: "cuDNN",
    names: per_os!(
        unix: &["libcudnn.so.9", "libcudnn.so.8", "libcudnn.so.7"],
        windows: &["cudnn64_9.dll", "cudnn64_8.dll"],
    ),
    dirs: toolkit_dirs,
};

/// NCCL (Linux only).
pub(crate) const NCCL: Spec = Spec {
    label: "NCCL",
    names: per_os!(unix: &["libnccl.so.2"], windows: &[]),
    dirs: toolkit_dirs,
};

/// cuTENSOR: 2 first, then 1.
pub(crate) const CUTENSOR: Spec = Spec {
    label: "cuTENSOR",
    names: per_os!(
        unix: &["libcutensor.so.2", "libcutensor.so.1"],
        windows: &["cutensor.dll"],
    ),
    dirs: toolkit_dirs,
};

/// The HIP runtime.
pub(crate) const HIP: Spec = Spec {
    label: "HIP",
    names: per_os!(
        unix: &["libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"],
        windows: &["amdhip64_6.dll", "amdhip64.dll"],
    ),
    dirs: rocm_dirs,
};

/// Reads a NUL-terminated C string out of a buffer the library filled, stopping at the buffer's
/// end if the library left no NUL.
pub(crate) fn c_buffer_to_string(buffer: &[std::ffi::c_char]) -> String {
    let bytes: Vec<u8> = buffer
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c.to_ne_bytes()[0])
        .collect();
    String::from_utf8_lossy(&bytes).trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_put_the_explicit_path_first() {
        let explicit = Path::new("/opt/x/libnvidia-ml.so.1");
        let all = candidates(&NVML, Some(explicit), true);
        assert_eq!(all[0].name, OsString::from("/opt/x/libnvidia-ml.so.1"));
        assert!(all[0].explicit);
        assert_eq!(all[1].name, OsString::from(NVML.names[0]));
        assert!(!all[1].explicit);
        assert!(all.len() > 2);
        assert_eq!(candidates(&NVML, Some(explicit), false).len(), 1);
        assert!(candidates(&NVML, None, false).is_empty());
    }

    #[test]
    fn c_buffers_stop_at_nul_or_end() {
        let buf: Vec<std::ffi::c_char> = b"550.1\0junk".iter().map(|&b| b as _).collect();
        assert_eq!(c_buffer_to_string(&buf), "550.1");
        let buf: Vec<std::ffi::c_char> = b"abc".iter().map(|&b| b as _).collect();
        assert_eq!(c_buffer_to_string(&buf), "abc");
    }

    #[test]
    fn a_missing_library_is_a_note_not_a_panic() {
        let cands = candidates(
            &NVML,
            Some(Path::new("/nonexistent/libnvidia-ml.so.1")),
            false,
        );
        let errors = load_first(&cands).err().unwrap();
        assert_eq!(errors, ["/nonexistent/libnvidia-ml.so.1 does not exist"]);
        let note = not_found_note("NVML", &cands, &errors);
        assert!(note.starts_with("NVML: not found"), "{note}");
        assert!(note.ends_with("does not exist"), "{note}");
        let searched = Candidate {
            name: "/nonexistent/libcuda.so.1".into(),
            explicit: false,
        };
        assert_eq!(load_first(&[searched]).err().unwrap(), Vec::<String>::new());
    }
}
