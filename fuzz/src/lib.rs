//! What the fuzz targets share: the input cap, a CPU-time guard that turns super-linear work
//! into a crash, the checks every parse result must pass, and the structure-aware generators
//! of markers (printed from an AST, with the tree they must parse to) and environments, which
//! live in `markerspec_pep508::generate` (feature `arbitrary`).

use std::sync::OnceLock;

use arbitrary::{Result, Unstructured};
use markerspec_pep508::generate::{self, Options, Weights};
use markerspec_pep508::pep440::Version;
use markerspec_pep508::{
    DIAGNOSTIC_CODES, Dialect, EnvValue, Environment, Error, Field, FieldType, MarkerTree,
    MarkerValue, ParseOptions, Profile, Warning,
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

/// The CPU time this thread has used, in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`, through
/// `rustix`: no `unsafe` here).
fn thread_cpu_ns() -> u64 {
    let ts = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    u64::try_from(ts.tv_sec)
        .unwrap_or(0)
        .saturating_mul(1_000_000_000)
        .saturating_add(u64::try_from(ts.tv_nsec).unwrap_or(0))
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
        // spec-2026 refuses the legacy `extra` in lock-file context (SPEC Appendix E.5): a text
        // that mentions it may lose its tree there (a literal that mentions it only weakens
        // this check).
        let extra_in_lock_file =
            c[1].profile == Profile::Spec2026 && c[1].lock_file && text.contains("extra");
        if let Some(a) = no_lock
            .as_ref()
            .filter(|_| !(pep508.is_none() && extra_in_lock_file))
        {
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
// Generators: `markerspec_pep508::generate` (feature `arbitrary`), the same code that
// `markerspec generate` and `markerspec fuzz` use and that other tools embed.
// ---------------------------------------------------------------------------------------------

pub use markerspec_pep508::generate::{
    Node, Side, VOCABULARY, environment as gen_environment, expected_tree,
    known_value as gen_known_value, odd_string as gen_string,
};

/// A generated marker in the configuration it is parsed in, and what parsing it must give.
#[derive(Debug)]
pub struct MarkerCase {
    /// The dialect, profile and context to parse in.
    pub config: Config,
    /// The syntax tree.
    pub node: Node,
    /// The printed marker.
    pub text: String,
    /// The tree the text must parse to, when no literal holds a backslash (whose escapes the
    /// generator does not model).
    pub expected: Option<MarkerTree>,
    /// Parsing must succeed, in any configuration ([`GeneratedMarker::must_parse`]).
    ///
    /// [`GeneratedMarker::must_parse`]: markerspec_pep508::generate::GeneratedMarker::must_parse
    pub must_parse: bool,
    /// Parsing must fail: the pep508 dialect and an extended field.
    pub must_fail: bool,
    /// Every literal, for environments to pick from.
    pub literals: Vec<String>,
}

impl MarkerCase {
    /// Whether parsing must succeed in the case's configuration: [`MarkerCase::must_parse`] in
    /// the `spec-2026` and `packaging` profiles. The `uv` profile rejects what uv rejects
    /// (`===`, `and` or `or` without whitespace after it, …), so nothing is owed there.
    pub fn must_parse_here(&self) -> bool {
        self.must_parse
            && matches!(self.config.profile, Profile::Spec2026 | Profile::Packaging)
            // spec-2026 refuses the legacy `extra` in lock-file context (SPEC Appendix E.5).
            && !(self.config.profile == Profile::Spec2026
                && self.config.lock_file
                && self.text.contains("extra"))
    }

    /// Whether the parsed tree must equal [`MarkerCase::expected`]: the `uv` profile drops the
    /// comparisons uv cannot read, with a warning, so a warning there voids the expectation; so
    /// does an architecture alias, which every profile rewrites.
    pub fn expect_tree(&self, warnings: &[Warning]) -> Option<&MarkerTree> {
        if self.config.profile == Profile::Uv && !warnings.is_empty() {
            return None;
        }
        // An architecture alias is read as its canonical spelling (W016, SPEC 0.2 §8.3), so the
        // tree holds another literal than the generated one.
        if warnings.iter().any(|w| w.code() == "W016") {
            return None;
        }
        self.expected.as_ref()
    }
}

/// A version-like string with PEP 440's alternative spellings, sometimes broken on purpose.
pub fn gen_version_text(u: &mut Unstructured<'_>) -> Result<String> {
    markerspec_pep508::generate::version_text(u, true)
}

/// Generates a marker for the odd corners of the grammar ([`Options::fuzz`], nesting up to
/// six levels) in either dialect, with a configuration to parse it in.
pub fn gen_marker(u: &mut Unstructured<'_>) -> Result<MarkerCase> {
    let dialect = if u.arbitrary()? {
        Dialect::Extended
    } else {
        Dialect::Pep508
    };
    let mut weights = Weights::default();
    weights.max_depth = 6;
    let g =
        markerspec_pep508::generate::marker(u, &Options::fuzz().dialect(dialect).weights(weights))?;
    let config = gen_config(u, dialect)?;
    Ok(MarkerCase {
        config,
        must_parse: g.must_parse,
        must_fail: dialect == Dialect::Pep508 && g.uses_extended,
        node: g.node,
        text: g.text,
        expected: g.expected,
        literals: g.literals,
    })
}

/// Whether a standard version field of `env` holds a text that reads as a version wildcard
/// (`3.12.*`), a value outside the algebra's model (SPEC §21.2).
pub fn wildcard_text(env: &Environment) -> bool {
    let reads_as_wildcard = |s: &str| {
        s.trim()
            .strip_suffix(".*")
            .is_some_and(|p| p.parse::<Version>().is_ok())
    };
    Field::ALL.iter().any(|&f| {
        !f.is_extended()
            && matches!(
                f.field_type(),
                FieldType::Version | FieldType::VersionOrString
            )
            && matches!(env.get(f), Some(EnvValue::String(s)) if reads_as_wildcard(s))
    })
}

/// Two markers and an environment as `algebra_realistic` and `algebra_theory` draw them: two
/// markers from the generator's default weights in `dialect` (the text `markerspec generate`
/// prints), parsed with `parse`, and a realistic environment (`realistic_environment`, the
/// markers' literals now and then) whose versions are moved next to them
/// ([`nudge_versions`]), with `python_version` following `python_full_version`.
pub struct RealisticPair {
    /// The first marker, as generated.
    pub a: generate::GeneratedMarker,
    /// The second marker, as generated.
    pub b: generate::GeneratedMarker,
    /// `a`'s text, parsed.
    pub ta: MarkerTree,
    /// `b`'s text, parsed.
    pub tb: MarkerTree,
    /// The environment.
    pub env: Environment,
}

/// A [`RealisticPair`] drawn from `u`, or `None` when the bytes run out, a text does not parse
/// with `parse`, or the environment is outside the algebra's model (SPEC §21.2: a standard
/// version field holding a wildcard text, [`wildcard_text`], or a version spelt otherwise than
/// a literal of the same version, [`spelt_otherwise`]: `10.0` against `platform_release ~=
/// "10"`, which reads as text since `~=` needs two numbers).
pub fn realistic_pair(
    u: &mut Unstructured<'_>,
    dialect: Dialect,
    parse: &ParseOptions,
) -> Option<RealisticPair> {
    let options = Options::default().dialect(dialect);
    let a = generate::marker(u, &options).ok()?;
    let b = generate::marker(u, &options).ok()?;
    let ta = MarkerTree::parse_with(&a.text, parse, &mut Vec::new()).ok()?;
    let tb = MarkerTree::parse_with(&b.text, parse, &mut Vec::new()).ok()?;
    let mut literals = a.literals.clone();
    literals.extend(b.literals.iter().cloned());
    let mut env = generate::realistic_environment(u, &options, &literals).ok()?;
    nudge_versions(u, &mut env, &literals);
    consistent_python_version(&mut env);
    if wildcard_text(&env) || spelt_otherwise(&env, &literals) {
        return None;
    }
    Some(RealisticPair { a, b, ta, tb, env })
}

/// Whether a standard version field of `env` holds a version that one of `literals` spells
/// otherwise (`10.0` and `10`).
pub fn spelt_otherwise(env: &Environment, literals: &[String]) -> bool {
    let versions: Vec<(Version, &str)> = literals
        .iter()
        .filter_map(|l| l.trim().parse().ok().map(|v| (v, l.trim())))
        .collect();
    env.iter().any(|(f, value)| {
        !f.is_extended()
            && matches!(
                f.field_type(),
                FieldType::Version | FieldType::VersionOrString
            )
            && matches!(value, EnvValue::String(s) if s.parse::<Version>().is_ok_and(|v| {
                versions.iter().any(|(lv, text)| *lv == v && *text != s.as_ref())
            }))
    })
}

/// Makes `python_version` the first two release numbers of `python_full_version`, as the
/// algebra models it (its crate docs) and as an interpreter reports them; the epoch stays (the
/// algebra keeps it in `python_version` too), and a full version that is no version leaves its
/// text in both. A standard field has no absent value: an absent or unset full version takes
/// `python_version`'s text.
pub fn consistent_python_version(env: &mut Environment) {
    if let (None | Some(EnvValue::Absent), Some(EnvValue::String(short))) = (
        env.get(Field::PythonFullVersion).cloned(),
        env.get(Field::PythonVersion).cloned(),
    ) {
        *env = std::mem::take(env).with_unchecked(Field::PythonFullVersion, short.to_string());
    }
    if let Some(EnvValue::String(full)) = env.get(Field::PythonFullVersion).cloned() {
        let short = match full.parse::<Version>() {
            Ok(v) => {
                let r = v.release();
                let epoch = match v.epoch() {
                    0 => String::new(),
                    e => format!("{e}!"),
                };
                format!(
                    "{epoch}{}.{}",
                    r.first().copied().unwrap_or(0),
                    r.get(1).copied().unwrap_or(0)
                )
            }
            Err(_) => full.to_string(),
        };
        *env = std::mem::take(env).with_unchecked(Field::PythonVersion, short);
    }
}

/// Moves some standard version values of `env` next to a version, with the bytes `u` has
/// left: each standard field holding a PEP 440 version may take a neighbour (a prefix of its
/// release, the last release number one up or down, a trailing `.0`, a pre-, dev- or
/// post-release of it) of its own value or of a version among `literals` (a marker's). Values
/// drawn from a marker's literals make most comparisons true and odd strings make them false;
/// a neighbour is where comparisons that are more than an equality with the literal change
/// their answer (`"1.17.11" ~= python_full_version` holds on `1.17` and `1.17.10`; the algebra
/// once read it as text equality). Draws nothing once the bytes are spent (`arbitrary` answers
/// `false`), so inputs that end before it keep their meaning.
pub fn nudge_versions(u: &mut Unstructured<'_>, env: &mut Environment, literals: &[String]) {
    let versions: Vec<Version> = literals.iter().filter_map(|l| l.parse().ok()).collect();
    let fields: Vec<(Field, Version)> = env
        .iter()
        .filter(|(f, _)| !f.is_extended())
        .filter_map(|(f, v)| match v {
            EnvValue::String(s) => s.parse::<Version>().ok().map(|v| (f, v)),
            _ => None,
        })
        .collect();
    for (field, own) in fields {
        if !u.arbitrary::<bool>().unwrap_or(false) {
            continue;
        }
        let v = match u.choose_index(versions.len() + 1) {
            Ok(i) => versions.get(i).unwrap_or(&own),
            Err(_) => return,
        };
        let release = v.release().to_vec();
        let text = |r: &[u64]| r.iter().map(u64::to_string).collect::<Vec<_>>().join(".");
        let mut options: Vec<String> = (1..release.len()).map(|n| text(&release[..n])).collect();
        let mut up = release.clone();
        if let Some(last) = up.last_mut() {
            *last = last.saturating_add(1);
        }
        options.push(text(&up));
        let mut down = release.clone();
        if let Some(last) = down.last_mut() {
            *last = last.saturating_sub(1);
        }
        options.push(text(&down));
        let base = text(&release);
        for form in [".0", "rc1", ".dev0", ".post1"] {
            options.push(format!("{base}{form}"));
        }
        options.push(v.to_string());
        let Ok(i) = u.choose_index(options.len()) else {
            return;
        };
        if let Some(value) = options.get(i) {
            // A standard field takes any string, so this cannot fail.
            let _ = env.set(field, EnvValue::String(value.as_str().into()));
        }
    }
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
/// `darwin`), and so does `platform_system` (uv reads `platform_system == "Linux"` and its kin
/// as the `sys_platform` tests they imply). Under `packaging`, a comparison of two quoted strings reads the right one as the
/// name of the field to look up, as packaging does (`"3" == "python_version"` reads
/// `python_version`).
pub fn unknown_fields(tree: &MarkerTree, env: &Environment) -> Vec<Field> {
    let mut fields = tree.fields();
    if tree.profile() == Profile::Packaging {
        for e in tree.expressions() {
            if let (MarkerValue::Literal(_), MarkerValue::Literal(name)) = (e.lhs(), e.rhs())
                && let Some(f) = Field::from_canonical_name(name)
            {
                fields.push(f);
            }
        }
    }
    if fields.contains(&Field::PythonVersion) {
        fields.push(Field::PythonFullVersion);
    }
    if tree.profile() == Profile::Uv
        && (fields.contains(&Field::PlatformRelease) || fields.contains(&Field::PlatformSystem))
    {
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
