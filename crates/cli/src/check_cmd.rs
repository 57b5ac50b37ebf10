//! `markerspec check FILE`: every requirement of a requirements file, a `pyproject.toml` or a
//! core metadata file, with whether it applies to the environment, a diagnostic with its line
//! for each invalid one, and every line that is not evaluated with the reason.
//!
//! - A requirements file's `-r FILE` and `-c FILE` are followed (relative to the including
//!   file; a cycle or nesting deeper than [`MAX_DEPTH`] files is an error); other pip options,
//!   editable installs and bare paths or URLs are reported as not evaluated.
//! - In `pyproject.toml`, `{include-group = "…"}` is followed (a cycle is an error), and an
//!   optional dependency is evaluated only when its extra is requested (`--extra NAME`,
//!   `--all-extras`), as pip and uv install them.
//! - With several environments, each requirement gets one answer per environment (a column
//!   each, as `eval` prints them) and the summary counts per environment.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use markerspec_pep508::{Error, Requirement, Severity, Truth, Warning, normalize_name, render};

use crate::Language;
use crate::envs::EnvOptions;

/// Arguments of `markerspec check`.
#[derive(clap::Args, Debug)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    lang: Language,
    #[command(flatten)]
    envs: EnvOptions,
    /// Request every extra of a `pyproject.toml` (its optional dependencies all apply).
    #[arg(long)]
    all_extras: bool,
    /// `requirements.txt`, `pyproject.toml`, or a core metadata file (`METADATA`, `PKG-INFO`).
    /// (Not needed with `--fixture list`.)
    file: Option<PathBuf>,
}

/// The deepest chain of `-r`/`-c` includes followed.
pub(crate) const MAX_DEPTH: usize = 16;

/// The largest file read, in bytes.
const FILE_LIMIT: u64 = 64 << 20;

/// One file read: its name as shown, its text, and where its lines start.
struct Source {
    label: String,
    text: String,
    lines: LineIndex,
}

/// The byte offset of each line's start, for line numbers in logarithmic time.
struct LineIndex(Vec<usize>);

impl LineIndex {
    fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex(starts)
    }

    /// The 1-based line holding byte OFFSET.
    fn line_of(&self, offset: usize) -> usize {
        self.0.partition_point(|s| *s <= offset)
    }

    /// The byte range of 1-based LINE, without its newline.
    fn range(&self, line: usize, len: usize) -> std::ops::Range<usize> {
        let start = self.0[line - 1];
        let end = self.0.get(line).map_or(len, |n| n - 1);
        start..end
    }
}

/// One requirement string found in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Item {
    /// The file (index into the sources).
    file: usize,
    /// 1-based line of its start.
    line: usize,
    /// The requirement text.
    text: String,
    /// Byte offset of `text` in the file, when the text is the file's bytes verbatim.
    offset: Option<usize>,
    /// `extra: NAME`, `group: NAME` or `constraint`, shown after the requirement.
    context: Option<String>,
    /// The extra this requirement is installed for (pyproject optional dependencies).
    extra: Option<String>,
}

/// A line that is not evaluated, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Skipped {
    file: usize,
    line: usize,
    text: String,
    reason: String,
    /// An error (a cycle, an unreadable include), not only something left out.
    error: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    Item(Item),
    Skipped(Skipped),
}

impl Entry {
    fn place(&self) -> (usize, usize) {
        match self {
            Entry::Item(i) => (i.file, i.line),
            Entry::Skipped(s) => (s.file, s.line),
        }
    }
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

/// Reads requirements files, following includes.
struct Reader {
    sources: Vec<Source>,
    entries: Vec<Entry>,
    /// The files being read, outermost first (canonical paths), for cycles.
    stack: Vec<PathBuf>,
}

impl Reader {
    fn add_source(&mut self, label: String, text: String) -> usize {
        let lines = LineIndex::new(&text);
        self.sources.push(Source { label, text, lines });
        self.sources.len() - 1
    }

    fn skip(&mut self, file: usize, line: usize, text: &str, reason: String, error: bool) {
        self.entries.push(Entry::Skipped(Skipped {
            file,
            line,
            text: shorten(text),
            reason,
            error,
        }));
    }

    /// The requirements of a requirements file: comments and blank lines dropped, `\`
    /// continuations joined, per-requirement options (`--hash=…`) dropped, `-r`/`-c` followed,
    /// other option lines and bare paths or URLs reported as not evaluated.
    fn requirements_txt(&mut self, file: usize, path: &Path, constraint: bool) {
        let text = std::mem::take(&mut self.sources[file].text);
        let mut pending: Option<(usize, usize, String)> = None; // (line, offset, text)
        let mut offset = 0;
        let mut logical: Vec<(usize, Option<usize>, String)> = Vec::new();
        for (i, raw) in text.split_inclusive('\n').enumerate() {
            let start = offset;
            offset += raw.len();
            let line = raw.trim_end_matches(['\n', '\r']);
            let (first_line, first_offset, mut joined, was_joined) = match pending.take() {
                Some((l, o, t)) => (l, o, t, true),
                None => (i + 1, start, String::new(), false),
            };
            if let Some(body) = line.strip_suffix('\\') {
                joined.push_str(body);
                pending = Some((first_line, first_offset, joined));
                continue;
            }
            joined.push_str(line);
            logical.push((first_line, (!was_joined).then_some(first_offset), joined));
        }
        if let Some((line, _, joined)) = pending {
            logical.push((line, None, joined));
        }
        for (line, start, joined) in logical {
            let content = strip_comment(&joined);
            let trimmed = content.trim();
            if trimmed.is_empty() {
                continue;
            }
            if trimmed.starts_with('-') {
                self.option_line(file, line, path, trimmed, constraint);
                continue;
            }
            let content = strip_options(content);
            let lead = content.len() - content.trim_start().len();
            let trimmed = content.trim();
            if is_path_or_url(trimmed) {
                self.skip(
                    file,
                    line,
                    trimmed,
                    "a path or URL without a package name: not a PEP 508 requirement".into(),
                    false,
                );
                continue;
            }
            self.entries.push(Entry::Item(Item {
                file,
                line,
                text: trimmed.to_owned(),
                offset: start.map(|s| s + lead),
                context: constraint.then(|| "constraint".to_owned()),
                extra: None,
            }));
        }
        self.sources[file].text = text;
    }

    /// A line starting with `-`: an include to follow, or an option reported as not evaluated.
    fn option_line(&mut self, file: usize, line: usize, path: &Path, text: &str, constraint: bool) {
        let (name, value) = match text.split_once(|c: char| c == '=' || c.is_whitespace()) {
            Some((n, v)) => (n, v.trim()),
            None => (text, ""),
        };
        let (include, as_constraint) = match name {
            "-r" | "--requirement" => (Some(value), constraint),
            "-c" | "--constraint" => (Some(value), true),
            n if n.starts_with("-r") && !n.starts_with("--") => (Some(&text[2..]), constraint),
            n if n.starts_with("-c") && !n.starts_with("--") => (Some(&text[2..]), true),
            _ => (None, false),
        };
        let Some(target) = include.map(str::trim) else {
            let reason = match name {
                "-e" | "--editable" => {
                    "an editable install (`-e`): not a PEP 508 requirement".to_owned()
                }
                _ => format!("the pip option `{name}`: not a requirement"),
            };
            return self.skip(file, line, text, reason, false);
        };
        if target.is_empty() {
            return self.skip(file, line, text, format!("`{name}` without a file"), true);
        }
        let base = path.parent().unwrap_or(Path::new(""));
        let target_path = base.join(target);
        if self.stack.len() >= MAX_DEPTH {
            return self.skip(
                file,
                line,
                text,
                format!("includes nested deeper than {MAX_DEPTH} files"),
                true,
            );
        }
        let canonical = std::fs::canonicalize(&target_path).unwrap_or(target_path.clone());
        if self.stack.contains(&canonical) {
            return self.skip(
                file,
                line,
                text,
                format!(
                    "`{}` is already being read: the includes form a cycle",
                    target_path.display()
                ),
                true,
            );
        }
        let content = match crate::files::read_user_file(&target_path, "file", FILE_LIMIT) {
            Ok(t) => t,
            Err(e) => return self.skip(file, line, text, e, true),
        };
        let idx = self.add_source(target_path.display().to_string(), content);
        self.stack.push(canonical);
        self.requirements_txt(idx, &target_path, as_constraint);
        self.stack.pop();
    }
}

/// TEXT cut to 200 bytes for a report line.
fn shorten(text: &str) -> String {
    if text.len() <= 200 {
        return text.to_owned();
    }
    let mut end = 200;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
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
            file: 0,
            line: i + 1,
            text: value.trim().to_owned(),
            offset: Some(start + name.len() + 1 + lead),
            context: None,
            extra: None,
        });
    }
    items
}

/// `[project] dependencies`, `[project.optional-dependencies]` (each entry tagged with its
/// extra) and `[dependency-groups]` (with `{include-group = "…"}` followed).
fn pyproject(text: &str, lines: &LineIndex) -> Result<Vec<Entry>, String> {
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
    let doc: Doc = toml::from_str(text).map_err(|e| shorten(&e.to_string()))?;
    let item = |span: std::ops::Range<usize>, value: &str, context, extra| {
        let raw = text.get(span.clone()).unwrap_or("");
        let verbatim = raw.len() >= 2
            && (raw.starts_with('"') || raw.starts_with('\''))
            && !raw.starts_with("\"\"\"")
            && !raw.starts_with("'''")
            && &raw[1..raw.len() - 1] == value;
        Entry::Item(Item {
            file: 0,
            line: lines.line_of(span.start.min(text.len())),
            text: value.to_owned(),
            offset: verbatim.then_some(span.start + 1),
            context,
            extra,
        })
    };
    let mut entries = Vec::new();
    if let Some(project) = &doc.project {
        for dep in project.dependencies.iter().flatten() {
            entries.push(item(dep.span(), dep.get_ref(), None, None));
        }
        for (extra, deps) in project.optional_dependencies.iter().flatten() {
            for dep in deps {
                entries.push(item(
                    dep.span(),
                    dep.get_ref(),
                    Some(format!("extra: {extra}")),
                    Some(extra.clone()),
                ));
            }
        }
    }
    if let Some(groups) = &doc.dependency_groups {
        let normalized: BTreeMap<String, &String> =
            groups.keys().map(|k| (normalize_name(k), k)).collect();
        // Which groups include each group, directly or through others.
        let mut included_by: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for group in groups.keys() {
            let mut path = vec![normalize_name(group)];
            follow_includes(
                group,
                group,
                groups,
                &normalized,
                &mut path,
                lines,
                &mut included_by,
                &mut entries,
            );
        }
        for (group, list) in groups {
            let context = match included_by.get(group.as_str()) {
                Some(by) => format!("group: {group}, included by {}", by.join(", ")),
                None => format!("group: {group}"),
            };
            for entry in list {
                if let toml::Value::String(s) = entry.get_ref() {
                    entries.push(item(entry.span(), s, Some(context.clone()), None));
                }
            }
        }
    }
    entries.sort_by_key(Entry::place);
    // A cycle is found from each group on it: report each line once.
    entries.dedup_by(|a, b| {
        matches!((&*a, &*b), (Entry::Skipped(x), Entry::Skipped(y)) if x.line == y.line && x.reason == y.reason)
    });
    Ok(entries)
}

/// Follows the `{include-group = "…"}` entries of group NAME, reached from group TOP:
/// records in INCLUDED_BY that TOP includes each group reached, and reports as errors an
/// include of a missing group, a cycle (PATH holds the groups being followed) and an entry
/// that is neither a string nor an include.
#[allow(clippy::too_many_arguments)]
fn follow_includes<'a>(
    top: &'a str,
    name: &str,
    groups: &'a std::collections::BTreeMap<String, Vec<toml::Spanned<toml::Value>>>,
    normalized: &std::collections::BTreeMap<String, &'a String>,
    path: &mut Vec<String>,
    lines: &LineIndex,
    included_by: &mut std::collections::BTreeMap<&'a str, Vec<&'a str>>,
    out: &mut Vec<Entry>,
) {
    for entry in &groups[name] {
        let line = lines.line_of(entry.span().start);
        let mut skip = |reason: String| {
            out.push(Entry::Skipped(Skipped {
                file: 0,
                line,
                text: format!("[group: {name}]"),
                reason,
                error: true,
            }));
        };
        match entry.get_ref() {
            toml::Value::String(_) => {}
            toml::Value::Table(t) if t.len() == 1 && t.contains_key("include-group") => {
                let Some(target) = t["include-group"].as_str() else {
                    skip("`include-group` must name a group".into());
                    continue;
                };
                let key = normalize_name(target);
                let Some(real) = normalized.get(&key).copied() else {
                    skip(format!("`include-group = \"{target}\"`: no such group"));
                    continue;
                };
                if path.contains(&key) {
                    skip(format!(
                        "`include-group = \"{target}\"` forms a cycle: {} → {key}",
                        path.join(" → ")
                    ));
                    continue;
                }
                let by = included_by.entry(real.as_str()).or_default();
                if !by.contains(&top) {
                    by.push(top);
                }
                path.push(key);
                follow_includes(top, real, groups, normalized, path, lines, included_by, out);
                path.pop();
            }
            // Reported once, from the group that holds it.
            _ if top != name => {}
            other => {
                let kind = other.type_str();
                let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
                    "an"
                } else {
                    "a"
                };
                skip(format!(
                    "{article} {kind} in a dependency group: expected a requirement string or {{include-group = \"…\"}}"
                ));
            }
        }
    }
}

/// Renders an error against its line of the file when the requirement is verbatim there (so
/// the line shown is the file's), else against the requirement alone; prefixed with
/// `file:line`. Only the one line is rendered, so that many errors in a large file stay linear.
fn error_text(source: &Source, item: &Item, e: &Error) -> String {
    let (code, message, help, span) = (e.code(), e.message(), crate::text::help(e), e.span());
    let render_at = |input: &str, span, line: usize| {
        let (shown, span) = crate::text::window(input, span);
        let out = render(
            Severity::Error,
            code,
            &message,
            help.as_deref(),
            &shown,
            span,
        );
        renumber(&out, line)
    };
    let (rendered, line) = match item.offset {
        Some(offset) => {
            let at = offset + span.start;
            let line = source.lines.line_of(at.min(source.text.len()));
            let range = source.lines.range(line, source.text.len());
            let text = &source.text[range.clone()];
            let span = markerspec_pep508::Span::new(
                (offset + span.start).saturating_sub(range.start),
                (offset + span.end).saturating_sub(range.start),
            );
            (render_at(text, span, line), line)
        }
        None => (render_at(&item.text, span, 1), item.line),
    };
    format!("{}:{line}: {rendered}", source.label)
}

/// The renderer numbers the one line it was given `1`: give it its line number in the file.
fn renumber(rendered: &str, line: usize) -> String {
    if line == 1 {
        return rendered.to_owned();
    }
    let pad = " ".repeat(line.to_string().len());
    let mut out = String::with_capacity(rendered.len() + 16);
    for (i, l) in rendered.split_inclusive('\n').enumerate() {
        if i == 0 {
            out.push_str(l);
        } else if let Some(rest) = l.strip_prefix("1 |") {
            out.push_str(&format!("{line} |{rest}"));
        } else if let Some(rest) = l.strip_prefix(' ') {
            out.push_str(&pad);
            out.push_str(rest);
        } else {
            out.push_str(l);
        }
    }
    out
}

fn warning_text(source: &Source, item: &Item, w: &Warning) -> String {
    format!(
        "{}:{}: {}",
        source.label,
        item.line,
        crate::text::render_warning(w, &item.text)
    )
}

pub(crate) fn run(args: CheckArgs) -> Result<ExitCode, String> {
    if args.envs.wants_fixture_list() {
        print!("{}", crate::envs::fixture_list());
        return Ok(ExitCode::SUCCESS);
    }
    let file = args
        .file
        .as_deref()
        .ok_or("check needs a file: requirements.txt, pyproject.toml or METADATA")?;
    let text = crate::files::read_user_file(file, "file", FILE_LIMIT)?;
    let mut reader = Reader {
        sources: Vec::new(),
        entries: Vec::new(),
        stack: vec![std::fs::canonicalize(file).unwrap_or_else(|_| file.to_owned())],
    };
    let format = format_of(file, &text);
    let root = reader.add_source(file.display().to_string(), text);
    match format {
        Format::Requirements => reader.requirements_txt(root, file, false),
        Format::Metadata => {
            let items = metadata(&reader.sources[root].text);
            reader.entries.extend(items.into_iter().map(Entry::Item));
        }
        Format::Pyproject => {
            let source = &reader.sources[root];
            let entries = pyproject(&source.text, &source.lines)
                .map_err(|e| format!("cannot read {} as TOML: {e}", source.label))?;
            reader.entries = entries;
        }
    }
    let envs = args.envs.build()?;
    let opts = args.lang.options();
    // The extras each environment requests.
    let requested: Vec<Vec<String>> = envs
        .iter()
        .map(|n| n.env.extras().map(normalize_name).collect())
        .collect();
    let several = envs.len() > 1;
    let mut counts = vec![Counts::default(); envs.len()];
    let (mut invalid, mut skipped, mut errors, mut requirements) = (0, 0, 0, 0);
    let location = |file: usize, line: usize| format!("{}:{line}", reader.sources[file].label);
    let width = reader
        .entries
        .iter()
        .map(|e| {
            let (f, l) = e.place();
            location(f, l).len()
        })
        .max()
        .unwrap_or(0);
    if several {
        print!("{}", crate::batch::table_legend(&envs));
        println!(
            "{:width$}  {}requirement",
            "",
            crate::batch::column_headers(envs.len())
        );
    }
    for entry in &reader.entries {
        let item = match entry {
            Entry::Skipped(s) => {
                skipped += 1;
                if s.error {
                    errors += 1;
                }
                let word = if s.error { "error" } else { "skipped" };
                println!(
                    "{:width$}  {word:<7}  {}  ({})",
                    location(s.file, s.line),
                    s.text,
                    s.reason
                );
                continue;
            }
            Entry::Item(item) => item,
        };
        let loc = location(item.file, item.line);
        let source = &reader.sources[item.file];
        // Whether each environment requests the item's extra (always, without one).
        let wanted: Vec<bool> = requested
            .iter()
            .map(|r| match &item.extra {
                Some(extra) => args.all_extras || r.contains(&normalize_name(extra)),
                None => true,
            })
            .collect();
        if let Some(extra) = &item.extra
            && !wanted.contains(&true)
        {
            skipped += 1;
            println!(
                "{loc:width$}  skipped  {}  [extra: {extra}]  (extra `{extra}` not requested: --extra {extra} or --all-extras)",
                shorten(&item.text)
            );
            continue;
        }
        requirements += 1;
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
                println!("{loc:width$}  invalid  {}{context}", shorten(&item.text));
                eprint!("{}", error_text(source, item, &e));
                continue;
            }
        };
        for w in &warnings {
            eprint!("{}", warning_text(source, item, w));
        }
        let mut cells = Vec::with_capacity(envs.len());
        for (k, named) in envs.iter().enumerate() {
            if !wanted[k] {
                counts[k].skipped += 1;
                cells.push("skipped".to_owned());
                continue;
            }
            // An optional dependency evaluates with its extra requested (`--all-extras`).
            let env = match &item.extra {
                Some(extra) if !requested[k].contains(&normalize_name(extra)) => {
                    let mut all = requested[k].clone();
                    all.push(normalize_name(extra));
                    &named.env.clone().with_extras(all)
                }
                _ => &named.env,
            };
            let evaluation = match req.marker() {
                None => Ok(None),
                Some(m) => m.evaluate_tristate(env).map(Some),
            };
            let cell = match evaluation {
                Err(e) => {
                    counts[k].invalid += 1;
                    if several {
                        eprint!("[{}] {}", k + 1, error_text(source, item, &e));
                    } else {
                        eprint!("{}", error_text(source, item, &e));
                    }
                    if several { "error" } else { "invalid" }.to_owned()
                }
                Ok(None) => {
                    counts[k].applies += 1;
                    "true".to_owned()
                }
                Ok(Some(e)) => match e.truth {
                    Truth::True => {
                        counts[k].applies += 1;
                        "true".to_owned()
                    }
                    Truth::False => {
                        counts[k].not += 1;
                        "false".to_owned()
                    }
                    Truth::Unknown if several => {
                        counts[k].unknown += 1;
                        "unknown".to_owned()
                    }
                    Truth::Unknown => {
                        counts[k].unknown += 1;
                        let names: Vec<&str> = e.unknown.iter().map(|f| f.name()).collect();
                        format!("unknown ({})", names.join(","))
                    }
                },
            };
            cells.push(cell);
        }
        if several {
            print!("{loc:width$}  ");
            for (k, cell) in cells.iter().enumerate() {
                print!("{cell:<w$}  ", w = crate::batch::column_width(k + 1));
            }
            println!("{req}{context}");
        } else {
            println!("{loc:width$}  {:<7}  {req}{context}", cells[0]);
        }
    }
    let errors_note = if errors > 0 {
        format!(" ({errors} of them errors)")
    } else {
        String::new()
    };
    let eval_errors: usize = counts.iter().map(|c| c.invalid).sum();
    if let [c] = counts.as_slice() {
        println!(
            "{requirements} requirement(s): {} apply, {} do not, {} unknown, {} invalid; \
             {skipped} line(s) not evaluated{errors_note}",
            c.applies,
            c.not,
            c.unknown,
            invalid + c.invalid
        );
    } else {
        println!(
            "{requirements} requirement(s), {invalid} invalid; {skipped} line(s) not \
             evaluated{errors_note}"
        );
        for (k, c) in counts.iter().enumerate() {
            let extra = if c.skipped > 0 {
                format!(", {} optional (extra not requested)", c.skipped)
            } else {
                String::new()
            };
            println!(
                "[{}] {} apply, {} do not, {} unknown, {} error(s){extra}",
                k + 1,
                c.applies,
                c.not,
                c.unknown,
                c.invalid
            );
        }
    }
    Ok(ExitCode::from(
        if invalid > 0 || eval_errors > 0 || errors > 0 {
            2
        } else {
            0
        },
    ))
}

/// The answers counted in one environment.
#[derive(Debug, Clone, Default)]
struct Counts {
    applies: usize,
    not: usize,
    unknown: usize,
    /// Requirements whose marker could not be evaluated here.
    invalid: usize,
    /// Optional dependencies whose extra this environment does not request.
    skipped: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(file: &str) -> Reader {
        let mut r = Reader {
            sources: Vec::new(),
            entries: Vec::new(),
            stack: Vec::new(),
        };
        let idx = r.add_source("r.txt".into(), file.into());
        r.requirements_txt(idx, Path::new("/nonexistent/r.txt"), false);
        r
    }

    #[test]
    fn requirements_files() {
        let file = "# comment\n-r base.txt\n--index-url https://x\n\nnumpy>=2 ; python_version >= '3.10'  # why\n\
                    torch \\\n  >=2.4 ; sys_platform == 'linux'\nrequests==2.32.3 --hash=sha256:abc\n./local/pkg\nhttps://x/y.whl\n  scipy\n-e git+https://x/y\n";
        let r = read(file);
        let items: Vec<_> = r
            .entries
            .iter()
            .filter_map(|e| match e {
                Entry::Item(i) => Some((i.line, i.text.as_str(), i.offset)),
                Entry::Skipped(_) => None,
            })
            .collect();
        assert_eq!(
            items,
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
        let skipped: Vec<_> = r
            .entries
            .iter()
            .filter_map(|e| match e {
                Entry::Skipped(s) => Some((s.line, s.error, s.reason.split(':').next().unwrap())),
                Entry::Item(_) => None,
            })
            .collect();
        assert_eq!(
            skipped,
            vec![
                (2, true, "cannot read file /nonexistent/base.txt"),
                (3, false, "the pip option `--index-url`"),
                (9, false, "a path or URL without a package name"),
                (10, false, "a path or URL without a package name"),
                (12, false, "an editable install (`-e`)"),
            ]
        );
    }

    #[test]
    fn line_index() {
        let idx = LineIndex::new("a\nbc\n\nd");
        assert_eq!(
            [0, 1, 2, 4, 5, 6, 7].map(|o| idx.line_of(o)),
            [1, 1, 2, 2, 3, 4, 4]
        );
        assert_eq!(idx.range(2, 7), 2..4);
        assert_eq!(idx.range(4, 7), 6..7);
        assert_eq!(
            renumber("error[X]: m\n  |\n1 | a\n  | ^\n", 120),
            "error[X]: m\n    |\n120 | a\n    | ^\n"
        );
    }

    #[test]
    fn metadata_files() {
        let file = "Metadata-Version: 2.4\nName: x\nRequires-Dist: numpy>=2\nrequires-dist:  torch; extra == 'gpu'\n\nRequires-Dist: not-a-header\n";
        let items = metadata(file);
        assert_eq!(
            items
                .iter()
                .map(|i| (i.line, i.text.as_str(), i.offset))
                .collect::<Vec<_>>(),
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
        let entries = pyproject(file, &LineIndex::new(file)).unwrap();
        let items: Vec<&Item> = entries
            .iter()
            .filter_map(|e| match e {
                Entry::Item(i) => Some(i),
                Entry::Skipped(_) => None,
            })
            .collect();
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
        assert_eq!(items[4].context.as_deref(), Some("group: test"));
        assert_eq!(
            items[5].context.as_deref(),
            Some("group: lint, included by test")
        );
        let cycle =
            "[dependency-groups]\na = [{include-group = 'b'}]\nb = [{include-group = 'A'},\n 3]\n";
        let entries = pyproject(cycle, &LineIndex::new(cycle)).unwrap();
        let reasons: Vec<&str> = entries
            .iter()
            .filter_map(|e| match e {
                Entry::Skipped(s) => Some(s.reason.as_str()),
                Entry::Item(_) => None,
            })
            .collect();
        assert!(
            reasons
                .iter()
                .any(|r| r.contains("forms a cycle: a → b → a")),
            "{reasons:?}"
        );
        assert!(
            reasons
                .iter()
                .any(|r| r.contains("an integer in a dependency group")),
            "{reasons:?}"
        );
        let numpy = &items[0];
        assert_eq!(&file[numpy.offset.unwrap()..][..8], "numpy>=2");
        assert!(pyproject("[project\n", &LineIndex::new("")).is_err());
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
