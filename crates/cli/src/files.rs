//! Reading the files a user names: bounded in size, never blocking, UTF-8 with an optional
//! byte-order mark.

use std::io::Read;
use std::path::Path;

/// Reads the file at PATH as text, for a message that calls it WHAT.
///
/// Only a regular file is read: a FIFO, a device (`/dev/zero`) or a folder is refused without
/// reading from it (the file is opened non-blocking, so that opening a FIFO with no writer
/// does not wait). A file larger than LIMIT bytes is refused after reading at most LIMIT + 1
/// bytes. A UTF-8 byte-order mark is dropped; other invalid UTF-8 is an error naming the byte.
pub(crate) fn read_user_file(path: &Path, what: &str, limit: u64) -> Result<String, String> {
    let shown = path.display();
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options
        .open(path)
        .map_err(|e| format!("cannot read {what} {shown}: {e}"))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read {what} {shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!(
            "cannot read {what} {shown}: not a regular file (a folder, FIFO or device); give a file"
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len().min(limit) as usize + 1);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {what} {shown}: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(format!(
            "cannot read {what} {shown}: larger than the limit of {} bytes",
            limit
        ));
    }
    let start = if bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    if start > 0 {
        bytes.drain(..start);
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "cannot read {what} {shown}: not UTF-8 (invalid byte at offset {})",
            e.utf8_error().valid_up_to() + start
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_and_regular_only() {
        let dir = std::env::temp_dir().join(format!("markerspec-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("bom.txt");
        std::fs::write(&f, b"\xEF\xBB\xBFnumpy\n").unwrap();
        assert_eq!(read_user_file(&f, "file", 100).unwrap(), "numpy\n");
        let e = read_user_file(&f, "file", 4).unwrap_err();
        assert!(e.contains("larger than the limit of 4 bytes"), "{e}");
        std::fs::write(&f, b"ok\n\xFF").unwrap();
        let e = read_user_file(&f, "file", 100).unwrap_err();
        assert!(e.contains("not UTF-8 (invalid byte at offset 3)"), "{e}");
        let e = read_user_file(&dir, "file", 100).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        #[cfg(unix)]
        {
            let e = read_user_file(Path::new("/dev/zero"), "file", 100).unwrap_err();
            assert!(e.contains("not a regular file"), "{e}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
