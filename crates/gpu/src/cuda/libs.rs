//! The optional CUDA libraries: cuDNN, NCCL, cuTENSOR, each asked for its own version.

use std::ffi::c_int;

use super::{CudaVersion, Libraries, LibraryStatus};
use crate::loader::{self, Spec};
use crate::probe::ProbeConfig;
use crate::report::LibVersion;

/// Loads each library and asks its version; each gets its [`LibraryStatus`]. Failures other
/// than "not installed" also go to `notes`, for people.
pub(crate) fn probe(cfg: &ProbeConfig, notes: &mut Vec<String>) -> Libraries {
    let mut cudnn_cuda_version = None;
    let mut cudart_note = None;
    let cudnn = status(
        cfg,
        &loader::CUDNN,
        cfg.cudnn_library.as_deref(),
        notes,
        |lib| {
            // SAFETY: `size_t cudnnGetVersion(void)` in `cudnn.h`.
            let function =
                unsafe { lib.function::<unsafe extern "C" fn() -> usize>("cudnnGetVersion") }
                    .ok_or("lacks `cudnnGetVersion`")?;
            // SAFETY: no arguments, no preconditions.
            let code = unsafe { function() };
            let version =
                LibVersion::from_nvidia_code("cuDNN", code as u64).map_err(|e| e.to_string())?;
            match cudart_version(lib) {
                Ok(v) => cudnn_cuda_version = Some(v),
                Err(why) => cudart_note = Some(format!("cuDNN: {}: {why}", lib.name)),
            }
            Ok(version)
        },
    );
    notes.extend(cudart_note);
    Libraries {
        cudnn,
        cudnn_cuda_version,
        nccl: status(
            cfg,
            &loader::NCCL,
            cfg.nccl_library.as_deref(),
            notes,
            |lib| {
                // SAFETY: `ncclResult_t ncclGetVersion(int *version)` in `nccl.h`.
                let function = unsafe {
                    lib.function::<unsafe extern "C" fn(*mut c_int) -> c_int>("ncclGetVersion")
                }
                .ok_or("lacks `ncclGetVersion`")?;
                let mut code: c_int = 0;
                // SAFETY: `code` is a valid `int` out-parameter.
                let result = unsafe { function(&mut code) };
                if result != 0 {
                    return Err(format!("ncclGetVersion returned ncclResult_t {result}"));
                }
                let code = u64::try_from(code)
                    .map_err(|_| format!("NCCL version code {code} is out of range"))?;
                LibVersion::from_nvidia_code("NCCL", code).map_err(|e| e.to_string())
            },
        ),
        cutensor: status(
            cfg,
            &loader::CUTENSOR,
            cfg.cutensor_library.as_deref(),
            notes,
            |lib| {
                // SAFETY: `size_t cutensorGetVersion(void)` in `cutensor.h`.
                let function = unsafe {
                    lib.function::<unsafe extern "C" fn() -> usize>("cutensorGetVersion")
                }
                .ok_or("lacks `cutensorGetVersion`")?;
                // SAFETY: no arguments, no preconditions.
                let code = unsafe { function() };
                LibVersion::from_nvidia_code("cuTENSOR", code as u64).map_err(|e| e.to_string())
            },
        ),
    }
}

/// The CUDA runtime version a loaded cuDNN was built for: `size_t cudnnGetCudartVersion()`,
/// decoded as `n / 1000 . n % 1000 / 10` (SPEC §8.10: `12020` is 12.2).
fn cudart_version(lib: &loader::Loaded) -> Result<CudaVersion, String> {
    // SAFETY: `size_t cudnnGetCudartVersion(void)` in `cudnn.h` (cuDNN 6 and later).
    let function =
        unsafe { lib.function::<unsafe extern "C" fn() -> usize>("cudnnGetCudartVersion") }
            .ok_or("lacks `cudnnGetCudartVersion`")?;
    // SAFETY: no arguments, no preconditions.
    let code = unsafe { function() };
    u32::try_from(code)
        .ok()
        .and_then(|n| CudaVersion::new(n / 1000, n % 1000 / 10))
        .ok_or_else(|| format!("cudnnGetCudartVersion returned {code}, out of range"))
}

fn status(
    cfg: &ProbeConfig,
    spec: &Spec,
    explicit: Option<&std::path::Path>,
    notes: &mut Vec<String>,
    ask: impl FnOnce(&loader::Loaded) -> Result<LibVersion, String>,
) -> LibraryStatus {
    let candidates = loader::candidates(spec, explicit, cfg.search_system);
    let lib = match loader::load_first(&candidates) {
        Ok(lib) => lib,
        Err(errors) => {
            // "Not installed" is the ordinary answer; only an explicit path that failed, or a
            // file that exists but does not load, is worth a note.
            let note = loader::not_found_note(spec.label, &candidates, &errors);
            if explicit.is_some() || !loader::interesting_errors(&errors).is_empty() {
                notes.push(note);
            }
            return LibraryStatus::NotFound;
        }
    };
    if let Some(note) = &lib.override_note {
        notes.push(format!("{}: {note}", spec.label));
    }
    match ask(&lib) {
        Ok(version) => LibraryStatus::Loaded {
            library: lib.name,
            version,
        },
        Err(reason) => {
            notes.push(format!("{}: {}: {reason}", spec.label, lib.name));
            LibraryStatus::Failed {
                library: lib.name,
                reason,
            }
        }
    }
}
