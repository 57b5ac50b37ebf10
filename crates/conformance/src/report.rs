//! Renderings of [`Report`]s: the implementation × category matrix, JUnit XML, and the
//! cross-tool divergence table (`spec/DIVERGENCES.md`).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::case::{Case, Cases, Expected, Outcome, Profile};
use crate::runner::{Evaluated, Observed, Parsed, Report, Status, TestResult};

/// One column of the matrix: an implementation under one profile.
fn columns(reports: &[Report]) -> Vec<(usize, Profile)> {
    let mut cols = Vec::new();
    for (i, r) in reports.iter().enumerate() {
        let mut seen = BTreeSet::new();
        for res in &r.results {
            seen.insert(res.profile);
        }
        for p in Profile::ALL {
            let ran = r
                .results
                .iter()
                .any(|res| res.profile == *p && res.status != Status::Skip);
            if seen.contains(p) && ran {
                cols.push((i, *p));
            }
        }
        if !seen.iter().any(|p| cols.contains(&(i, *p))) {
            // Everything skipped (or nothing ran): still show the implementation.
            if let Some(p) = seen.iter().next() {
                cols.push((i, *p));
            }
        }
    }
    cols
}

fn cell(counts: &BTreeMap<Status, usize>) -> String {
    let order = [
        (Status::Pass, "pass"),
        (Status::Fail, "FAIL"),
        (Status::Crash, "CRASH"),
        (Status::Divergent, "div"),
        (Status::Skip, "skip"),
        (Status::NotRun, "NOT RUN"),
    ];
    let parts: Vec<String> = order
        .iter()
        .filter_map(|(s, label)| {
            counts
                .get(s)
                .filter(|n| **n > 0)
                .map(|n| format!("{n} {label}"))
        })
        .collect();
    if parts.is_empty() {
        "-".into()
    } else {
        parts.join(" ")
    }
}

/// The implementation × category matrix as plain text: one row per category, one column per
/// implementation and profile, each cell counting passes, failures, crashes, declared
/// divergences and skips.
///
/// See the example on [`Report`].
pub fn matrix(reports: &[Report]) -> String {
    let cols = columns(reports);
    let mut categories: BTreeSet<&str> = BTreeSet::new();
    for r in reports {
        for res in &r.results {
            categories.insert(&res.category);
        }
    }
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut header = vec!["category".to_string()];
    // Names come from adapters' handshakes: control characters are shown escaped, so that a
    // name cannot move the cursor or rewrite a line of the report.
    header.extend(cols.iter().map(|(i, p)| {
        markerspec_process::escape_control(&format!("{} ({p})", reports[*i].implementation))
    }));
    rows.push(header);
    let count = |i: usize, p: Profile, cat: Option<&str>| {
        let mut m: BTreeMap<Status, usize> = BTreeMap::new();
        for res in &reports[i].results {
            if res.profile == p && cat.is_none_or(|c| c == res.category) {
                *m.entry(res.status).or_default() += 1;
            }
        }
        m
    };
    for cat in &categories {
        let mut row = vec![markerspec_process::escape_control(cat)];
        row.extend(cols.iter().map(|(i, p)| cell(&count(*i, *p, Some(cat)))));
        rows.push(row);
    }
    let mut total = vec!["TOTAL".to_string()];
    total.extend(cols.iter().map(|(i, p)| cell(&count(*i, *p, None))));
    rows.push(total);
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for (n, row) in rows.iter().enumerate() {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
        if n == 0 || n + 2 == rows.len() {
            let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            out.push_str(&rule.join("  "));
            out.push('\n');
        }
    }
    out
}

fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// JUnit XML: one `<testsuite>` per implementation and profile, one `<testcase>` per case.
/// Failures are `<failure>`, crashes `<error>`, skips and declared divergences `<skipped>`.
///
/// See the example on [`Report`].
pub fn junit(reports: &[Report]) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"markerspec-conformance\">\n",
    );
    for (i, p) in columns(reports) {
        let r = &reports[i];
        let results: Vec<_> = r.results.iter().filter(|x| x.profile == p).collect();
        let n = |s: Status| results.iter().filter(|x| x.status == s).count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">",
            xml_escape(&format!("{} ({p})", r.implementation)),
            results.len(),
            n(Status::Fail),
            n(Status::Crash) + n(Status::NotRun),
            n(Status::Skip) + n(Status::Divergent)
        );
        for x in results {
            let _ = write!(
                out,
                "    <testcase classname=\"{}\" name=\"{}\"",
                xml_escape(&format!("{}.{}", r.implementation, x.category)),
                xml_escape(&x.case)
            );
            let details = xml_escape(&x.details.join("\n"));
            match x.status {
                Status::Pass => out.push_str("/>\n"),
                Status::Fail => {
                    let _ = writeln!(
                        out,
                        ">\n      <failure message=\"{}\">{details}</failure>\n    </testcase>",
                        xml_escape(x.details.first().map(String::as_str).unwrap_or("failed"))
                    );
                }
                Status::Crash => {
                    let _ = writeln!(
                        out,
                        ">\n      <error message=\"{}\">{details}</error>\n    </testcase>",
                        xml_escape(x.details.first().map(String::as_str).unwrap_or("crashed"))
                    );
                }
                Status::Divergent => {
                    let _ = writeln!(
                        out,
                        ">\n      <skipped message=\"divergent as declared: {}\"/>\n      <system-out>{details}</system-out>\n    </testcase>",
                        xml_escape(x.reason.as_deref().unwrap_or(""))
                    );
                }
                Status::Skip => {
                    let _ = writeln!(
                        out,
                        ">\n      <skipped message=\"{details}\"/>\n    </testcase>"
                    );
                }
                Status::NotRun => {
                    let _ = writeln!(
                        out,
                        ">\n      <error message=\"{}\">{details}</error>\n    </testcase>",
                        xml_escape(x.details.first().map(String::as_str).unwrap_or("not run"))
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// A comparable summary of what a tool (or the specification) does with a case.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Verdict {
    Rejects,
    Accepts(Option<String>),
    Crashes(String),
}

impl Verdict {
    fn show(&self) -> String {
        match self {
            Verdict::Rejects => "rejects".into(),
            Verdict::Accepts(None) => "accepts".into(),
            Verdict::Accepts(Some(r)) => r.clone(),
            Verdict::Crashes(why) => format!("crash ({why})"),
        }
    }
}

fn result_word(r: &Expected) -> String {
    match r {
        Expected::True => "true".into(),
        Expected::False => "false".into(),
        Expected::Unknown(f) => format!("unknown: {}", f.join(",")),
        Expected::Error(_) => "error".into(),
    }
}

fn spec_verdict(case: &Case) -> Option<Verdict> {
    Some(match case.expected(Profile::Spec2026)? {
        Outcome::Invalid { .. } => Verdict::Rejects,
        Outcome::Valid { result, .. } => Verdict::Accepts(result.as_ref().map(result_word)),
    })
}

/// A crash reason in one short line: `crash: X panicked: …` becomes `X panicked: …`.
fn short(why: &str) -> String {
    let w = why.lines().next().unwrap_or("").trim();
    let w = w.strip_prefix("crash: ").unwrap_or(w);
    let w: String = w.chars().take(90).collect();
    w.replace('|', "\\|").replace('`', "'")
}

fn observed_verdict(o: &Observed) -> Option<(Verdict, String)> {
    let parsed = o.parsed.as_ref()?;
    match parsed {
        TestResult::Skip(_) => None,
        TestResult::Crash(w) | TestResult::Fail(w) => Some((Verdict::Crashes(short(w)), w.clone())),
        TestResult::Ok(Parsed::Invalid { message, code }) => Some((
            Verdict::Rejects,
            message.clone().or_else(|| code.clone()).unwrap_or_default(),
        )),
        TestResult::Ok(Parsed::Valid { .. }) => match &o.evaluated {
            None | Some(TestResult::Skip(_)) => Some((Verdict::Accepts(None), String::new())),
            Some(TestResult::Ok(Evaluated::Result { result, message })) => Some((
                Verdict::Accepts(Some(result_word(result))),
                message.clone().unwrap_or_default(),
            )),
            Some(TestResult::Ok(Evaluated::Invalid { message, .. })) => Some((
                Verdict::Crashes("rejects when evaluating".into()),
                message.clone().unwrap_or_default(),
            )),
            Some(TestResult::Crash(w) | TestResult::Fail(w)) => {
                Some((Verdict::Crashes(short(w)), w.clone()))
            }
        },
    }
}

/// Whether two verdicts disagree: acceptance differs, or both evaluated and the results
/// differ.
fn disagree(a: &Verdict, b: &Verdict) -> bool {
    match (a, b) {
        (Verdict::Accepts(Some(x)), Verdict::Accepts(Some(y))) => x != y,
        (Verdict::Accepts(_), Verdict::Accepts(_)) => false,
        _ => a != b,
    }
}

/// The input as a Markdown code span: control characters (and other invisible ones) escaped
/// as `\u{..}`, `|` escaped for the table.
fn code_span(s: &str) -> String {
    let mut inner = String::new();
    for c in s.chars() {
        match c {
            '|' => inner.push_str("\\|"),
            c if c.is_control()
                || matches!(c, '\u{200b}' | '\u{2028}' | '\u{2029}' | '\u{feff}') =>
            {
                inner.push_str(&format!("\\u{{{:x}}}", c as u32))
            }
            c => inner.push(c),
        }
    }
    if inner.contains('`') {
        format!("`` {inner} ``")
    } else if inner.is_empty() {
        "(empty)".to_string()
    } else {
        format!("`{inner}`")
    }
}

fn environment_label(case: &Case) -> String {
    if !case.evaluates() {
        return "-".into();
    }
    let mut parts = Vec::new();
    if let Some(f) = case.fixture() {
        parts.push(f.to_string());
    } else if case.environment().is_empty() {
        parts.push("(empty)".into());
    } else {
        parts.push("(inline)".into());
    }
    if !case.extras().is_empty() {
        parts.push(format!("extras {}", case.extras().join(",")));
    }
    if case.lock_file() {
        parts.push("lock file".into());
    }
    parts.join(", ")
}

/// The cases on which the external tools of some reports disagree with each other or with
/// the `spec-2026` expectation.
struct DivTable<'a> {
    /// One column per external tool and profile it ran.
    tools: Vec<(usize, Profile)>,
    /// The columns' names.
    names: Vec<String>,
    /// The disagreements, in case order.
    rows: Vec<DivRow<'a>>,
    /// Disagreeing cases per pair of columns (`spec-2026` included).
    pair_counts: BTreeMap<(String, String), usize>,
}

struct DivRow<'a> {
    case: &'a Case,
    spec: Option<Verdict>,
    /// Per tool column: the verdict and the tool's message.
    cells: Vec<Option<(Verdict, String)>>,
}

fn div_table<'a>(cases: &'a Cases, reports: &[Report]) -> DivTable<'a> {
    let mut tools: Vec<(usize, Profile)> = Vec::new();
    for (i, p) in columns(reports) {
        if reports[i].implementation != "builtin" {
            tools.push((i, p));
        }
    }
    let names: Vec<String> = tools
        .iter()
        .map(|(i, p)| {
            let several = tools.iter().filter(|(j, _)| j == i).count() > 1;
            if several {
                format!("{} ({p})", reports[*i].implementation)
            } else {
                reports[*i].implementation.clone()
            }
        })
        .collect();
    // case -> tool index -> (verdict, message)
    let mut seen: BTreeMap<&str, BTreeMap<usize, (Verdict, String)>> = BTreeMap::new();
    for (t, (i, p)) in tools.iter().enumerate() {
        for res in reports[*i].results.iter().filter(|r| r.profile == *p) {
            if let Some(v) = observed_verdict(&res.observed) {
                seen.entry(res.case.as_str())
                    .or_default()
                    .entry(t)
                    .or_insert(v);
            }
        }
    }
    let mut rows = Vec::new();
    let mut pair_counts: BTreeMap<(String, String), usize> = BTreeMap::new();
    for case in cases.iter() {
        let Some(obs) = seen.get_mut(case.full_name()) else {
            continue;
        };
        let spec = spec_verdict(case);
        let mut all: Vec<(String, Verdict)> = Vec::new();
        if let Some(s) = &spec {
            all.push(("spec-2026".into(), s.clone()));
        }
        for (t, (v, _)) in obs.iter() {
            all.push((names[*t].clone(), v.clone()));
        }
        let mut differs = false;
        for i in 0..all.len() {
            for j in i + 1..all.len() {
                if disagree(&all[i].1, &all[j].1) {
                    differs = true;
                    *pair_counts
                        .entry((all[i].0.clone(), all[j].0.clone()))
                        .or_default() += 1;
                }
            }
        }
        if !differs {
            continue;
        }
        let cells = (0..tools.len()).map(|t| obs.remove(&t)).collect();
        rows.push(DivRow { case, spec, cells });
    }
    DivTable {
        tools,
        names,
        rows,
        pair_counts,
    }
}

/// A tool's cell: its verdict, with the first line of its message for a rejection or an
/// evaluation error.
fn verdict_cell(v: &Verdict, msg: &str, width: usize, esc: fn(&str) -> String) -> String {
    let mut cell = v.show();
    if matches!(v, Verdict::Rejects | Verdict::Accepts(Some(_))) && !msg.is_empty() {
        let m = msg.lines().next().unwrap_or("");
        let m: String = m.chars().take(width).collect();
        if matches!(v, Verdict::Rejects) || cell == "error" {
            cell.push_str(&format!(" ({})", esc(&m)));
        }
    }
    cell
}

/// `spec/DIVERGENCES.md`: every case on which the external tools of `reports` disagree with
/// each other or with the `spec-2026` expectation, and what each does. The built-in
/// implementation (named `builtin`) is not a tool here.
///
/// See the example on [`Report`].
pub fn divergences(cases: &Cases, reports: &[Report]) -> String {
    let DivTable {
        tools,
        names,
        rows: div_rows,
        pair_counts,
    } = div_table(cases, reports);
    let total = div_rows.len();
    let mut by_category: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for r in &div_rows {
        let case = r.case;
        let mut row = format!(
            "| {} | {} | {} | {} |",
            case.full_name(),
            code_span(case.input()),
            environment_label(case),
            r.spec.as_ref().map(Verdict::show).unwrap_or("-".into())
        );
        for cell in &r.cells {
            match cell {
                Some((v, msg)) => {
                    let cell =
                        verdict_cell(v, msg, 60, |m| m.replace('|', "\\|").replace('`', "'"));
                    let _ = write!(row, " {cell} |");
                }
                None => row.push_str(" - |"),
            }
        }
        by_category.entry(case.category()).or_default().push(row);
    }

    let mut out = String::new();
    out.push_str("# Divergences between implementations\n\n");
    out.push_str(
        "Generated by `markerspec conformance --divergences spec/DIVERGENCES.md` from the cases of \
         `spec/vectors/`; do not edit by hand. A case is listed when the tools below disagree with \
         each other or with the specification (`spec-2026`): one accepts an input another rejects, \
         or both evaluate it and get different results. Printed forms are not compared (every \
         tool prints differently).\n\n",
    );
    out.push_str("Tools:\n\n");
    for (n, (i, p)) in names.iter().zip(&tools) {
        let version = reports[*i]
            .version
            .as_deref()
            .map(|v| format!(" {v}"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "- `{n}`: {}{version}, checked against the `{p}` expectations",
            reports[*i].implementation
        );
    }
    let _ = writeln!(
        out,
        "\nEach cell says what the tool does: `rejects` (with its message), `accepts` (parsed, not \
         evaluated), the evaluation result (`true`, `false`, `unknown: …`, `error`), or `crash`. \
         `-` means the tool was not asked (it does not claim the case's dialect).\n\n{total} cases.\n"
    );
    out.push_str("## Disagreements per pair\n\n| | | cases |\n| --- | --- | --- |\n");
    for ((a, b), n) in &pair_counts {
        let _ = writeln!(out, "| {a} | {b} | {n} |");
    }
    out.push_str("\n## Disagreements per category\n\n| category | cases |\n| --- | --- |\n");
    for (cat, rows) in &by_category {
        let _ = writeln!(out, "| [{cat}](#{cat}) | {} |", rows.len());
    }
    for (cat, rows) in &by_category {
        let _ = writeln!(out, "\n## {cat}\n");
        let mut header = "| case | input | environment | spec-2026 |".to_string();
        let mut rule = "| --- | --- | --- | --- |".to_string();
        for n in &names {
            let _ = write!(header, " {n} |");
            rule.push_str(" --- |");
        }
        let _ = writeln!(out, "{header}\n{rule}");
        for row in rows {
            out.push_str(row);
            out.push('\n');
        }
    }
    out
}

/// The self-contained HTML reference (`markerspec conformance --html`): one page without
/// network access or external assets. It shows the implementation × category matrix (pass,
/// fail, crash, declared divergence, skip per cell) and every case of [`divergences`] with its
/// input, environment, the specification's answer and each tool's, filterable by tool,
/// category and text; each case is linkable as `#GROUP/NAME`, and the filters can be set in the
/// address (`?tool=NAME&category=CAT&q=TEXT`).
///
/// The data is embedded once as JSON, with repeated cell texts stored once, and the rows are
/// rendered by the page's script a few hundred at a time as the reader scrolls.
///
/// See the example on [`Report`].
pub fn html(cases: &Cases, reports: &[Report]) -> String {
    use serde_json::{Value, json};

    let table = div_table(cases, reports);
    // Repeated cell texts (a tool's message for a whole family of inputs) are stored once.
    let mut strings: Vec<String> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    let mut intern = |s: String| -> usize {
        if let Some(i) = index.get(&s) {
            return *i;
        }
        strings.push(s.clone());
        index.insert(s, strings.len() - 1);
        strings.len() - 1
    };
    let tools: Vec<Value> = table
        .tools
        .iter()
        .zip(&table.names)
        .map(|((i, p), name)| {
            json!({"name": name, "version": reports[*i].version, "profile": p.as_str()})
        })
        .collect();
    let mut categories: Vec<&str> = Vec::new();
    let rows: Vec<Value> = table
        .rows
        .iter()
        .map(|r| {
            let cat = r.case.category();
            let c = match categories.iter().position(|x| *x == cat) {
                Some(i) => i,
                None => {
                    categories.push(cat);
                    categories.len() - 1
                }
            };
            let cells: Vec<Value> = r
                .cells
                .iter()
                .map(|cell| match cell {
                    Some((v, msg)) => {
                        // 0 agrees with the specification, 1 disagrees.
                        let differs = r.spec.as_ref().is_some_and(|s| disagree(s, v));
                        json!([
                            intern(verdict_cell(v, msg, 200, str::to_string)),
                            differs as u8
                        ])
                    }
                    None => Value::Null,
                })
                .collect();
            json!([
                r.case.full_name(),
                c,
                r.case.input(),
                environment_label(r.case),
                r.spec
                    .as_ref()
                    .map(Verdict::show)
                    .unwrap_or_else(|| "-".into()),
                cells
            ])
        })
        .collect();
    // The matrix: every implementation (the built-in one too) and profile it ran.
    let cols = columns(reports);
    let mut matrix_cats: BTreeSet<&str> = BTreeSet::new();
    for r in reports {
        for res in r.results.iter().filter(|x| x.claimed) {
            matrix_cats.insert(&res.category);
        }
    }
    let order = [
        Status::Pass,
        Status::Fail,
        Status::Crash,
        Status::Divergent,
        Status::Skip,
        Status::NotRun,
    ];
    let count = |i: usize, p: Profile, cat: Option<&str>| -> Value {
        let mut n = [0usize; 6];
        for res in &reports[i].results {
            if res.profile == p && res.claimed && cat.is_none_or(|c| c == res.category) {
                if let Some(k) = order.iter().position(|s| *s == res.status) {
                    n[k] += 1;
                }
            }
        }
        json!(n)
    };
    let matrix_cols: Vec<Value> = cols
        .iter()
        .map(|(i, p)| {
            json!({"name": reports[*i].implementation, "version": reports[*i].version,
                   "profile": p.as_str(), "unusable": reports[*i].unusable})
        })
        .collect();
    let mut matrix_rows: Vec<Value> = matrix_cats
        .iter()
        .map(|cat| {
            json!([
                cat,
                cols.iter()
                    .map(|(i, p)| count(*i, *p, Some(cat)))
                    .collect::<Vec<_>>()
            ])
        })
        .collect();
    matrix_rows.push(json!([
        "TOTAL",
        cols.iter()
            .map(|(i, p)| count(*i, *p, None))
            .collect::<Vec<_>>()
    ]));
    let unusable: Vec<Value> = reports
        .iter()
        .filter_map(|r| {
            r.unusable
                .as_ref()
                .map(|u| json!({"name": r.implementation, "why": u}))
        })
        .collect();
    let data = json!({
        "cases": cases.len(),
        "tools": tools,
        "categories": categories,
        "strings": strings,
        "rows": rows,
        "matrix": {"columns": matrix_cols, "rows": matrix_rows},
        "unusable": unusable,
    });
    // Inside <script>, `</script` or `<!--` would change the parse: `<` only occurs inside
    // JSON strings, where `\u003c` means the same.
    let data = data.to_string().replace('<', "\\u003c");
    let mut out = String::with_capacity(data.len() + 16 * 1024);
    out.push_str(HTML_HEAD);
    out.push_str("<script type=\"application/json\" id=\"data\">");
    out.push_str(&data);
    out.push_str("</script>\n<script>\n");
    out.push_str(HTML_SCRIPT);
    out.push_str("</script>\n</body>\n</html>\n");
    out
}

const HTML_HEAD: &str = include_str!("html/head.html");
const HTML_SCRIPT: &str = include_str!("html/page.js");
