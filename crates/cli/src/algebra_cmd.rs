//! `markerspec simplify`, `compare` and `solve`: the marker algebra (`markerspec-algebra`) on
//! the command line.

use std::process::ExitCode;

use markerspec_algebra::{Context, Limits, Marker, RelationKind, Spellings, Theory};
use markerspec_pep508::{EnvValue, Environment, Field, FieldType, MarkerTree, ParseOptions};

use crate::Language;
use crate::batch::{Answer, Memo, Memoized, Split, run_lines};
use crate::text::render_error;

/// The theory option shared by the algebra commands.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct TheoryArg {
    /// World knowledge to reason with: `none` (every combination of values is possible) or
    /// `platform` (`sys_platform == "win32"` ⇔ `os_name == "nt"`, `platform_system` ⇔
    /// `sys_platform`, … see SPEC.md "Algebra"). Output under `platform` is equal to the input
    /// only in environments that obey those rules.
    #[arg(long, default_value = "none", value_parser = parse_theory)]
    theory: Theory,
}

fn parse_theory(s: &str) -> Result<Theory, String> {
    Theory::by_name(s).ok_or_else(|| format!("unknown theory `{s}`, expected `none` or `platform`"))
}

/// Arguments of `markerspec simplify`.
#[derive(clap::Args, Debug)]
pub(crate) struct SimplifyArgs {
    #[command(flatten)]
    lang: Language,
    #[command(flatten)]
    theory: TheoryArg,
    /// A marker known to hold (a project's `requires-python` as `python_full_version >= …`, a
    /// target platform): the output equals the input wherever it holds.
    #[arg(long, value_name = "MARKER")]
    assume: Option<String>,
    /// Search further for a shorter text (the shortest of a minimised DNF, CNF, factored form
    /// and split, SPEC §21.4), at about three times the cost: shorter above all under
    /// `--theory platform`. Without it, the irredundant cover read from the marker's diagram.
    #[arg(long)]
    shortest: bool,
    /// With `-`: threads answering the lines (default: the number of cores). Each thread
    /// keeps its own caches; the answers do not depend on the number.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    jobs: Option<u16>,
    /// A marker; `-` reads one per line from stdin and answers each with one line.
    text: String,
}

/// Arguments of `markerspec compare`.
#[derive(clap::Args, Debug)]
pub(crate) struct CompareArgs {
    #[command(flatten)]
    lang: Language,
    #[command(flatten)]
    theory: TheoryArg,
    /// Also print one JSON object: `relation` and `witnesses` (`a_and_b`, `a_not_b`,
    /// `b_not_a`, `neither`, each an environment document or `null`), and `unverified`, the
    /// cells no environment realises though the algebra cannot show them empty (opaque
    /// comparisons), when there are any.
    #[arg(long)]
    json: bool,
    /// With `-`: threads answering the lines (default: the number of cores). Each thread
    /// keeps its own caches; the answers do not depend on the number.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    jobs: Option<u16>,
    /// The first marker (`true` and `false`, as `simplify` prints the constants, under every
    /// profile); `-` reads `A<TAB>B` lines from stdin.
    a: String,
    /// The second marker (not with `-`).
    b: Option<String>,
}

/// Arguments of `markerspec solve`.
#[derive(clap::Args, Debug)]
pub(crate) struct SolveArgs {
    #[command(flatten)]
    lang: Language,
    #[command(flatten)]
    theory: TheoryArg,
    /// Print `{"satisfiable": …, "witness": ENV|null}` instead of the bare document.
    #[arg(long)]
    json: bool,
    /// A marker.
    text: String,
}

/// The constant a line names with the words `simplify` prints for the constants, `true` and
/// `false` (spaces and tabs around them allowed); `None` for any other text.
fn constant(text: &str) -> Option<bool> {
    match text.trim_matches([' ', '\t']) {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// A marker read straight into a diagram (no syntax tree is built), or the rendered error.
/// The words `true` and `false`, which `simplify` prints for the constants, are the constants
/// under every profile (the `packaging` profile's parser rejects them, as packaging does), so
/// that what `simplify` prints reads back.
fn marker(
    ctx: &mut Context,
    text: &str,
    opts: &ParseOptions,
    theory: &Theory,
) -> Result<Marker, String> {
    if let Some(b) = constant(text) {
        return Ok(if b { Marker::TRUE } else { Marker::FALSE });
    }
    ctx.parse_marker(text, opts, &mut Vec::new(), theory)
        .map_err(|e| match e.kind() {
            markerspec_algebra::ErrorKind::Parse { error } => render_error(error, text),
            _ => format!("error[{}]: {e}\n", e.code()),
        })
}

/// The syntax tree of TEXT as `marker` reads it, for checking a witness by evaluation: the
/// constants' words as the constants; `None` where the text does not parse (`marker` then
/// reports it).
fn tree(text: &str, opts: &ParseOptions) -> Option<MarkerTree> {
    match constant(text) {
        Some(true) => Some(MarkerTree::TRUE),
        Some(false) => Some(MarkerTree::FALSE),
        None => MarkerTree::parse_with(text, opts, &mut Vec::new()).ok(),
    }
}

/// Whether each tree evaluates as wanted in ENV: a witness the algebra found is checked by
/// evaluating the markers themselves, so that a relation between comparisons the model gets
/// wrong (SPEC §21.2) never reaches the user as a witness. A tree whose evaluation fails (an
/// unknown result, a field a profile needs) counts as agreeing: nothing to check there.
fn evaluates_as(checks: &[(Option<&MarkerTree>, bool)], env: &Environment) -> bool {
    checks.iter().all(|(t, want)| match t {
        Some(t) => t.evaluate(env).map_or(true, |v| v == *want),
        None => true,
    })
}

/// A marker line costs tens of microseconds to hundreds (`compare --json`), a thread about
/// as much to start: a block is given a thread for every this many lines.
const LINES_PER_JOB: usize = 16;

/// The most distinct lines whose answers a batch run keeps for the lines that repeat them.
const MEMO_LINES: usize = 1 << 17;
/// The most bytes (line texts, answers, warnings) it keeps for them.
const MEMO_BYTES: usize = 64 << 20;

/// Answers each line of stdin with one line on stdout (blank lines and `#` comments with an
/// empty line, see [`crate::batch`]), on `jobs` threads, each with an answerer made by `make`.
/// A line met before is answered as it was then ([`Memo`]): a lock file repeats its markers.
fn each_line<A: Answer>(
    jobs: Option<u16>,
    make: impl Fn() -> A + Sync,
) -> Result<ExitCode, String> {
    let split = Split {
        jobs: jobs.map(usize::from),
        lines_per_job: LINES_PER_JOB,
    };
    let mut out = std::io::stdout().lock();
    // Not locked for the run: a thread's panic message takes the lock.
    let mut err = std::io::stderr();
    let memo = Memo::new(MEMO_LINES, MEMO_BYTES);
    let make = || Memoized {
        inner: make(),
        memo: &memo,
    };
    match run_lines(std::io::stdin().lock(), &mut out, &mut err, split, make) {
        Ok(answerers) => {
            // The process ends next: its memory goes back at once, without freeing each node
            // and answer kept.
            std::mem::forget(answerers);
            std::mem::forget(memo);
            Ok(ExitCode::SUCCESS)
        }
        // The reader went away (`markerspec simplify - | head`): not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(format!("cannot answer stdin: {e}")),
    }
}

/// Appends REPLY and a newline to OUT.
fn push_line(reply: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(reply.as_bytes());
    out.push(b'\n');
}

/// One line's answer for `-`: the error's first line.
fn one_line(e: &str) -> String {
    let first = e.lines().next().unwrap_or("").trim();
    if first.starts_with("error") {
        first.to_owned()
    } else {
        format!("error: {first}")
    }
}

fn simplify_one(
    ctx: &mut Context,
    text: &str,
    args: &SimplifyArgs,
    assume: Marker,
) -> Result<String, String> {
    let opts = args.lang.options();
    let m = marker(ctx, text, &opts, &args.theory.theory)?;
    let r = ctx
        .restrict(m, assume)
        .map_err(|e| format!("error[{}]: {e}\n", e.code()))?;
    let text = if args.shortest {
        ctx.to_shortest_marker_string(r)
    } else {
        ctx.to_marker_string(r)
    };
    text.map_err(|e| format!("error[{}]: {e}\n", e.code()))
}

/// A batch answerer (`simplify -`, `compare -`) starts again from a fresh context before a
/// line once its context holds more nodes than this (a quarter of the default node limit): a
/// context keeps every node it makes, and on a long input of distinct markers it would reach
/// its limit and answer `intractable` to every later line. The answers depend only on the
/// markers, not on the context (the printed form included), so this changes none of them; it
/// bounds the memory a thread holds (about 100 MB).
const FRESH_CONTEXT_NODES: usize = Limits::DEFAULT_NODES / 4;

/// STATE's answer to a line (`answer`), from a fresh state (`renew`) when its context has
/// grown past [`FRESH_CONTEXT_NODES`] (`len`), and once more from a fresh state when a grown
/// context answered `intractable` (a context near its node limit fails where a fresh one need
/// not).
fn in_bounded_context<S, T>(
    state: &mut S,
    len: impl Fn(&S) -> usize,
    renew: impl Fn(&mut S),
    mut answer: impl FnMut(&mut S) -> Result<T, String>,
) -> Result<T, String> {
    if len(state) > FRESH_CONTEXT_NODES {
        renew(state);
    }
    let grown = len(state) > FRESH_CONTEXT_NODES / 16;
    match answer(state) {
        Err(e) if grown && e.starts_with("error[intractable]") => {
            renew(state);
            answer(state)
        }
        r => r,
    }
}

/// `simplify -`'s answerer for one thread: its own context, and the assumption read into it.
struct Simplifier<'a> {
    ctx: Context,
    args: &'a SimplifyArgs,
    /// The assumption, or why it cannot be read.
    assume: Result<Marker, String>,
    /// The version labels' spellings, shared by the run's threads and the contexts that
    /// replace a grown one (the printed texts do not depend on it).
    spellings: Spellings,
}

impl<'a> Simplifier<'a> {
    fn new(args: &'a SimplifyArgs, spellings: &Spellings) -> Self {
        let mut ctx = Context::new();
        ctx.share_spellings(spellings);
        let assume = match &args.assume {
            Some(a) => marker(&mut ctx, a, &args.lang.options(), &args.theory.theory),
            None => Ok(Marker::TRUE),
        };
        Simplifier {
            ctx,
            args,
            assume,
            spellings: spellings.clone(),
        }
    }
}

impl Answer for Simplifier<'_> {
    fn answer(&mut self, text: &str, out: &mut Vec<u8>, _err: &mut Vec<u8>) {
        let reply = in_bounded_context(
            self,
            |s| s.ctx.len(),
            |s| *s = Simplifier::new(s.args, &s.spellings),
            |s| match &s.assume {
                Ok(assume) => simplify_one(&mut s.ctx, text, s.args, *assume),
                Err(e) => Err(e.clone()),
            },
        );
        push_line(&reply.unwrap_or_else(|e| one_line(&e)), out);
    }
}

pub(crate) fn simplify(args: SimplifyArgs) -> Result<ExitCode, String> {
    let spellings = Spellings::new();
    let mut one = Simplifier::new(&args, &spellings);
    let assume = match &one.assume {
        Ok(m) => *m,
        Err(e) => {
            eprint!("{e}");
            return Ok(ExitCode::from(2));
        }
    };
    if args.text == "-" {
        return each_line(args.jobs, || Simplifier::new(&args, &spellings));
    }
    match simplify_one(&mut one.ctx, &args.text, &args, assume) {
        Ok(s) => {
            println!("{s}");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprint!("{e}");
            Ok(ExitCode::from(2))
        }
    }
}

fn relation_word(kind: RelationKind) -> &'static str {
    match kind {
        RelationKind::Equivalent => "equivalent",
        RelationKind::Implies => "implies",
        RelationKind::ImpliedBy => "implied-by",
        RelationKind::Disjoint => "disjoint",
        RelationKind::Overlapping => "overlapping",
    }
}

fn env_json(env: &Environment) -> Result<serde_json::Value, String> {
    serde_json::to_value(env).map_err(|e| e.to_string())
}

/// ENV as compact JSON with its keys sorted: the text of [`env_json`]'s document, written
/// straight from the environment (a `compare --json` answer has four of them, and building
/// each as a document of owned strings first cost more than finding it).
fn env_json_text(env: &Environment) -> String {
    /// The fields in the order of their names, and the place of `extra` among them.
    static ORDER: std::sync::LazyLock<(Vec<Field>, usize)> = std::sync::LazyLock::new(|| {
        let mut fields = Field::ALL.to_vec();
        fields.sort_unstable_by_key(|f| f.name());
        let extra = fields.partition_point(|f| f.name() < "extra");
        (fields, extra)
    });
    let (fields, extra_at) = &*ORDER;
    let mut out = String::with_capacity(1024);
    out.push('{');
    let key = |out: &mut String, name: &str| {
        if out.len() > 1 {
            out.push(',');
        }
        // (A field's name needs no escape.)
        out.push('"');
        out.push_str(name);
        out.push_str("\":");
    };
    let list = |out: &mut String, items: &mut dyn Iterator<Item = &str>| {
        out.push('[');
        for (k, item) in items.enumerate() {
            if k > 0 {
                out.push(',');
            }
            push_json_str(out, item);
        }
        out.push(']');
    };
    for (k, field) in fields.iter().enumerate() {
        if k == *extra_at && env.extras().next().is_some() {
            key(&mut out, "extra");
            list(&mut out, &mut env.extras());
        }
        let Some(value) = env.get(*field) else {
            continue;
        };
        key(&mut out, field.name());
        match value {
            EnvValue::String(v) => push_json_str(&mut out, v),
            EnvValue::Set(items) => list(&mut out, &mut items.iter().map(|s| &**s)),
            EnvValue::Absent if field.field_type() == FieldType::Set => out.push_str("[]"),
            EnvValue::Absent => out.push_str("\"\""),
            EnvValue::Unknown => out.push_str("null"),
        }
    }
    out.push('}');
    out
}

/// Appends S as a JSON string, escaped as `serde_json` escapes it.
fn push_json_str(out: &mut String, s: &str) {
    if s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        out.push_str(&serde_json::Value::from(s).to_string());
    } else {
        out.push('"');
        out.push_str(s);
        out.push('"');
    }
}

/// An environment in which a cell holds, as a document (`null` when the cell is empty, and
/// when no environment realises the cell the algebra finds non-empty: then the cell's NAME is
/// appended to UNVERIFIED); a warning about it is appended to WARNINGS.
fn cell(
    ctx: &mut Context,
    m: Marker,
    (name, checks): (&'static str, &[(Option<&MarkerTree>, bool)]),
    warnings: &mut Vec<String>,
    unverified: &mut Vec<&'static str>,
) -> Result<String, String> {
    match ctx.solve_environment(m) {
        Ok(None) => Ok("null".to_owned()),
        // A witness in which the markers do not evaluate as the cell says is none.
        Ok(Some(env)) if evaluates_as(checks, &env) => {
            let doc = env_json_text(&env);
            warnings.extend(warn_if_invalid(&env, &doc, &format!("`{name}` witness")));
            Ok(doc)
        }
        Ok(Some(_)) => {
            warnings.push(format!(
                "warning[unverified-witness]: the `{name}` cell's witness does not evaluate as \
                 the cell says (a relation the algebra models only approximately, SPEC §21.2): \
                 it is null and listed under `unverified`"
            ));
            unverified.push(name);
            Ok("null".to_owned())
        }
        Err(e) if e.code() == "unverified-witness" => {
            warnings.push(format!(
                "warning[unverified-witness]: no environment realises the `{name}` cell, which \
                 the algebra cannot show empty (an opaque comparison, SPEC §21.2): it is null \
                 and listed under `unverified`"
            ));
            unverified.push(name);
            Ok("null".to_owned())
        }
        Err(e) => Err(format!("error[{}]: {e}\n", e.code())),
    }
}

/// The warning (one line) for a witness that is no valid environment document: SPEC §4.4's
/// invariants do not hold in it (under the `none` theory a marker can hold only where they
/// break, as `"32-bit" in sys_abi_features and "64-bit" in sys_abi_features` does; SPEC §21.5).
fn warn_if_invalid(env: &Environment, doc: &str, name: &str) -> Option<String> {
    // The invariants tie extended fields together: with all of them Absent (`""` or `[]`, as
    // every witness of a standard marker has them) none can break.
    let extended = env.iter().any(|(f, v)| {
        f.is_extended()
            && match v {
                EnvValue::String(s) => !s.is_empty(),
                EnvValue::Set(items) => !items.is_empty(),
                EnvValue::Absent => false,
                EnvValue::Unknown => true,
            }
    });
    if !extended {
        return None;
    }
    let e = markerspec_env::EnvironmentDocument::parse(doc).err()?;
    Some(format!(
        "warning[witness-breaks-invariant]: the {name} is no valid environment document, as \
         SPEC §4.4's invariants do not hold in it ({e}); `--theory platform` leaves out the \
         environments that break I1, I5 or I7"
    ))
}

/// The relation of A and B, and with `--json` the document; the warnings about its witnesses
/// are appended to WARNINGS.
/// The markers a batch answerer has read into its context, by text: `compare -` names each of a
/// lock file's markers in many pairs, and reading one again costs more than the question.
/// Emptied with the context, and once it holds [`BUILT_TEXTS`] texts.
#[derive(Default)]
struct Built {
    markers: std::collections::HashMap<Box<str>, Marker, foldhash::fast::RandomState>,
    /// With `--json`, the syntax trees the witnesses are checked against (`evaluates_as`),
    /// by text; `None` for a text that does not parse.
    trees: std::collections::HashMap<Box<str>, Option<MarkerTree>, foldhash::fast::RandomState>,
}

/// The most texts a [`Built`] holds.
const BUILT_TEXTS: usize = 1 << 16;

impl Built {
    /// The marker of TEXT in CTX, read now or earlier (a text that does not read is read again
    /// each time, for its error).
    fn marker(
        &mut self,
        ctx: &mut Context,
        text: &str,
        opts: &ParseOptions,
        theory: &Theory,
    ) -> Result<Marker, String> {
        if let Some(&m) = self.markers.get(text) {
            return Ok(m);
        }
        let m = marker(ctx, text, opts, theory)?;
        if self.markers.len() >= BUILT_TEXTS {
            self.markers.clear();
        }
        self.markers.insert(text.into(), m);
        Ok(m)
    }

    /// The syntax trees of A and B ([`tree`]), parsed now or earlier.
    fn trees(
        &mut self,
        (a, b): (&str, &str),
        opts: &ParseOptions,
    ) -> (Option<&MarkerTree>, Option<&MarkerTree>) {
        // (Room for both first, so that reading B cannot empty the table of A.)
        if self.trees.len() + 2 > BUILT_TEXTS {
            self.trees.clear();
        }
        for t in [a, b] {
            if !self.trees.contains_key(t) {
                self.trees.insert(t.into(), tree(t, opts));
            }
        }
        let get = |t: &str| self.trees.get(t).and_then(Option::as_ref);
        (get(a), get(b))
    }
}

fn compare_one(
    ctx: &mut Context,
    built: &mut Built,
    (a, b): (&str, &str),
    args: &CompareArgs,
    warnings: &mut Vec<String>,
) -> Result<(String, Option<String>), String> {
    let opts = args.lang.options();
    let ma = built.marker(ctx, a, &opts, &args.theory.theory)?;
    let mb = built.marker(ctx, b, &opts, &args.theory.theory)?;
    let err = |e: markerspec_algebra::Error| format!("error[{}]: {e}\n", e.code());
    // The word needs no witnesses; `--json` finds them for its document, from the cells.
    let word = relation_word(ctx.relation(ma, mb).map_err(err)?);
    if !args.json {
        return Ok((word.to_owned(), None));
    }
    let [c0, c1, c2, c3] = ctx.cells(ma, mb).map_err(err)?;
    let (ta, tb) = built.trees((a, b), &opts);
    let mut unverified = Vec::new();
    let mut witnesses = Vec::with_capacity(4);
    // (In the order of their names: the document's keys are sorted.)
    for (name, c, wa, wb) in [
        ("a_and_b", c0, true, true),
        ("a_not_b", c1, true, false),
        ("b_not_a", c2, false, true),
        ("neither", c3, false, false),
    ] {
        let checks = [(ta, wa), (tb, wb)];
        witnesses.push((
            name,
            cell(ctx, c, (name, &checks), warnings, &mut unverified)?,
        ));
    }
    // `{"relation": …, "unverified": […], "witnesses": {…}}`, the keys sorted.
    let mut doc =
        String::with_capacity(witnesses.iter().map(|(_, w)| w.len() + 12).sum::<usize>() + 64);
    doc.push_str("{\"relation\":\"");
    doc.push_str(word);
    doc.push('"');
    if !unverified.is_empty() {
        doc.push_str(",\"unverified\":");
        doc.push_str(&serde_json::to_string(&unverified).map_err(|e| e.to_string())?);
    }
    doc.push_str(",\"witnesses\":{");
    for (k, (name, w)) in witnesses.iter().enumerate() {
        if k > 0 {
            doc.push(',');
        }
        doc.push('"');
        doc.push_str(name);
        doc.push_str("\":");
        doc.push_str(w);
    }
    doc.push_str("}}");
    Ok((word.to_owned(), Some(doc)))
}

/// `compare -`'s answerer for one thread: its own context, and the markers read into it.
struct Comparer<'a> {
    ctx: Context,
    built: Built,
    args: &'a CompareArgs,
    /// With `--json`, the platform theory's constraint in the context when it was fresh.
    fresh: Option<Marker>,
}

impl<'a> Comparer<'a> {
    fn new(args: &'a CompareArgs) -> Self {
        let mut ctx = Context::new();
        // (Only `--json` asks for it: `met_instances`.)
        let fresh = args
            .json
            .then(|| ctx.theory_constraint(&Theory::platform()).ok())
            .flatten();
        Comparer {
            ctx,
            built: Built::default(),
            args,
            fresh,
        }
    }

    /// With `--json`, whether the context has met a literal that instantiates a rule of the
    /// platform theory (a variant property or feature, an ABI tag): a witness keeps those
    /// rules, under any theory (`Context::solve_environment`), so the witnesses of a later
    /// line could follow rules its markers do not name, and its answer would depend on the
    /// lines before (and on the thread that read them). The relation itself does not: such a
    /// rule is kept by leaving its literal out of the environment, so it empties no cell.
    fn met_instances(&mut self) -> bool {
        self.args.json && self.ctx.theory_constraint(&Theory::platform()).ok() != self.fresh
    }
}

impl Answer for Comparer<'_> {
    fn answer(&mut self, text: &str, out: &mut Vec<u8>, err: &mut Vec<u8>) {
        if self.met_instances() {
            *self = Comparer::new(self.args);
        }
        let mut warnings = Vec::new();
        let reply = match text.split_once('\t') {
            None => "error: expected `A<TAB>B`".to_owned(),
            Some((a, b)) => match in_bounded_context(
                self,
                |c| c.ctx.len(),
                |c| *c = Comparer::new(c.args),
                |c| {
                    warnings.clear();
                    compare_one(&mut c.ctx, &mut c.built, (a, b), c.args, &mut warnings)
                },
            ) {
                Ok((word, doc)) => doc.unwrap_or(word),
                Err(e) => one_line(&e),
            },
        };
        push_line(&reply, out);
        for w in warnings {
            push_line(&w, err);
        }
    }
}

pub(crate) fn compare(args: CompareArgs) -> Result<ExitCode, String> {
    if args.a == "-" {
        if args.b.is_some() {
            return Err("with `-`, compare reads `A<TAB>B` lines from stdin and takes no B".into());
        }
        return each_line(args.jobs, || Comparer::new(&args));
    }
    let Some(b) = &args.b else {
        return Err("compare needs two markers, or `-` to read `A<TAB>B` lines".into());
    };
    let mut warnings = Vec::new();
    let result = compare_one(
        &mut Context::new(),
        &mut Built::default(),
        (&args.a, b),
        &args,
        &mut warnings,
    );
    for w in &warnings {
        eprintln!("{w}");
    }
    match result {
        Ok((word, doc)) => {
            println!("{word}");
            if let Some(doc) = doc {
                println!("{doc}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprint!("{e}");
            Ok(ExitCode::from(2))
        }
    }
}

pub(crate) fn solve(args: SolveArgs) -> Result<ExitCode, String> {
    let mut ctx = Context::new();
    let opts = args.lang.options();
    let m = match marker(&mut ctx, &args.text, &opts, &args.theory.theory) {
        Ok(m) => m,
        Err(e) => {
            eprint!("{e}");
            return Ok(ExitCode::from(2));
        }
    };
    let err = |e: markerspec_algebra::Error| format!("error[{}]: {e}", e.code());
    let found = ctx.solve_environment(m).map_err(err)?;
    // The witness is checked by evaluating the marker itself (see `evaluates_as`).
    if let Some(env) = &found {
        if !evaluates_as(&[(tree(&args.text, &opts).as_ref(), true)], env) {
            return Err(
                "error[unverified-witness]: the witness the algebra found does not satisfy the \
                 marker (a relation it models only approximately, SPEC §21.2)"
                    .to_owned(),
            );
        }
    }
    match found {
        None => {
            if args.json {
                println!(
                    "{}",
                    serde_json::json!({"satisfiable": false, "witness": null})
                );
            } else {
                println!("unsatisfiable");
            }
            Ok(ExitCode::from(1))
        }
        Some(env) => {
            let doc = env_json(&env)?;
            if let Some(w) = warn_if_invalid(&env, &env_json_text(&env), "witness") {
                eprintln!("{w}");
            }
            if args.json {
                println!(
                    "{}",
                    serde_json::json!({"satisfiable": true, "witness": doc})
                );
            } else {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?
                );
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `eval --residual`: per environment, the marker left over the fields it leaves Unknown or
/// missing (`true` / `false` when they do not matter).
pub(crate) fn residual(tree: &MarkerTree, env: &Environment) -> Result<String, String> {
    let mut ctx = Context::new();
    let err = |e: markerspec_algebra::Error| format!("error[{}]: {e}", e.code());
    let m = ctx.from_marker(tree, &Theory::none()).map_err(err)?;
    let r = ctx.residual(m, env).map_err(err)?;
    ctx.to_marker_string(r).map_err(err)
}

#[cfg(test)]
mod tests {
    use super::{Built, FRESH_CONTEXT_NODES, in_bounded_context};
    use markerspec_algebra::{Context, Theory};
    use markerspec_pep508::ParseOptions;

    /// A witness is checked against the markers' own evaluation: a tree that evaluates
    /// otherwise than the cell says rejects it; one that does not parse, or cannot be
    /// evaluated, does not. The constants' words read as the constants.
    #[test]
    fn witnesses_are_checked_by_the_markers_evaluation() -> Result<(), String> {
        use super::{evaluates_as, tree};
        use markerspec_pep508::{Field, MarkerTree};
        let opts = ParseOptions::default();
        let posix = markerspec_algebra::default_environment()
            .with(Field::OsName, "posix")
            .map_err(|e| e.to_string())?;
        let nt = tree("os_name == 'nt'", &opts).ok_or("parses")?;
        assert!(!evaluates_as(&[(Some(&nt), true)], &posix));
        assert!(evaluates_as(&[(Some(&nt), false)], &posix));
        assert!(!evaluates_as(
            &[(Some(&nt), false), (Some(&nt), true)],
            &posix
        ));
        assert!(evaluates_as(&[(None, true)], &posix));
        assert!(tree("os_name ==", &opts).is_none());
        assert_eq!(tree(" false ", &opts), Some(MarkerTree::FALSE));
        assert_eq!(tree("true", &opts), Some(MarkerTree::TRUE));
        let never = tree("false", &opts);
        assert!(!evaluates_as(&[(never.as_ref(), true)], &posix));
        Ok(())
    }

    /// The JSON text written straight from an environment is the text of its document:
    /// strings, sets, absent values of both kinds, unknown values and requested extras.
    #[test]
    fn environments_write_as_their_documents() -> Result<(), String> {
        use markerspec_pep508::{EnvValue, Field};
        let base = markerspec_algebra::default_environment();
        let mut sets = base.clone();
        let err = |e: markerspec_pep508::EnvError| e.to_string();
        sets.set(
            Field::GpuBackends,
            EnvValue::Set(vec!["cuda".into(), "rocm".into()]),
        )
        .map_err(err)?;
        sets.set(Field::CudaVersion, EnvValue::String("12.4".into()))
            .map_err(err)?;
        sets.set(Field::PlatformVersion, EnvValue::Unknown)
            .map_err(err)?;
        sets.set(
            Field::PlatformRelease,
            EnvValue::String("6.8 \"x\"\\y".into()),
        )
        .map_err(err)?;
        let extras = sets.clone().with_extras(["docs", "test"]);
        let mut envs = vec![base, sets, extras];
        // Each character JSON escapes, alone and among others.
        for odd in [
            "\"",
            "\\",
            "\t",
            "a\u{1}b",
            "\u{1f}",
            "tab\there",
            "\u{7f}é",
        ] {
            let mut env = markerspec_algebra::default_environment();
            env.set(Field::PlatformVersion, EnvValue::String(odd.into()))
                .map_err(err)?;
            envs.push(env.with_extras([odd]));
        }
        for env in envs {
            let doc = super::env_json(&env)?.to_string();
            assert_eq!(super::env_json_text(&env), doc);
        }
        Ok(())
    }

    /// A text read before is the same marker, from the map; the map keeps every text until it
    /// is full; a text that does not read is an error each time and is not kept.
    #[test]
    fn built_markers_are_kept_by_text() -> Result<(), String> {
        let (mut ctx, mut built) = (Context::new(), Built::default());
        let (opts, none) = (ParseOptions::default(), Theory::none());
        let a = built.marker(&mut ctx, "os_name == 'nt'", &opts, &none)?;
        let b = built.marker(&mut ctx, "sys_platform == 'linux'", &opts, &none)?;
        assert_eq!(built.markers.len(), 2);
        let nodes = ctx.len();
        assert_eq!(built.marker(&mut ctx, "os_name == 'nt'", &opts, &none)?, a);
        assert_eq!(
            built.marker(&mut ctx, "sys_platform == 'linux'", &opts, &none)?,
            b
        );
        assert_eq!((built.markers.len(), ctx.len()), (2, nodes));
        for _ in 0..2 {
            assert!(built.marker(&mut ctx, "os_name ==", &opts, &none).is_err());
        }
        assert_eq!(built.markers.len(), 2);
        Ok(())
    }

    /// A stand-in for an answerer: its context's size, how often it was renewed, and the
    /// answers it gives in turn.
    struct Fake {
        len: usize,
        renewed: usize,
        answers: Vec<Result<&'static str, String>>,
    }

    fn run(fake: &mut Fake) -> Result<&'static str, String> {
        in_bounded_context(
            fake,
            |f| f.len,
            |f| {
                f.len = 0;
                f.renewed += 1;
            },
            |f| f.answers.remove(0),
        )
    }

    fn fake(len: usize, answers: Vec<Result<&'static str, String>>) -> Fake {
        Fake {
            len,
            renewed: 0,
            answers,
        }
    }

    /// A context past the bound is replaced before the line; a grown one that answers
    /// `intractable` is replaced and asked again; a small one's answer, and any other error,
    /// stand.
    #[test]
    fn a_grown_context_is_replaced() {
        let intractable = || Err("error[intractable]: operation exceeds the node limit".into());
        let mut f = fake(FRESH_CONTEXT_NODES + 1, vec![Ok("a")]);
        assert_eq!(run(&mut f), Ok("a"));
        assert_eq!(f.renewed, 1);

        let mut f = fake(FRESH_CONTEXT_NODES, vec![intractable(), Ok("b")]);
        assert_eq!(run(&mut f), Ok("b"));
        assert_eq!(f.renewed, 1);

        let mut f = fake(FRESH_CONTEXT_NODES / 16, vec![intractable(), Ok("c")]);
        assert_eq!(run(&mut f), intractable());
        assert_eq!(f.renewed, 0);

        let mut f = fake(
            FRESH_CONTEXT_NODES,
            vec![Err("error[M001]: x".into()), Ok("d")],
        );
        assert_eq!(run(&mut f), Err("error[M001]: x".into()));
        assert_eq!(f.renewed, 0);
    }
}
