//! The machine's own architecture as Windows reports it through emulation (SPEC §8.12):
//! `IsWow64Process2`. Not a GPU fact, but a call into the operating system's C interface, and
//! this crate is where the workspace's `unsafe` code lives.

/// What `IsWow64Process2(GetCurrentProcess(), &process, &native)` says: the
/// `IMAGE_FILE_MACHINE_*` code of this process's emulation (`0` when it is not emulated) and of
/// the machine (`0x8664` x64, `0xAA64` Arm64, `0x014C` x86).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wow64Machines {
    /// The process's emulated machine, or `0` (`IMAGE_FILE_MACHINE_UNKNOWN`) when it runs
    /// natively.
    pub process: u16,
    /// The machine's native architecture.
    pub native: u16,
}

/// Asks Windows for this process's and the machine's architectures.
///
/// `IsWow64Process2` is looked up at run time in the already loaded `kernel32.dll`, so that a
/// Windows without it (before Windows 10 version 1709) answers `Ok(None)` instead of refusing
/// to start the program. `Ok(None)` on every other system.
///
/// # Errors
///
/// The function exists and failed (with the system's error), or `kernel32.dll` cannot be
/// opened.
#[doc(alias = "IsWow64Process2")]
pub fn wow64_machines() -> Result<Option<Wow64Machines>, String> {
    #[cfg(windows)]
    {
        windows::wow64_machines()
    }
    #[cfg(not(windows))]
    {
        Ok(None)
    }
}

#[cfg(windows)]
mod windows {
    use std::ffi::c_void;

    use libloading::os::windows::{Library, Symbol};

    use super::Wow64Machines;

    /// `HANDLE GetCurrentProcess(void)` (`processthreadsapi.h`).
    type GetCurrentProcess = unsafe extern "system" fn() -> *mut c_void;
    /// `BOOL IsWow64Process2(HANDLE, USHORT *, USHORT *)` (`wow64apiset.h`).
    type IsWow64Process2 = unsafe extern "system" fn(*mut c_void, *mut u16, *mut u16) -> i32;

    pub(super) fn wow64_machines() -> Result<Option<Wow64Machines>, String> {
        let kernel32 = Library::open_already_loaded("kernel32.dll")
            .map_err(|e| format!("kernel32.dll: {e}"))?;
        // SAFETY: the type is the declaration of `GetCurrentProcess` in processthreadsapi.h.
        let current: Symbol<GetCurrentProcess> = unsafe { kernel32.get(b"GetCurrentProcess\0") }
            .map_err(|e| format!("kernel32.dll: GetCurrentProcess: {e}"))?;
        // SAFETY: the type is the declaration of `IsWow64Process2` in wow64apiset.h.
        let is_wow64: Symbol<IsWow64Process2> = match unsafe { kernel32.get(b"IsWow64Process2\0") }
        {
            Ok(function) => function,
            Err(_) => return Ok(None),
        };
        let (mut process, mut native) = (0u16, 0u16);
        // SAFETY: `GetCurrentProcess` takes nothing and returns a pseudo-handle that is valid
        // in this process and needs no closing.
        let handle = unsafe { current() };
        // SAFETY: `handle` is this process's pseudo-handle; both out-parameters are valid
        // `USHORT`s that live across the call.
        let ok = unsafe { is_wow64(handle, &mut process, &mut native) };
        if ok == 0 {
            return Err(format!(
                "IsWow64Process2 failed: {}",
                std::io::Error::last_os_error()
            ));
        }
        Ok(Some(Wow64Machines { process, native }))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn windows_answers_and_others_say_nothing() {
        let answer = super::wow64_machines();
        if cfg!(windows) {
            let machines = answer.unwrap().expect("Windows 10 1709 or later");
            assert!(
                [0x8664, 0xAA64, 0x014C].contains(&machines.native),
                "{machines:?}"
            );
        } else {
            assert_eq!(answer, Ok(None));
        }
    }
}
