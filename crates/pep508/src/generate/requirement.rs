//! Whole dependency specifiers.

use arbitrary::{Result, Unstructured};

use super::{Options, chance, marker, parses_requirement, pick, specifier_text};

const NAMES: &[&str] = &[
    "numpy",
    "torch",
    "Foo.Bar",
    "a",
    "my-pkg",
    "my_pkg",
    "A1",
    "nvidia-cudnn-cu12",
    "cupy-cuda12x",
    "jax",
    "z.z-z_z",
];

const EXTRAS: &[&str] = &["test", "cuda", "Dev_Tools", "docs", "a.b", "gpu", "x-y"];

const URLS: &[&str] = &[
    "https://example.com/pkg-1.0.tar.gz",
    "https://files.example.org/torch-2.5.0+cu121-cp312-cp312-linux_x86_64.whl#sha256=00ff",
    "file:///tmp/pkg-1.0-py3-none-any.whl",
    "git+https://github.com/org/repo.git@v1.2#egg=repo",
    "https://user:pass@example.com:8443/simple/pkg/",
    "file:./local/dir",
];

/// Prints a dependency specifier: `name [extras] (specifiers | @ url) ; marker`, each part
/// with the weights' chances, with the whitespace freedom the grammar gives (specifiers bare
/// or in parentheses, a space or none before `;`).
///
/// With [`Options::valid_only`], the text parses under the `spec-2026` and `packaging`
/// profiles (a draw that would not is drawn again; after sixteen tries, `numpy>=1.0`).
///
/// # Errors
/// Only what [`Unstructured`] reports.
pub fn requirement(u: &mut Unstructured<'_>, options: &Options) -> Result<String> {
    for _ in 0..16 {
        let text = draw(u, options)?;
        if !options.valid_only || parses_requirement(&text, options) {
            return Ok(text);
        }
    }
    Ok("numpy>=1.0".into())
}

fn draw(u: &mut Unstructured<'_>, options: &Options) -> Result<String> {
    let w = options.weights;
    let mut s = String::new();
    s.push_str(pick(u, NAMES)?);
    if chance(u, w.requirement_extras)? {
        s.push_str(pick(u, &["", " "])?);
        s.push('[');
        let n = u.int_in_range(0..=3)?;
        for i in 0..n {
            if i > 0 {
                s.push_str(pick(u, &[",", ", ", " ,"])?);
            }
            s.push_str(pick(u, EXTRAS)?);
        }
        s.push(']');
    }
    let mut url = false;
    if chance(u, w.requirement_url)? {
        s.push_str(pick(u, &[" @ ", "@ ", " @"])?);
        s.push_str(pick(u, URLS)?);
        url = true;
    } else {
        let n = u.int_in_range(0..=3)?;
        let specs = (0..n)
            .map(|_| specifier_text(u))
            .collect::<Result<Vec<_>>>()?
            .join(pick(u, &[",", ", ", " , "])?);
        if !specs.is_empty() {
            if u.ratio(1, 5)? {
                s.push_str(pick(u, &["(", " ("])?);
                s.push_str(&specs);
                s.push(')');
            } else {
                s.push_str(pick(u, &["", " "])?);
                s.push_str(&specs);
            }
        }
    }
    if chance(u, w.requirement_marker)? {
        // After a URL the `;` needs whitespace before it, or it would be part of the URL.
        s.push_str(if url {
            " ; "
        } else {
            pick(u, &["; ", ";", " ; "])?
        });
        s.push_str(&marker(u, options)?.text);
    }
    Ok(s)
}
