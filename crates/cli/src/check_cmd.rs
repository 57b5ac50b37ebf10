//! `markerspec check FILE`: every requirement of a requirements file, a `pyproject.toml` or a
//! core metadata file, with whether it applies to the environment, and a diagnostic with its
//! line for each invalid one.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use markerspec_pep508::{
    Environment, Error, Requirement, Severity, Truth, Warning, normalize_name, render,
};

use crate::Language;

/// Arguments of `markerspec check`.
#[derive(clap::Args, Debug)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    lang: Language,
    /// A JSON environment document (SPEC §11) instead of detecting this machine.
    #[arg(long, value_name = "FILE")]
    env: Option<PathBuf>,
    /// A built-in environment fixture instead of detecting this machine.
    #[arg(long, value_name = "NAME", conflicts_with = "env")]
    fixture: Option<String>,
    /// Request an extra for every requirement (for `extra == "…"`). Repeatable.
    #[arg(long = "extra", value_name = "NAME")]
    extras: Vec<String>,
    /// `requirements.txt`, `pyproject.toml`, or a core metadata file (`METADATA`, `PKG-INFO`).
    file: PathBuf,
}

/// One requirement string found in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Item {
    /// 1-based line of its start.
    line: usize,
    /// The requirement text.
    text: String,
    /// Byte offset of `text` in the file, when the text is the file's bytes verbatim.
    offset: Option<usize>,
    /// `extra: NAME` or `group: NAME`, for pyproject tables.
    context: Option<String>,
    /// The extra this requirement is installed for (pyproject optional dependencies).
    extra: Option<String>,
}

/// Which format a file is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Requirements,
    Pyproject,
    Metadata,
}

fn format_of(path: &Path, text: &str) -> Format {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name == "pyproject.toml" || name.ends_with(".toml") {
        Format::Pyproject
    } else if name == "METADATA" || name == "PKG-INFO" || text.starts_with("Metadata-Version:") {
        Format::Metadata
    } else {
        Format::Requirements
    }
}

/// The requirements of a requirements file: comments, blank lines and option lines (`-r`,
/// `--index-url`, …) skipped, `\` continuations joined, per-requirement options (`--hash=…`)
/// dropped. Paths and URLs without a name are skipped too: they are not PEP 508 requirements.
fn requirements_txt(text: &str) -> Vec<Item> {
    let mut items = Vec::new();
    let mut pending: Option<(usize, usize, String, bool)> = None; // (line, offset, text, joined)
    let mut offset = 0;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let (first_line, first_offset, mut joined_text, joined) = match pending.take() {
            Some((l, o, t, _)) => (l, o, t, true),
            None => (i + 1, start, String::new(), false),
        };
        if let Some(body) = line.strip_suffix('\\') {
            joined_text.push_str(body);
            pending = Some((first_line, first_offset, joined_text, true));
            continue;
        }
        joined_text.push_str(line);
        let content = strip_comment(&joined_text);
        let content = strip_options(content);
        let lead = content.len() - content.trim_start().len();
        let trimmed = content.trim();
        if trimmed.is_empty() || trimmed.starts_with('-') || is_path_or_url(trimmed) {
            continue;
        }
        items.push(Item {
            line: first_line,
            text: trimmed.to_owned(),
            offset: (!joined).then_some(first_offset + lead),
            context: None,
            extra: None,
        });
    }
    if let Some((line, _, text, _)) = pending {
        let content = strip_options(strip_comment(&text)).trim().to_owned();
        if !content.is_empty() && !content.starts_with('-') && !is_path_or_url(&content) {
            items.push(Item {
                line,
                text: content,
                offset: None,
                context: None,
                extra: None,
            });
        }
    }
    items
}

/// Drops a comment: `#` at the start or after whitespace, as pip does.
fn strip_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'#' && (i == 0 || bytes[i - 1].is_ascii_whitespace()) {
            return &line[..i];
        }
    }
    line
}

/// Drops per-requirement options (` --hash=…`, ` --config-settings …`): everything from the
/// first ` --` outside quotes.
fn strip_options(line: &str) -> &str {
    let bytes = line.as_bytes();
    let mut quote = None;
    for i in 0..bytes.len() {
        match (quote, bytes[i]) {
            (None, b'"' | b'\'') => quote = Some(bytes[i]),
            (Some(q), b) if b == q => quote = None,
            (None, b'-')
                if i > 0
                    && bytes[i - 1].is_ascii_whitespace()
                    && bytes.get(i + 1) == Some(&b'-') =>
            {
                return &line[..i];
            }
            _ => {}
        }
    }
    line
}

fn is_path_or_url(text: &str) -> bool {
    text.starts_with(['.', '/', '~', '\\'])
        || text.starts_with("file:")
        || text.split_once("://").is_some_and(|(scheme, _)| {
            !scheme.is_empty()
                && scheme
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"+.-".contains(&b))
        })
}

/// The `Requires-Dist` fields of a core metadata file (headers end at the first blank line).
fn metadata(text: &str) -> Vec<Item> {
    let mut items = Vec::new();
    let mut offset = 0;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        if line.is_empty() {
            break;
        }
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        if !name.eq_ignore_ascii_case("Requires-Dist") {
            continue;
        }
        let lead = value.len() - value.trim_start().len();
        items.push(Item {
            line: i + 1,
            text: value.trim().to_owned(),
            offset: Some(start + name.len() + 1 + lead),
            context: None,
            extra: None,
        });
    }
    items
}

/// `[project] dependencies`, `[project.optional-dependencies]` (each with its extra
/// requested) and `[dependency-groups]` (include-group tables skipped).
fn pyproject(text: &str) -> Result<Vec<Item>, String> {
    use std::collections::BTreeMap;
    use toml::Spanned;
    #[derive(serde::Deserialize)]
    struct Doc {
        project: Option<Project>,
        #[serde(rename = "dependency-groups")]
        dependency_groups: Option<BTreeMap<String, Vec<Spanned<toml::Value>>>>,
    }
    #[derive(serde::Deserialize)]
    struct Project {
        dependencies: Option<Vec<Spanned<String>>>,
        #[serde(rename = "optional-dependencies")]
        optional_dependencies: Option<BTreeMap<String, Vec<Spanned<String>>>>,
    }
    let doc: Doc = toml::from_str(text).map_err(|e| e.to_string())?;
    let item = |span: std::ops::Range<usize>, value: &str, context, extra| {
        let raw = text.get(span.clone()).unwrap_or("");
        let verbatim = raw.len() >= 2
            && (raw.starts_with('"') || raw.starts_with('\''))
            && !raw.starts_with("\"\"\"")
            && !raw.starts_with("'''")
            && &raw[1..raw.len() - 1] == value;
        Item {
            line: text[..span.start.min(text.len())].matches('\n').count() + 1,
            text: value.to_owned(),
            offset: verbatim.then_some(span.start + 1),
            context,
            extra,
        }
    };
    let mut items = Vec::new();
    if let Some(project) = &doc.project {
        for dep in project.dependencies.iter().flatten() {
            items.push(item(dep.span(), dep.get_ref(), None, None));
        }
        for (extra, deps) in project.optional_dependencies.iter().flatten() {
            for dep in deps {
                items.push(item(
                    dep.span(),
                    dep.get_ref(),
                    Some(format!("extra: {extra}")),
                    Some(extra.clone()),
                ));
            }
        }
    }
    for (group, entries) in doc.dependency_groups.iter().flatten() {
        for entry in entries {
            if let toml::Value::String(s) = entry.get_ref() {
                items.push(item(entry.span(), s, Some(format!("group: {group}")), None));
            }
        }
    }
    items.sort_by_key(|i| i.line);
    Ok(items)
}

/// Renders an error against the file when the requirement is verbatim there (so the line shown
/// is the file's), else against the requirement alone; prefixed with `file:line`.
fn error_text(path: &str, file: &str, item: &Item, e: &Error) -> String {
    let (code, message, help, span) = (e.code(), e.message(), e.help(), e.span());
    let (rendered, line) = match item.offset {
        Some(offset) => (
            render(
                Severity::Error,
                code,
                &message,
                help.as_deref(),
                file,
                span.shift(offset),
            ),
            file[..(offset + span.start).min(file.len())]
                .matches('\n')
                .count()
                + 1,
        ),
        None => (
            render(
                Severity::Error,
                code,
                &message,
                help.as_deref(),
                &item.text,
                span,
            ),
            item.line,
        ),
    };
    format!("{path}:{line}: {rendered}")
}

fn warning_text(path: &str, item: &Item, w: &Warning) -> String {
    format!("{path}:{}: {}", item.line, w.render(&item.text))
}

pub(crate) fn run(args: CheckArgs) -> Result<ExitCode, String> {
    let text = std::fs::read_to_string(&args.file)
        .map_err(|e| format!("cannot read {}: {e}", args.file.display()))?;
    let path = args.file.display().to_string();
    let items = match format_of(&args.file, &text) {
        Format::Requirements => requirements_txt(&text),
        Format::Metadata => metadata(&text),
        Format::Pyproject => {
            pyproject(&text).map_err(|e| format!("cannot read {path} as TOML: {e}"))?
        }
    };
    let env = match (&args.env, &args.fixture) {
        (Some(file), _) => {
            let doc = std::fs::read_to_string(file)
                .map_err(|e| format!("cannot read environment file {}: {e}", file.display()))?;
            serde_json::from_str::<Environment>(&doc)
                .map_err(|e| format!("invalid environment file {}: {e}", file.display()))?
        }
        (None, Some(name)) => crate::fixtures::load(name)?,
        (None, None) => crate::env_cmd::detected_environment()?,
    };
    let opts = args.lang.options();
    let (mut applies, mut not, mut unknown, mut invalid) = (0, 0, 0, 0);
    let width = items
        .iter()
        .map(|i| format!("{path}:{}", i.line).len())
        .max()
        .unwrap_or(0);
    for item in &items {
        let location = format!("{path}:{}", item.line);
        let context = item
            .context
            .as_ref()
            .map(|c| format!("  [{c}]"))
            .unwrap_or_default();
        let mut warnings = Vec::new();
        let req = match Requirement::parse_with(&item.text, &opts, &mut warnings) {
            Ok(r) => r,
            Err(e) => {
                invalid += 1;
                println!("{location:width$}  invalid  {}{context}", item.text);
                eprint!("{}", error_text(&path, &text, item, &e));
                continue;
            }
        };
        for w in &warnings {
            eprint!("{}", warning_text(&path, item, w));
        }
        let mut extras: Vec<String> = args.extras.iter().map(|e| normalize_name(e)).collect();
        extras.extend(item.extra.iter().map(|e| normalize_name(e)));
        let env = if extras.is_empty() {
            env.clone()
        } else {
            let mut all: Vec<String> = env.extras().map(str::to_owned).collect();
            all.extend(extras);
            env.clone().with_extras(all)
        };
        let evaluation = match req.marker() {
            None => Ok(None),
            Some(m) => m.evaluate_tristate(&env).map(Some),
        };
        let answer = match evaluation {
            Err(e) => {
                invalid += 1;
                println!("{location:width$}  invalid  {req}{context}");
                eprint!("{}", error_text(&path, &text, item, &e));
                continue;
            }
            Ok(None) => {
                applies += 1;
                "true".to_owned()
            }
            Ok(Some(e)) => match e.truth {
                Truth::True => {
                    applies += 1;
                    "true".to_owned()
                }
                Truth::False => {
                    not += 1;
                    "false".to_owned()
                }
                Truth::Unknown => {
                    unknown += 1;
                    let names: Vec<&str> = e.unknown.iter().map(|f| f.name()).collect();
                    format!("unknown ({})", names.join(","))
                }
            },
        };
        println!("{location:width$}  {answer:<7}  {req}{context}");
    }
    println!(
        "{} requirement(s): {applies} apply, {not} do not, {unknown} unknown, {invalid} invalid",
        items.len()
    );
    Ok(ExitCode::from(if invalid > 0 { 2 } else { 0 }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(items: &[Item]) -> Vec<(usize, &str, Option<usize>)> {
        items
            .iter()
            .map(|i| (i.line, i.text.as_str(), i.offset))
            .collect()
    }

    #[test]
    fn requirements_files() {
        let file = "# comment\n-r base.txt\n--index-url https://x\n\nnumpy>=2 ; python_version >= '3.10'  # why\n\
                    torch \\\n  >=2.4 ; sys_platform == 'linux'\nrequests==2.32.3 --hash=sha256:abc\n./local/pkg\nhttps://x/y.whl\n  scipy\n";
        let items = requirements_txt(file);
        assert_eq!(
            texts(&items),
            vec![
                (
                    5,
                    "numpy>=2 ; python_version >= '3.10'",
                    Some(file.find("numpy").unwrap())
                ),
                (6, "torch   >=2.4 ; sys_platform == 'linux'", None),
                (8, "requests==2.32.3", Some(file.find("requests").unwrap())),
                (11, "scipy", Some(file.find("scipy").unwrap())),
            ]
        );
    }

    #[test]
    fn metadata_files() {
        let file = "Metadata-Version: 2.4\nName: x\nRequires-Dist: numpy>=2\nrequires-dist:  torch; extra == 'gpu'\n\nRequires-Dist: not-a-header\n";
        let items = metadata(file);
        assert_eq!(
            texts(&items),
            vec![
                (3, "numpy>=2", Some(file.find("numpy").unwrap())),
                (
                    4,
                    "torch; extra == 'gpu'",
                    Some(file.find("torch").unwrap())
                ),
            ]
        );
    }

    #[test]
    fn pyproject_files() {
        let file = r#"[project]
name = "x"
dependencies = [
  "numpy>=2",
  'torch; sys_platform == "linux"',
  "esc\u0061ped",
]
[project.optional-dependencies]
gpu = ["cupy-cuda12x; extra == 'gpu'"]
[dependency-groups]
test = ["pytest", {include-group = "lint"}]
lint = ["ruff"]
"#;
        let items = pyproject(file).unwrap();
        let found: Vec<(usize, &str, Option<&str>, bool)> = items
            .iter()
            .map(|i| {
                (
                    i.line,
                    i.text.as_str(),
                    i.extra.as_deref(),
                    i.offset.is_some(),
                )
            })
            .collect();
        assert_eq!(
            found,
            vec![
                (4, "numpy>=2", None, true),
                (5, "torch; sys_platform == \"linux\"", None, true),
                (6, "escaped", None, false),
                (9, "cupy-cuda12x; extra == 'gpu'", Some("gpu"), true),
                (11, "pytest", None, true),
                (12, "ruff", None, true),
            ]
        );
        let numpy = &items[0];
        assert_eq!(&file[numpy.offset.unwrap()..][..8], "numpy>=2");
        assert!(pyproject("[project\n").is_err());
    }

    #[test]
    fn comments_and_options() {
        assert_eq!(strip_comment("a # b"), "a ");
        assert_eq!(strip_comment("a#b"), "a#b");
        assert_eq!(strip_options("a ; b == '--x' --hash=1"), "a ; b == '--x' ");
        assert!(is_path_or_url("git+https://github.com/x/y"));
        assert!(!is_path_or_url("name @ https://x/y.whl"));
    }
}
