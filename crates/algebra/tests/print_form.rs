//! The printed form is versioned (`PRINT_FORM_VERSION`, `spec/SPEC.md` §21.4): a lock file
//! that stores printed markers relies on a version printing every marker the same way. This
//! test pins the printed form of every lock-file marker in `tests/data/lock-markers.txt`
//! (real markers from `uv.lock` and `poetry.lock` files), under no theory and under
//! `platform`: a change to the printer that changes any of them fails here, and is either a
//! bug or a new `PRINT_FORM_VERSION` (then `cargo insta review` takes the new texts).

use markerspec_algebra::{Context, PRINT_FORM_VERSION, Theory};
use markerspec_pep508::MarkerTree;

/// Each marker of the data file and its printed form, one pair of lines per marker.
fn printed(theory: &Theory) -> Result<String, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/lock-markers.txt"
    ))?;
    let mut ctx = Context::new();
    let mut out = format!("print form {PRINT_FORM_VERSION}\n");
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let tree: MarkerTree = line.parse()?;
        let m = ctx.from_marker(&tree, theory)?;
        out.push_str(&ctx.to_marker_string(m)?);
        out.push('\n');
    }
    Ok(out)
}

#[test]
fn lock_markers_print_as_this_version_prints_them() -> Result<(), Box<dyn std::error::Error>> {
    insta::assert_snapshot!("lock_markers_none", printed(&Theory::none())?);
    insta::assert_snapshot!("lock_markers_platform", printed(&Theory::platform())?);
    Ok(())
}
