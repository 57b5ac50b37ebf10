//! The caches: one in this process's memory, one optional on disk in the user's own cache folder.
//!
//! A disk entry is trusted only when the file is a regular file (not a link) owned by this user,
//! not writable by group or others, inside a folder that is likewise this user's and closed to
//! others, and its schema and key match exactly. Anything else is ignored (with a note) and
//! rewritten by the next detection. The key names the driver's identity, so a driver upgrade or
//! a reboot makes old entries miss.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use crate::loader::{self, Spec};
use crate::probe::ProbeConfig;
use crate::report::{Detection, Origin, VendorReport};

/// Bumped when [`Entry`] or the key change. 2: one report per vendor (1 had fixed `cuda` and
/// `rocm` keys). 3: cuDNN's CUDA runtime version. 4: the CUDA version from the driver API only
/// (`driver_api`). The schema is part of the file name, so an entry of another schema is never
/// even opened: a miss, not an error.
const DISK_SCHEMA: u32 = 4;
/// No entry is larger than this; a larger file is not ours.
const MAX_ENTRY_BYTES: u64 = 1024 * 1024;

type Slots = Mutex<HashMap<String, Arc<OnceLock<Detection>>>>;

fn memory() -> &'static Slots {
    static MEMORY: OnceLock<Slots> = OnceLock::new();
    MEMORY.get_or_init(Slots::default)
}

/// Returns the detection cached under `key`, running `detect` once for it if there is none.
/// Concurrent callers with the same key wait for the one detection.
pub(crate) fn memoized(key: String, detect: impl FnOnce() -> Detection) -> Detection {
    let slot = {
        let mut slots = memory()
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        Arc::clone(slots.entry(key).or_default())
    };
    let mut ran = false;
    let detection = slot.get_or_init(|| {
        ran = true;
        detect()
    });
    let mut detection = detection.clone();
    if !ran {
        detection.origin = Origin::MemoryCache;
    }
    detection
}

/// Forgets every detection cached in this process's memory.
///
/// ```
/// markerspec_gpu::clear_memory_cache(); // the next `detect` asks the drivers again
/// ```
pub fn clear_memory_cache() {
    memory()
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clear();
}

/// The usual per-user cache folder for this crate: `$XDG_CACHE_HOME/markerspec` when that
/// variable holds an absolute path, else `~/.cache/markerspec` (`%LOCALAPPDATA%\markerspec` on
/// Windows, `~/Library/Caches/markerspec` on macOS). `None` when no home is known.
///
/// This reads the environment to find where the user's cache lives, as every program does; it is
/// not an override of any detected fact.
///
/// ```
/// if let Some(dir) = markerspec_gpu::default_cache_dir() {
///     assert!(dir.is_absolute() && dir.ends_with("markerspec"));
/// }
/// ```
#[must_use]
pub fn default_cache_dir() -> Option<PathBuf> {
    let absolute = |var: &str| {
        std::env::var_os(var)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    let base = if cfg!(windows) {
        absolute("LOCALAPPDATA")?
    } else if cfg!(target_os = "macos") {
        absolute("HOME")?.join("Library/Caches")
    } else {
        absolute("XDG_CACHE_HOME").or_else(|| absolute("HOME").map(|h| h.join(".cache")))?
    };
    Some(base.join("markerspec"))
}

/// What a disk entry is filed under and what it must match.
pub(crate) struct DiskKey {
    /// The configuration part: picks the file.
    slot: String,
    /// Everything, the driver's identity included: must match exactly.
    full: String,
}

/// Folders the system loader searches without being told (Linux).
#[cfg(target_os = "linux")]
fn loader_dirs() -> Vec<PathBuf> {
    let arch = std::env::consts::ARCH;
    let multiarch = format!("{arch}-linux-gnu");
    [
        "/lib".to_owned(),
        "/usr/lib".to_owned(),
        "/lib64".to_owned(),
        "/usr/lib64".to_owned(),
        "/usr/local/lib".to_owned(),
        format!("/lib/{multiarch}"),
        format!("/usr/lib/{multiarch}"),
    ]
    .into_iter()
    .map(PathBuf::from)
    .collect()
}

#[cfg(not(target_os = "linux"))]
fn loader_dirs() -> Vec<PathBuf> {
    Vec::new()
}

/// Builds the key for a configuration: the configuration itself, the library search path, the
/// boot, the kernel driver's version file, and the size, modification time and inode of every
/// library and program detection could load or run, wherever the loader might find it, and of
/// the ROCm release file, KFD topology folder and device node.
///
/// `context` is what else decides the answer and is in the memory key too: the probe program,
/// the `PATH` given to the probe, the variables added to its environment (the visible-device
/// variables, `ROCM_PATH`, …).
pub(crate) fn disk_key(
    cfg: &ProbeConfig,
    library_path: Option<&OsStr>,
    smi: Option<PathBuf>,
    context: &str,
) -> DiskKey {
    let mut slot = String::new();
    let _ = writeln!(
        slot,
        "markerspec-gpu {} disk schema {DISK_SCHEMA}",
        env!("CARGO_PKG_VERSION")
    );
    let _ = writeln!(
        slot,
        "config {}",
        serde_json::to_string(cfg).unwrap_or_default()
    );
    let _ = writeln!(slot, "library path {library_path:?}");
    let _ = writeln!(slot, "context {context}");

    let mut full = slot.clone();
    let _ = writeln!(
        full,
        "boot {:?}",
        read_small(Path::new("/proc/sys/kernel/random/boot_id"))
    );
    if let Some(file) = cfg.driver_version_file() {
        let _ = writeln!(full, "driver {:?}", read_small(&file));
    }
    let mut dirs: Vec<PathBuf> = library_path
        .map(|p| {
            std::env::split_paths(p)
                .filter(|d| d.is_absolute())
                .collect()
        })
        .unwrap_or_default();
    dirs.extend(loader_dirs());
    let specs: [(&Spec, Option<&Path>); 6] = [
        (&loader::NVML, cfg.nvml_library.as_deref()),
        (&loader::LIBCUDA, cfg.cuda_library.as_deref()),
        (&loader::CUDNN, cfg.cudnn_library.as_deref()),
        (&loader::NCCL, cfg.nccl_library.as_deref()),
        (&loader::CUTENSOR, cfg.cutensor_library.as_deref()),
        (&loader::HIP, cfg.hip_library.as_deref()),
    ];
    for (spec, explicit) in specs {
        let mut files: Vec<PathBuf> = explicit.map(Path::to_path_buf).into_iter().collect();
        if cfg.search_system {
            for dir in dirs.iter().cloned().chain((spec.dirs)()) {
                files.extend(spec.names.iter().map(|name| dir.join(name)));
            }
        }
        for file in files {
            if let Some(identity) = file_identity(&file) {
                let _ = writeln!(full, "file {} {identity}", file.display());
            }
        }
    }
    for file in smi
        .into_iter()
        .chain(cfg.search_system.then(|| PathBuf::from("/etc/ld.so.cache")))
        .chain(crate::rocm::cache_inputs(cfg))
    {
        if let Some(identity) = file_identity(&file) {
            let _ = writeln!(full, "file {} {identity}", file.display());
        }
    }
    DiskKey { slot, full }
}

fn read_small(path: &Path) -> Option<String> {
    let mut text = String::new();
    fs::File::open(path)
        .ok()?
        .take(64 * 1024)
        .read_to_string(&mut text)
        .ok()?;
    Some(text)
}

/// Size, modification time and (on Unix) inode and change time of a file, following links.
fn file_identity(path: &Path) -> Option<String> {
    let meta = fs::metadata(path).ok()?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    #[cfg(unix)]
    let extra = {
        use std::os::unix::fs::MetadataExt;
        format!(
            " ino {} ctime {}.{}",
            meta.ino(),
            meta.ctime(),
            meta.ctime_nsec()
        )
    };
    #[cfg(not(unix))]
    let extra = String::new();
    Some(format!("len {} mtime {mtime}{extra}", meta.len()))
}

/// 64-bit FNV-1a: stable across Rust releases, unlike the standard hasher. Only names files;
/// the full key is compared on read.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn entry_path(dir: &Path, key: &DiskKey) -> PathBuf {
    dir.join(format!("cuda-{:016x}.json", fnv1a(&key.slot)))
}

/// What a disk entry holds.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    schema: u32,
    key: String,
    vendors: Vec<VendorReport>,
    notes: Vec<String>,
}

/// Just the schema number of an entry, read before the rest so that an entry of another schema
/// is a plain miss whatever its shape.
#[derive(Deserialize)]
struct EntrySchema {
    schema: u32,
}

/// Reads a valid entry, or says why there is none in `notes` (nothing when there simply is no
/// file yet).
pub(crate) fn load(dir: &Path, key: &DiskKey, notes: &mut Vec<String>) -> Option<Detection> {
    if let Err(why) = check_dir(dir) {
        notes.push(format!("disk cache not used: {}: {why}", dir.display()));
        return None;
    }
    let path = entry_path(dir, key);
    let ignore = |notes: &mut Vec<String>, why: &str| {
        notes.push(format!(
            "disk cache entry {} ignored: {why}",
            path.display()
        ));
    };
    let bytes = match read_entry(&path) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return None,
        Err(why) => {
            ignore(notes, &why);
            return None;
        }
    };
    match serde_json::from_slice::<EntrySchema>(&bytes) {
        Ok(EntrySchema { schema }) if schema != DISK_SCHEMA => {
            ignore(notes, &format!("schema {schema} is not {DISK_SCHEMA}"));
            return None;
        }
        _ => {}
    }
    let entry: Entry = match serde_json::from_slice(&bytes) {
        Ok(entry) => entry,
        Err(error) => {
            ignore(notes, &format!("not a cache entry ({error})"));
            return None;
        }
    };
    if entry.key != key.full {
        ignore(
            notes,
            "the driver, libraries or boot changed since it was written",
        );
        return None;
    }
    Some(Detection {
        vendors: entry.vendors,
        origin: Origin::DiskCache,
        notes: entry.notes,
    })
}

/// Writes an entry atomically (a private temporary file renamed over the old one). Failures go
/// to `notes`; detection does not depend on the cache.
pub(crate) fn store(dir: &Path, key: &DiskKey, detection: &Detection, notes: &mut Vec<String>) {
    let entry = Entry {
        schema: DISK_SCHEMA,
        key: key.full.clone(),
        vendors: detection.vendors.clone(),
        notes: detection.notes.clone(),
    };
    if let Err(error) = create_dir(dir).and_then(|()| write_entry(&entry_path(dir, key), &entry)) {
        notes.push(format!(
            "disk cache not written in {}: {error}",
            dir.display()
        ));
    }
}

fn write_entry(path: &Path, entry: &Entry) -> std::io::Result<()> {
    let json = serde_json::to_vec(entry).map_err(std::io::Error::other)?;
    let nanos = std::time::SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let temp = path.with_extension(format!("{}.{nanos}.tmp", std::process::id()));
    let written = (|| {
        let mut file = private_file(&temp)?;
        file.write_all(&json)?;
        file.sync_all()?;
        fs::rename(&temp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}

#[cfg(unix)]
fn private_file(path: &Path) -> std::io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

#[cfg(not(unix))]
fn private_file(path: &Path) -> std::io::Result<fs::File> {
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
}

#[cfg(unix)]
fn create_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    check_dir(dir).map_err(std::io::Error::other)
}

#[cfg(not(unix))]
fn create_dir(dir: &Path) -> std::io::Result<()> {
    fs::create_dir_all(dir)
}

#[cfg(unix)]
fn euid() -> u32 {
    // SAFETY: geteuid(2) has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// The folder, if it exists, must be a real folder of this user's that others cannot write to.
#[cfg(unix)]
fn check_dir(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let meta = match fs::symlink_metadata(dir) {
        Ok(meta) => meta,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(error.to_string()),
    };
    if !meta.is_dir() {
        return Err("not a folder (or a symbolic link)".to_owned());
    }
    check_owner_and_mode(meta.uid(), meta.mode())?;
    check_parents(dir)
}

/// Every folder above the cache folder (links resolved) must belong to this user or to root,
/// and must not be writable by group or others unless it is sticky (as `/tmp` is): otherwise
/// someone else could swap the cache folder for one of theirs.
#[cfg(unix)]
fn check_parents(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) else {
        return Ok(());
    };
    let real =
        fs::canonicalize(parent).map_err(|e| format!("its parent {}: {e}", parent.display()))?;
    for ancestor in real.ancestors() {
        let meta = fs::metadata(ancestor)
            .map_err(|e| format!("its parent {}: {e}", ancestor.display()))?;
        let uid = meta.uid();
        if uid != euid() && uid != 0 {
            return Err(format!(
                "its parent {} is owned by uid {uid}, neither this user nor root",
                ancestor.display()
            ));
        }
        if meta.mode() & 0o022 != 0 && meta.mode() & 0o1000 == 0 {
            return Err(format!(
                "its parent {} is writable by group or others (mode {:o})",
                ancestor.display(),
                meta.mode() & 0o7777
            ));
        }
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_dir(_dir: &Path) -> Result<(), String> {
    Ok(())
}

#[cfg(unix)]
fn check_owner_and_mode(uid: u32, mode: u32) -> Result<(), String> {
    if uid != euid() {
        return Err(format!("owned by uid {uid}, not {}", euid()));
    }
    if mode & 0o022 != 0 {
        return Err(format!(
            "writable by group or others (mode {:o})",
            mode & 0o7777
        ));
    }
    Ok(())
}

/// The entry's bytes; `Ok(None)` when there is no entry; `Err` when there is one that must not
/// be trusted.
#[cfg(unix)]
fn read_entry(path: &Path) -> Result<Option<Vec<u8>>, String> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let file = match fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
    {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) if error.raw_os_error() == Some(libc::ELOOP) => {
            return Err("a symbolic link".to_owned());
        }
        Err(error) => return Err(error.to_string()),
    };
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".to_owned());
    }
    check_owner_and_mode(meta.uid(), meta.mode())?;
    read_capped(file, meta.len())
}

#[cfg(not(unix))]
fn read_entry(path: &Path) -> Result<Option<Vec<u8>>, String> {
    let file = match fs::File::open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error.to_string()),
    };
    let len = file.metadata().map_err(|e| e.to_string())?.len();
    read_capped(file, len)
}

fn read_capped(file: fs::File, len: u64) -> Result<Option<Vec<u8>>, String> {
    if len > MAX_ENTRY_BYTES {
        return Err(format!("{len} bytes is too large"));
    }
    let mut bytes = Vec::new();
    file.take(MAX_ENTRY_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    Ok(Some(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_is_the_published_function() {
        assert_eq!(fnv1a(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn the_key_follows_the_driver_file() {
        let dir = std::env::temp_dir().join(format!("markerspec-gpu-key-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let lib = dir.join("libnvidia-ml.so.1");
        let version = dir.join("version");
        fs::write(&lib, b"one").unwrap();
        fs::write(&version, b"NVRM version: 1").unwrap();
        let cfg = ProbeConfig {
            search_system: false,
            nvml_library: Some(lib.clone()),
            driver_version_file: Some(version.clone()),
            ..ProbeConfig::default()
        };
        let a = disk_key(&cfg, None, None, "");
        let b = disk_key(&cfg, None, None, "");
        assert_eq!(a.full, b.full);
        fs::write(&lib, b"longer").unwrap();
        let c = disk_key(&cfg, None, None, "");
        assert_eq!(a.slot, c.slot);
        assert_ne!(a.full, c.full);
        fs::write(&version, b"NVRM version: 2").unwrap();
        assert_ne!(c.full, disk_key(&cfg, None, None, "").full);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_key_follows_the_rocm_release_and_device() {
        let dir = std::env::temp_dir().join(format!("markerspec-gpu-rkey-{}", std::process::id()));
        fs::create_dir_all(dir.join(".info")).unwrap();
        fs::create_dir_all(dir.join("topology")).unwrap();
        let release = dir.join(".info").join("version");
        let device = dir.join("kfd");
        fs::write(&release, b"6.3.1-48").unwrap();
        fs::write(&device, b"").unwrap();
        let cfg = ProbeConfig {
            search_system: false,
            rocm: true,
            rocm_path: Some(dir.clone()),
            kfd_topology: Some(dir.join("topology")),
            kfd_device: Some(device.clone()),
            ..ProbeConfig::default()
        };
        let a = disk_key(&cfg, None, None, "");
        fs::write(&release, b"6.4.0-1").unwrap();
        let b = disk_key(&cfg, None, None, "");
        assert_ne!(a.full, b.full, "a ROCm upgrade changes the key");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&device, fs::Permissions::from_mode(0o600)).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(20));
            fs::set_permissions(&device, fs::Permissions::from_mode(0o666)).unwrap();
            assert_ne!(
                b.full,
                disk_key(&cfg, None, None, "").full,
                "so does the device's mode"
            );
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_key_holds_the_visible_devices_and_the_rest_of_the_context() {
        let cfg = ProbeConfig::default();
        let all = disk_key(&cfg, None, None, r#"env [("CUDA_VISIBLE_DEVICES", "0,1")]"#);
        let one = disk_key(&cfg, None, None, r#"env [("CUDA_VISIBLE_DEVICES", "1")]"#);
        assert_ne!(all.slot, one.slot);
        assert_ne!(all.full, one.full);
    }

    #[cfg(unix)]
    #[test]
    fn a_cache_folder_under_a_folder_others_can_write_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let root =
            std::env::temp_dir().join(format!("markerspec-gpu-parents-{}", std::process::id()));
        let open = root.join("open");
        let cache = open.join("cache");
        fs::create_dir_all(&cache).unwrap();
        fs::set_permissions(&root, fs::Permissions::from_mode(0o755)).unwrap();
        fs::set_permissions(&cache, fs::Permissions::from_mode(0o700)).unwrap();
        fs::set_permissions(&open, fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(check_dir(&cache), Ok(()));
        // Anyone may write the parent: anyone could swap the cache folder.
        fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).unwrap();
        let refused = check_dir(&cache).unwrap_err();
        assert!(refused.contains("writable by group or others"), "{refused}");
        // Sticky, as /tmp is: others cannot rename what is ours.
        fs::set_permissions(&open, fs::Permissions::from_mode(0o1777)).unwrap();
        assert_eq!(check_dir(&cache), Ok(()));
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn default_dir_ends_in_markerspec() {
        if let Some(dir) = default_cache_dir() {
            assert!(dir.is_absolute());
            assert!(dir.ends_with("markerspec"));
        }
    }
}
