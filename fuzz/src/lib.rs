//! What the fuzz targets share: the input cap, a CPU-time guard that turns super-linear work
//! into a crash, the checks every parse result must pass, and structure-aware generators of
//! markers (printed from an AST, with the tree they must parse to) and environments.

use std::fmt::Write as _;
use std::sync::OnceLock;

use arbitrary::{Result, Unstructured};
use markerspec_pep508::pep440::Version;
use markerspec_pep508::{
    DIAGNOSTIC_CODES, Dialect, EnvValue, Environment, Error, Field, FieldType, MarkerExpression,
    MarkerOperator, MarkerTree, MarkerValue, ParseOptions, Profile, Warning, normalize_name,
};

/// Whether known open bugs and by-design exceptions fail the targets
/// (`MARKERSPEC_FUZZ_STRICT=1`). By default the targets step over inputs that only show a bug
/// already reported, with a reproducer under `fuzz/regressions/<target>/open/`, so that fuzzing
/// goes on finding new ones; the smoke replays the open reproducers strictly. Remove the
/// step-over when the bug is fixed.
pub fn strict() -> bool {
    static STRICT: OnceLock<bool> = OnceLock::new();
    *STRICT.get_or_init(|| std::env::var("MARKERSPEC_FUZZ_STRICT").is_ok_and(|v| v == "1"))
}

/// Why the display of `tree`, parsed in `config`, need not read back as `tree`, if it need not;
/// always `None` under [`strict`]. The reason is the `uv` profile's by design (its author's
/// `uv_unreadable` in `tests/properties.rs`, commit 094315e), since uv reads markers so:
///
/// * `uv-literal-with-backslash`: the profile reads quoted strings as written, without escapes,
///   but display escapes what plain quotes cannot hold (a backslash, a line break, a NUL, both
///   quotes), so the text reads back with the escapes in it.
pub fn known_marker_bug(tree: &MarkerTree, config: Config) -> Option<&'static str> {
    if strict() || config.profile != Profile::Uv {
        return None;
    }
    let escaped =
        |l: &str| l.contains(['\\', '\n', '\r', '\0']) || (l.contains('"') && l.contains('\''));
    let any = tree.expressions().iter().any(|e| {
        [e.lhs(), e.rhs()]
            .iter()
            .any(|v| v.as_literal().is_some_and(escaped))
    });
    any.then_some("uv-literal-with-backslash")
}

/// Inputs longer than this are skipped: long enough to expose super-linear work, short enough
/// to keep the executions per second up.
pub const MAX_INPUT: usize = 64 * 1024;

// ---------------------------------------------------------------------------------------------
// Time guard
// ---------------------------------------------------------------------------------------------

fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant libc knows.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0;
    }
    (ts.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(ts.tv_nsec as u64)
}

/// `(base_ns, per_byte_ns)`: the CPU budget of one execution is `base + per_byte * len`.
///
/// Defaults: 100 ms plus 10 µs per input byte (755 ms at 64 KiB), which a linear parser under
/// AddressSanitizer stays far below (a few µs per byte at most) and a quadratic one exceeds
/// well before 64 KiB. Override with `MARKERSPEC_FUZZ_BASE_MS` and
/// `MARKERSPEC_FUZZ_NS_PER_BYTE`; both `0` disables the guard.
fn budget() -> (u64, u64) {
    static BUDGET: OnceLock<(u64, u64)> = OnceLock::new();
    *BUDGET.get_or_init(|| {
        let read = |name: &str, default: u64| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(default)
        };
        (
            read("MARKERSPEC_FUZZ_BASE_MS", 100).saturating_mul(1_000_000),
            read("MARKERSPEC_FUZZ_NS_PER_BYTE", 10_000),
        )
    })
}

/// Runs `work` (the whole check of one input, which must be deterministic) and panics when it
/// takes more of the thread's CPU time than the linear budget for `len` input bytes allows.
///
/// CPU time, not wall time, so a busy machine does not trip it; and a slow run counts only when
/// two reruns are slow as well, since page faults and a cold allocator can make one run of a
/// few milliseconds take tens.
pub fn within_budget<T>(what: &str, len: usize, mut work: impl FnMut() -> T) -> T {
    let (base, per_byte) = budget();
    let start = thread_cpu_ns();
    let out = work();
    if base == 0 && per_byte == 0 {
        return out;
    }
    let allowed = base.saturating_add(per_byte.saturating_mul(len as u64));
    let mut best = thread_cpu_ns().saturating_sub(start);
    for _ in 0..2 {
        if best <= allowed {
            break;
        }
        let again = thread_cpu_ns();
        let _ = work();
        best = best.min(thread_cpu_ns().saturating_sub(again));
    }
    assert!(
        best <= allowed,
        "{what}: {} µs of CPU (the best of three runs) for {len} input bytes, over the linear \
         budget of {} µs",
        best / 1000,
        allowed / 1000
    );
    out
}

// ---------------------------------------------------------------------------------------------
// Checks on results
// ---------------------------------------------------------------------------------------------

/// Whether `code` is in the diagnostic tables of `markerspec-pep508` or `markerspec-pep440`.
pub fn known_code(code: &str) -> bool {
    DIAGNOSTIC_CODES.iter().any(|entry| entry.0 == code)
        || markerspec_pep440::ERROR_CODES
            .iter()
            .any(|entry| entry.0 == code)
}

/// Every parse error: a span inside the input on character boundaries, the input kept, a code
/// from the table, a message, and a rendering that does not panic.
pub fn check_error(err: &Error, input: &str) {
    let span = err.span();
    assert!(
        span.start <= span.end,
        "{err:?}: span {span:?} runs backwards"
    );
    assert!(
        span.end <= input.len(),
        "{err:?}: span {span:?} past the end of {} bytes",
        input.len()
    );
    assert!(
        input.is_char_boundary(span.start) && input.is_char_boundary(span.end),
        "{err:?}: span {span:?} splits a character"
    );
    assert!(
        known_code(err.code()),
        "{err:?}: code {} is in neither DIAGNOSTIC_CODES nor pep440::ERROR_CODES",
        err.code()
    );
    assert!(!err.message().is_empty(), "{err:?}: empty message");
    let rendered = err.render(input);
    assert!(rendered.contains(err.code()));
    let _ = err.help();
}

/// Every warning: a span inside the input, a code from the table, a rendering.
pub fn check_warnings(warnings: &[Warning], input: &str) {
    for w in warnings {
        assert!(
            w.span.start <= w.span.end && w.span.end <= input.len(),
            "{w:?}: span outside the input of {} bytes",
            input.len()
        );
        assert!(
            known_code(w.code()),
            "{w:?}: code {} is not in DIAGNOSTIC_CODES",
            w.code()
        );
        let _ = w.render(input);
    }
}

/// The parse options of a configuration, with the library's default limits.
pub fn options(config: Config) -> ParseOptions {
    ParseOptions::default()
        .dialect(config.dialect)
        .profile(config.profile)
        .lock_file(config.lock_file)
}

/// A dialect, a behaviour profile and whether `extras`/`dependency_groups` exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Which fields exist.
    pub dialect: Dialect,
    /// Which implementation's behaviour to follow.
    pub profile: Profile,
    /// Lock-file context.
    pub lock_file: bool,
}

impl std::fmt::Display for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}/{}{}",
            self.dialect,
            self.profile,
            if self.lock_file { "/lock-file" } else { "" }
        )
    }
}

/// The configurations the text targets parse every input with: for every behaviour profile,
/// the pep508 dialect without and with lock-file context, and the extended dialect with it.
pub fn configs() -> Vec<Config> {
    Profile::ALL
        .iter()
        .flat_map(|&profile| {
            [
                (Dialect::Pep508, false),
                (Dialect::Pep508, true),
                (Dialect::Extended, true),
            ]
            .map(|(dialect, lock_file)| Config {
                dialect,
                profile,
                lock_file,
            })
        })
        .collect()
}

/// The laws between the results of [`configs`], profile by profile: the dialects agree on
/// text without extended fields (`reads_extended` tells whether a value reads one), and
/// lock-file context only adds (`extras` and `dependency_groups`).
pub fn check_configs<T: PartialEq + std::fmt::Debug>(
    text: &str,
    configs: &[Config],
    results: &[Option<T>],
    reads_extended: impl Fn(&T) -> bool,
) {
    for (c, r) in configs.chunks(3).zip(results.chunks(3)) {
        let [no_lock, pep508, extended] = [&r[0], &r[1], &r[2]];
        match (pep508, extended) {
            (Some(a), Some(b)) => {
                assert_eq!(a, b, "{} and {} disagree on {text:?}", c[1], c[2])
            }
            (Some(_), None) => panic!("{} accepts {text:?} but {} rejects it", c[1], c[2]),
            (None, Some(b)) => assert!(
                reads_extended(b),
                "{} accepts {text:?}, which reads no extended field, but {} rejects it",
                c[2],
                c[1]
            ),
            (None, None) => {}
        }
        if let Some(a) = no_lock {
            assert_eq!(
                pep508.as_ref(),
                Some(a),
                "{text:?}: {} changes or rejects what {} accepts",
                c[1],
                c[0]
            );
        }
    }
}

/// A configuration drawn from the fuzz input.
pub fn gen_config(u: &mut Unstructured<'_>, dialect: Dialect) -> Result<Config> {
    Ok(Config {
        dialect,
        profile: *u.choose(Profile::ALL)?,
        lock_file: u.arbitrary()?,
    })
}

/// Whether any comparison of the tree reads an extended-dialect field.
pub fn reads_extended_field(tree: &MarkerTree) -> bool {
    tree.fields().iter().any(|f| f.is_extended())
}

// ---------------------------------------------------------------------------------------------
// Marker generator
// ---------------------------------------------------------------------------------------------

/// PEP 345 spellings the grammar still accepts, with the field they name.
const ALIASES: &[(&str, Field)] = &[
    ("os.name", Field::OsName),
    ("sys.platform", Field::SysPlatform),
    ("platform.version", Field::PlatformVersion),
    ("platform.machine", Field::PlatformMachine),
    (
        "platform.python_implementation",
        Field::PlatformPythonImplementation,
    ),
    ("python_implementation", Field::PlatformPythonImplementation),
];

const OPERATORS: &[MarkerOperator] = &[
    MarkerOperator::Equal,
    MarkerOperator::NotEqual,
    MarkerOperator::LessThan,
    MarkerOperator::LessThanEqual,
    MarkerOperator::GreaterThan,
    MarkerOperator::GreaterThanEqual,
    MarkerOperator::TildeEqual,
    MarkerOperator::ExactEqual,
    MarkerOperator::In,
    MarkerOperator::NotIn,
];

/// Strings that real markers and environments hold, so that comparisons sometimes succeed.
pub const VOCABULARY: &[&str] = &[
    "",
    "posix",
    "nt",
    "java",
    "linux",
    "win32",
    "darwin",
    "cygwin",
    "x86_64",
    "AMD64",
    "aarch64",
    "arm64",
    "CPython",
    "PyPy",
    "cpython",
    "Linux",
    "Windows",
    "Darwin",
    "3",
    "3.8",
    "3.10",
    "3.12",
    "3.12.1",
    "3.14.0rc1",
    "2.7",
    "6.5.0-1025-azure",
    "5.15.167.4-microsoft-standard-WSL2",
    "#1 SMP PREEMPT_DYNAMIC",
    "12",
    "12.4",
    "11.8",
    "535.104.05",
    "8.9",
    "9.0",
    "2.17",
    "1.2.4",
    "6.2",
    "cuda",
    "rocm",
    "gfx90a",
    "gfx1100",
    "cp313t",
    "cp312",
    "free-threading",
    "gil_disabled",
    "test",
    "Test_Extra",
    "foo.bar",
    "dev",
    "nvidia",
    "nvidia :: cuda_version_lower_bound :: 12.8",
    "nvidia :: sm_arch",
    "x86_64 :: level :: v3",
    "1.0.*",
    "1!2.0",
    "1.0+local.7",
    "1.0.post1.dev2",
    " 3.8 ",
];

/// Characters for free-form strings: ASCII specials, quotes, backslashes, whitespace that is
/// and is not marker whitespace, and multi-byte characters.
const ODD_CHARS: &[char] = &[
    'a', 'Z', '0', '9', '.', '-', '_', '*', '+', '!', ' ', '\t', '"', '\'', '\\', '(', ')', ';',
    ',', '@', '[', ']', '=', '<', '>', '~', '#', ':', '/', '\u{b}', '\u{c}', '\u{1c}', '\u{85}',
    '\u{a0}', '\u{2028}', '\u{3000}', 'é', 'İ', 'ß', '😀', '\u{301}', '\n', '\r', '\0', 'x', 'u',
    'N', '{', '}',
];

/// One side of a comparison, as it will be printed.
#[derive(Debug, Clone)]
pub enum Side {
    /// A variable, printed with `spelling` (canonical or an alias).
    Field {
        /// The field.
        field: Field,
        /// How it is written.
        spelling: &'static str,
    },
    /// A quoted string: its text (written between the quotes as is) and the quote.
    Literal {
        /// The text between the quotes.
        raw: String,
        /// `"` or `'`.
        quote: char,
    },
}

/// A marker AST with the layout choices that printing needs.
#[derive(Debug, Clone)]
pub enum Node {
    /// `lhs op rhs`.
    Expr(Side, MarkerOperator, Side),
    /// `a and b and …` (two or more).
    And(Vec<Node>),
    /// `a or b or …` (two or more).
    Or(Vec<Node>),
    /// `( inner )`, redundant or needed.
    Paren(Box<Node>),
}

/// A generated marker: the text, and what parsing it must give.
#[derive(Debug)]
pub struct MarkerCase {
    /// The dialect, profile and context to parse in.
    pub config: Config,
    /// The AST.
    pub node: Node,
    /// The printed marker.
    pub text: String,
    /// The tree the text must parse to, when no literal holds a backslash (whose escapes the
    /// generator does not model).
    pub expected: Option<MarkerTree>,
    /// Parsing must succeed, in any configuration: every comparison between one standard
    /// field (not the lock-file fields `extras` and `dependency_groups`) and one literal, and
    /// literals without backslashes, line breaks or NULs. Other markers may be rejected by a
    /// dialect, a profile or a context rule.
    pub must_parse: bool,
    /// Parsing must fail: the pep508 dialect and an extended field.
    pub must_fail: bool,
    /// Every literal, decoded where that is known, for environments to pick from.
    pub literals: Vec<String>,
}

impl MarkerCase {
    /// Whether parsing must succeed in the case's configuration: [`MarkerCase::must_parse`] in
    /// the `spec-2026` and `packaging` profiles. The `uv` profile rejects what uv rejects
    /// (`===`, `and` or `or` without whitespace after it, …), so nothing is owed there.
    pub fn must_parse_here(&self) -> bool {
        self.must_parse && matches!(self.config.profile, Profile::Spec2026 | Profile::Packaging)
    }

    /// Whether the parsed tree must equal [`MarkerCase::expected`]: the `uv` profile drops the
    /// comparisons uv cannot read, with a warning, so a warning there voids the expectation.
    pub fn expect_tree(&self, warnings: &[Warning]) -> Option<&MarkerTree> {
        if self.config.profile == Profile::Uv && !warnings.is_empty() {
            return None;
        }
        self.expected.as_ref()
    }
}

fn pick<'a, T>(u: &mut Unstructured<'_>, items: &'a [T]) -> Result<&'a T> {
    u.choose(items)
}

/// A version-like string assembled from PEP 440's parts with their alternative spellings,
/// sometimes broken on purpose.
pub fn gen_version_text(u: &mut Unstructured<'_>) -> Result<String> {
    let mut s = String::new();
    if u.ratio(1, 8)? {
        s.push_str(pick(u, &[" ", "\t", "  ", "\u{a0}"])?);
    }
    if u.ratio(1, 10)? {
        s.push(*pick(u, &['v', 'V'])?);
    }
    if u.ratio(1, 8)? {
        let _ = write!(s, "{}!", u.int_in_range(0u32..=3)?);
    }
    let n = u.int_in_range(1..=5)?;
    for i in 0..n {
        if i > 0 {
            s.push('.');
        }
        let big = u.ratio(1, 20)?;
        if big {
            s.push_str(pick(
                u,
                &["18446744073709551615", "18446744073709551616", "007"],
            )?);
        } else {
            let _ = write!(s, "{}", u.int_in_range(0u32..=20)?);
        }
    }
    if u.ratio(1, 8)? {
        s.push_str(".*");
        return Ok(s);
    }
    let seps = ["", ".", "-", "_"];
    if u.ratio(1, 4)? {
        s.push_str(pick(u, &seps)?);
        s.push_str(pick(
            u,
            &[
                "a", "b", "rc", "c", "alpha", "beta", "pre", "preview", "A", "RC",
            ],
        )?);
        s.push_str(pick(u, &seps)?);
        if u.ratio(3, 4)? {
            let _ = write!(s, "{}", u.int_in_range(0u32..=9)?);
        }
    }
    if u.ratio(1, 5)? {
        if u.ratio(1, 4)? {
            let _ = write!(s, "-{}", u.int_in_range(0u32..=9)?);
        } else {
            s.push_str(pick(u, &seps)?);
            s.push_str(pick(u, &["post", "rev", "r", "POST"])?);
            s.push_str(pick(u, &seps)?);
            if u.ratio(3, 4)? {
                let _ = write!(s, "{}", u.int_in_range(0u32..=9)?);
            }
        }
    }
    if u.ratio(1, 6)? {
        s.push_str(pick(u, &seps)?);
        s.push_str(pick(u, &["dev", "DEV"])?);
        if u.ratio(3, 4)? {
            let _ = write!(s, "{}", u.int_in_range(0u32..=9)?);
        }
    }
    if u.ratio(1, 6)? {
        s.push('+');
        let parts = u.int_in_range(1..=3)?;
        for i in 0..parts {
            if i > 0 {
                s.push(*pick(u, &['.', '-', '_'])?);
            }
            s.push_str(pick(u, &["ubuntu", "1", "abc", "Cuda12", "007", "x"])?);
        }
    }
    if u.ratio(1, 16)? {
        s.push_str(pick(u, &["x", ".", "..", "+", "!", "-", "*"])?);
    }
    if u.ratio(1, 8)? {
        s.push_str(pick(u, &[" ", "\t", "\u{85}"])?);
    }
    Ok(s)
}

/// Literal text: a version, a real value, odd characters, or arbitrary Unicode.
pub fn gen_string(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(match u.int_in_range(0u8..=9)? {
        0..=3 => gen_version_text(u)?,
        4..=6 => (*pick(u, VOCABULARY)?).to_string(),
        7 | 8 => {
            let n = u.int_in_range(0..=12)?;
            let mut s = String::new();
            for _ in 0..n {
                s.push(*pick(u, ODD_CHARS)?);
            }
            s
        }
        _ => {
            let s: String = u.arbitrary()?;
            s.chars().take(64).collect()
        }
    })
}

/// Whether the parser's `python_str` rules read `raw` exactly as written: no escapes, and no
/// character that makes the string invalid.
fn is_plain(raw: &str) -> bool {
    !raw.contains(['\\', '\n', '\r', '\0'])
}

struct Gen<'a, 'b> {
    u: &'a mut Unstructured<'b>,
    dialect: Dialect,
    uses_extended: bool,
    all_plain: bool,
    /// A comparison of two literals or two fields, or one of `extras`/`dependency_groups`.
    contested: bool,
    literals: Vec<String>,
    clauses: usize,
}

impl Gen<'_, '_> {
    fn side(&mut self, literal: bool) -> Result<Side> {
        if literal {
            let raw = gen_string(self.u)?;
            if !is_plain(&raw) {
                self.all_plain = false;
            }
            let quote = if raw.contains('"') {
                '\''
            } else if raw.contains('\'') {
                '"'
            } else {
                *pick(self.u, &['"', '\''])?
            };
            // Text with both quotes cannot be written without escapes: drop one kind.
            let raw = if raw.contains('"') && raw.contains('\'') {
                raw.replace('\'', "")
            } else {
                raw
            };
            self.literals.push(raw.clone());
            return Ok(Side::Literal { raw, quote });
        }
        let (field, spelling) = if self.u.ratio(1, 10)? {
            let (alias, field) = *pick(self.u, ALIASES)?;
            (field, alias)
        } else {
            let field = *pick(self.u, Field::ALL)?;
            (field, field.name())
        };
        if field.is_extended() {
            self.uses_extended = true;
        }
        Ok(Side::Field { field, spelling })
    }

    fn expr(&mut self) -> Result<Node> {
        self.clauses += 1;
        // Mostly `field OP "literal"` and `"literal" in field`, sometimes the odd shapes.
        let shape = self.u.int_in_range(0u8..=9)?;
        let (lhs_lit, rhs_lit) = match shape {
            0..=5 => (false, true),
            6 | 7 => (true, false),
            8 => (true, true),
            _ => (false, false),
        };
        let lhs = self.side(lhs_lit)?;
        let op = if shape == 6 || shape == 7 {
            *pick(
                self.u,
                &[
                    MarkerOperator::In,
                    MarkerOperator::NotIn,
                    MarkerOperator::Equal,
                    MarkerOperator::In,
                ],
            )?
        } else {
            *pick(self.u, OPERATORS)?
        };
        let rhs = self.side(rhs_lit)?;
        let lock_file_field = [&lhs, &rhs].iter().any(|s| {
            matches!(
                s,
                Side::Field {
                    field: Field::Extras | Field::DependencyGroups,
                    ..
                }
            )
        });
        if lhs_lit == rhs_lit || lock_file_field {
            self.contested = true;
        }
        Ok(Node::Expr(lhs, op, rhs))
    }

    fn node(&mut self, depth: u32) -> Result<Node> {
        if depth == 0 || self.u.is_empty() || self.clauses > 64 {
            return self.expr();
        }
        match self.u.int_in_range(0u8..=7)? {
            0..=3 => self.expr(),
            4 | 5 => {
                let n = self.u.int_in_range(2..=4)?;
                let children = (0..n)
                    .map(|_| self.node(depth - 1))
                    .collect::<Result<Vec<_>>>()?;
                Ok(if self.u.arbitrary()? {
                    Node::And(children)
                } else {
                    Node::Or(children)
                })
            }
            _ => Ok(Node::Paren(Box::new(self.node(depth - 1)?))),
        }
    }
}

/// Generates a marker, prints it, and works out the tree it must parse to.
pub fn gen_marker(u: &mut Unstructured<'_>) -> Result<MarkerCase> {
    let dialect = if u.arbitrary()? {
        Dialect::Extended
    } else {
        Dialect::Pep508
    };
    let depth = u.int_in_range(0..=6)?;
    let mut g = Gen {
        u,
        dialect,
        uses_extended: false,
        all_plain: true,
        contested: false,
        literals: Vec::new(),
        clauses: 0,
    };
    let node = g.node(depth)?;
    let config = gen_config(g.u, dialect)?;
    let mut text = String::new();
    let mut p = Printer {
        u: g.u,
        out: &mut text,
    };
    p.leading_ws()?;
    p.node(&node, false)?;
    p.trailing_ws()?;
    let expected = g.all_plain.then(|| expected_tree(&node));
    Ok(MarkerCase {
        config,
        must_parse: !g.uses_extended && g.all_plain && !g.contested,
        must_fail: g.dialect == Dialect::Pep508 && g.uses_extended,
        node,
        text,
        expected,
        literals: g.literals,
    })
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '.'
}

struct Printer<'a, 'b, 'c> {
    u: &'a mut Unstructured<'b>,
    out: &'c mut String,
}

impl Printer<'_, '_, '_> {
    /// Writes `wsp*` (spaces and tabs) before `next`, at least one where two words would
    /// otherwise run together.
    fn gap(&mut self, next: char) -> Result<()> {
        let needed = self.out.chars().last().is_some_and(is_word_char) && is_word_char(next);
        let n = self.u.int_in_range(0u8..=3)?;
        let n = match n {
            0 | 1 => 1,
            2 => 0,
            _ => 2,
        };
        let n = if needed { n.max(1) } else { n };
        for _ in 0..n {
            self.out.push(if self.u.ratio(1, 6)? { '\t' } else { ' ' });
        }
        Ok(())
    }

    fn leading_ws(&mut self) -> Result<()> {
        if self.u.ratio(1, 8)? {
            self.out.push(' ');
        }
        Ok(())
    }

    fn trailing_ws(&mut self) -> Result<()> {
        if self.u.ratio(1, 8)? {
            self.out.push('\t');
        }
        Ok(())
    }

    fn side(&mut self, side: &Side) {
        match side {
            Side::Field { spelling, .. } => self.out.push_str(spelling),
            Side::Literal { raw, quote } => {
                self.out.push(*quote);
                self.out.push_str(raw);
                self.out.push(*quote);
            }
        }
    }

    fn first_char(node: &Node) -> char {
        match node {
            Node::Expr(Side::Field { spelling, .. }, _, _) => {
                spelling.chars().next().unwrap_or('x')
            }
            Node::Expr(Side::Literal { quote, .. }, _, _) => *quote,
            Node::And(c) | Node::Or(c) => c.first().map_or('(', Self::first_char),
            Node::Paren(_) => '(',
        }
    }

    fn node(&mut self, node: &Node, in_and: bool) -> Result<()> {
        match node {
            Node::Expr(lhs, op, rhs) => {
                self.side(lhs);
                let op_text = op.as_str();
                self.gap(op_text.chars().next().unwrap_or('='))?;
                if *op == MarkerOperator::NotIn {
                    self.out.push_str("not");
                    let n = self.u.int_in_range(1u8..=2)?;
                    for _ in 0..n {
                        self.out.push(' ');
                    }
                    self.out.push_str("in");
                } else {
                    self.out.push_str(op_text);
                }
                let next = match rhs {
                    Side::Field { spelling, .. } => spelling.chars().next().unwrap_or('x'),
                    Side::Literal { quote, .. } => *quote,
                };
                self.gap(next)?;
                self.side(rhs);
            }
            Node::And(children) | Node::Or(children) => {
                let is_or = matches!(node, Node::Or(_));
                let wrap = is_or && in_and;
                if wrap {
                    self.out.push('(');
                }
                for (i, c) in children.iter().enumerate() {
                    if i > 0 {
                        self.gap('a')?;
                        self.out.push_str(if is_or { "or" } else { "and" });
                        self.gap(Self::first_char(c))?;
                    }
                    self.node(c, !is_or)?;
                }
                if wrap {
                    self.out.push(')');
                }
            }
            Node::Paren(inner) => {
                self.out.push('(');
                if self.u.ratio(1, 4)? {
                    self.out.push(' ');
                }
                self.node(inner, false)?;
                if self.u.ratio(1, 4)? {
                    self.out.push('\t');
                }
                self.out.push(')');
            }
        }
        Ok(())
    }
}

fn value(side: &Side) -> MarkerValue {
    match side {
        Side::Field { field, .. } => MarkerValue::Field(*field),
        Side::Literal { raw, .. } => MarkerValue::Literal(raw.as_str().into()),
    }
}

/// The tree a printed AST must parse to: flat `and`/`or`, no trace of parentheses, and names
/// compared with `extra`, `extras` or `dependency_groups` normalised (PEP 685, 735).
pub fn expected_tree(node: &Node) -> MarkerTree {
    match node {
        Node::Expr(lhs, op, rhs) => {
            let (mut l, mut r) = (value(lhs), value(rhs));
            match (&mut l, &mut r) {
                (
                    MarkerValue::Literal(s),
                    MarkerValue::Field(Field::Extra | Field::Extras | Field::DependencyGroups),
                )
                | (MarkerValue::Field(Field::Extra), MarkerValue::Literal(s)) => {
                    *s = normalize_name(s).into();
                }
                _ => {}
            }
            MarkerTree::from(MarkerExpression::new(l, *op, r))
        }
        Node::And(children) => fold(children, MarkerTree::and),
        Node::Or(children) => fold(children, MarkerTree::or),
        Node::Paren(inner) => expected_tree(inner),
    }
}

fn fold(children: &[Node], join: fn(MarkerTree, MarkerTree) -> MarkerTree) -> MarkerTree {
    let mut it = children.iter().map(expected_tree);
    let first = it
        .next()
        .expect("the generator gives and/or at least two children");
    it.fold(first, join)
}

// ---------------------------------------------------------------------------------------------
// Environment generator
// ---------------------------------------------------------------------------------------------

/// A value for `field` that is known (a string, a set, or Absent), drawn from the marker's own
/// literals half of the time so that comparisons match.
pub fn gen_known_value(
    u: &mut Unstructured<'_>,
    field: Field,
    literals: &[String],
) -> Result<EnvValue> {
    let string = |u: &mut Unstructured<'_>| -> Result<String> {
        if !literals.is_empty() && u.arbitrary()? {
            Ok(pick(u, literals)?.clone())
        } else {
            gen_string(u)
        }
    };
    if u.ratio(1, 8)? {
        return Ok(EnvValue::Absent);
    }
    Ok(if field.field_type() == FieldType::Set {
        let n = u.int_in_range(0..=3)?;
        let items = (0..n)
            .map(|_| string(u).map(String::into_boxed_str))
            .collect::<Result<Vec<_>>>()?;
        EnvValue::Set(items)
    } else {
        EnvValue::String(string(u)?.into())
    })
}

/// An environment: each field unset, known, Absent or Unknown, and a few requested extras.
pub fn gen_environment(u: &mut Unstructured<'_>, literals: &[String]) -> Result<Environment> {
    let mut env = Environment::new();
    for &field in Field::ALL {
        if field == Field::Extra {
            continue;
        }
        let value = match u.int_in_range(0u8..=7)? {
            0 => continue,
            1 => EnvValue::Unknown,
            _ => gen_known_value(u, field, literals)?,
        };
        env.set(field, value)
            .expect("the generator gives sets to set fields only");
    }
    let n = u.int_in_range(0..=3)?;
    let mut extras = Vec::new();
    for _ in 0..n {
        extras.push(if !literals.is_empty() && u.arbitrary()? {
            pick(u, literals)?.clone()
        } else {
            (*pick(u, &["test", "cuda", "Dev_Tools", "", "a.b"])?).to_string()
        });
    }
    Ok(env.with_extras(extras))
}

/// Whether the value of `field` is not known: Unknown, or not given (which a profile may read
/// as Unknown or as an error).
pub fn not_known(env: &Environment, field: Field) -> bool {
    matches!(env.get(field), None | Some(EnvValue::Unknown))
}

/// The fields `tree` reads whose values are not known ([`not_known`]); `extra` is always known
/// (it reads the requested extras). `python_version` counts as reading `python_full_version`
/// too, since the `uv` profile tests it against the full version, as uv does; and under `uv`,
/// `platform_release` reads `sys_platform` (uv-pep508 0.0.98 compares it as a version only on
/// `darwin`).
pub fn unknown_fields(tree: &MarkerTree, env: &Environment) -> Vec<Field> {
    let mut fields = tree.fields();
    if fields.contains(&Field::PythonVersion) {
        fields.push(Field::PythonFullVersion);
    }
    if tree.profile() == Profile::Uv && fields.contains(&Field::PlatformRelease) {
        fields.push(Field::SysPlatform);
    }
    fields
        .into_iter()
        .filter(|&f| f != Field::Extra && not_known(env, f))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Versions
// ---------------------------------------------------------------------------------------------

/// A version's parts, for comparing two parses field by field.
pub fn version_parts(v: &Version) -> String {
    format!(
        "{:?}|{:?}|{:?}|{:?}|{:?}|{:?}",
        v.epoch(),
        v.release(),
        v.pre(),
        v.post(),
        v.dev(),
        v.local()
    )
}
