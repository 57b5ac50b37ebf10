//! The translation from pep508 markers, checked by brute force against pep508's own evaluator:
//! for each marker (the lock-file and Requires-Dist corpora, hand-written edge cases, and
//! proptest-generated markers), in each profile it parses under, and for environments built
//! from the marker's literals and their neighbours (pre-, post- and dev-releases, the next and
//! previous releases, other strings, subsets of the set literals and extras), the algebra's
//! `evaluate_env` equals pep508's `evaluate`. The printed form is checked too: read back, it
//! translates to the same marker (canonical form), so it means the same; `restrict` agrees
//! with the marker wherever its assumption holds; the residual over one Unknown field, then
//! evaluated with that field known, gives the marker's value; each witness environment makes
//! the marker (or its negation) hold by pep508's evaluation.

use std::collections::BTreeMap;

use markerspec_algebra::{Context, Marker, Theory, default_environment};
use markerspec_pep440::Version;
use markerspec_pep508::{
    Dialect, EnvValue, Environment, Field, FieldType, MarkerTree, MarkerValue, ParseOptions,
    Profile, Truth,
};
use proptest::prelude::*;

const LOCK: &str = include_str!("data/lock-markers.txt");
const REQUIRES: &str = include_str!("data/requires-dist-gpu-stack.txt");

/// A small deterministic generator (xorshift), so every run checks the same environments.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            None
        } else {
            items.get((self.next() % items.len() as u64) as usize)
        }
    }
}

/// Whether pep508's evaluator implements SPEC §4.3's absent rule (`!=` true on an absent
/// extended `Version` field). It does; the checks below generate absent extended values and
/// fail, rather than leave them out, should it stop doing so.
fn evaluator_has_absent_rule() -> bool {
    let opts = ParseOptions::default().dialect(Dialect::Extended);
    let Ok(m) = MarkerTree::parse_with("cuda_version != '12'", &opts, &mut Vec::new()) else {
        return false;
    };
    let mut env = Environment::new();
    let _ = env.set(Field::CudaVersion, EnvValue::Absent);
    m.evaluate(&env).unwrap_or(false)
}

/// `text` parsed in lock-file context (where `extras` and `dependency_groups` are known), or,
/// when it reads the legacy `extra` (which SPEC 0.2 keeps out of lock files), outside it.
fn parse_either(text: &str, profile: Profile) -> Option<MarkerTree> {
    let opts = ParseOptions::default()
        .dialect(Dialect::Extended)
        .profile(profile);
    MarkerTree::parse_with(text, &opts.clone().lock_file(true), &mut Vec::new())
        .or_else(|_| MarkerTree::parse_with(text, &opts, &mut Vec::new()))
        .ok()
}

fn version_neighbours(v: &Version, extended: bool) -> Vec<String> {
    let r: Vec<u64> = v.release().to_vec();
    let mut out = Vec::new();
    let rel = |r: &[u64]| r.iter().map(u64::to_string).collect::<Vec<_>>().join(".");
    out.push(rel(&r));
    let mut up = r.clone();
    if let Some(l) = up.last_mut() {
        *l += 1;
    }
    out.push(rel(&up));
    let mut down = r.clone();
    if let Some(l) = down.last_mut() {
        if *l > 0 {
            *l -= 1;
            out.push(rel(&down));
        }
    }
    let mut longer = r.clone();
    longer.push(1);
    out.push(rel(&longer));
    let mut padded = r.clone();
    padded.push(0);
    out.push(rel(&padded));
    if !extended {
        out.push(v.to_string());
        out.push(format!("{}rc1", rel(&r)));
        out.push(format!("{}.0rc1", rel(&r)));
        out.push(format!("{}.dev0", rel(&r)));
        out.push(format!("{}.post1", rel(&r)));
        out.push(format!("{}a1", rel(&up)));
        out.push(format!("{}+local", rel(&r)));
    }
    out
}

/// Candidate values per field for a marker.
fn candidates(tree: &MarkerTree, absent_rule: bool) -> BTreeMap<Field, Vec<EnvValue>> {
    let mut lits: BTreeMap<Field, Vec<String>> = BTreeMap::new();
    for e in tree.expressions() {
        let (f, l) = match (e.lhs(), e.rhs()) {
            (MarkerValue::Field(f), MarkerValue::Literal(l))
            | (MarkerValue::Literal(l), MarkerValue::Field(f)) => (*f, l.to_string()),
            (MarkerValue::Field(f), MarkerValue::Field(g)) => {
                lits.entry(*f).or_default();
                lits.entry(*g).or_default();
                continue;
            }
            _ => continue,
        };
        let f = if f == Field::PythonVersion {
            Field::PythonFullVersion
        } else {
            f
        };
        lits.entry(f).or_default().push(l);
    }
    let mut out = BTreeMap::new();
    for (f, ls) in lits {
        let mut vals: Vec<EnvValue> = Vec::new();
        let s = |x: &str| EnvValue::String(x.into());
        match f.field_type() {
            FieldType::Set => {
                let members: Vec<String> = ls.clone();
                vals.push(EnvValue::Set(Vec::new()));
                for m in &members {
                    vals.push(EnvValue::Set(vec![m.as_str().into()]));
                }
                vals.push(EnvValue::Set(
                    members.iter().map(|m| m.as_str().into()).collect(),
                ));
                if f.is_extended() {
                    vals.push(EnvValue::Absent);
                }
            }
            FieldType::Extra => {
                // Extras are handled by the caller (requested extras).
                continue;
            }
            FieldType::Version | FieldType::VersionOrString => {
                let extended = f.is_extended();
                for l in &ls {
                    let l = l.trim().trim_start_matches(['=', '!', '<', '>', '~']);
                    let l = l.strip_suffix(".*").unwrap_or(l);
                    if let Ok(v) = l.trim().parse::<Version>() {
                        for n in version_neighbours(&v, extended) {
                            vals.push(s(&n));
                        }
                    } else if !extended && !l.is_empty() {
                        vals.push(s(l));
                    }
                }
                if extended {
                    if absent_rule {
                        vals.push(EnvValue::Absent);
                    }
                } else {
                    vals.push(s("3.12.0"));
                    vals.push(s("not-a-version"));
                    if f == Field::PlatformRelease {
                        vals.push(s("5.15.0-76-generic"));
                    }
                }
            }
            FieldType::String => {
                for l in &ls {
                    vals.push(s(l));
                    if !l.is_empty() {
                        vals.push(s(&format!("{l}x")));
                        vals.push(s(&format!("x{l}")));
                        if let Some((i, _)) = l.char_indices().nth(1) {
                            vals.push(s(l.get(i..).unwrap_or("")));
                        }
                    }
                }
                vals.push(s("other"));
                if f.is_extended() {
                    if absent_rule {
                        vals.push(EnvValue::Absent);
                    }
                } else {
                    vals.push(s(""));
                }
            }
        }
        if f.is_extended() {
            // What an environment document holds: an extended value is checked on the way in
            // (SPEC §11), so `interpreter_arch` is `aarch64`, never its alias `arm64`.
            vals = vals.into_iter().filter_map(|v| v.checked(f).ok()).collect();
        }
        vals.dedup();
        if !vals.is_empty() {
            out.insert(f, vals);
        }
    }
    out
}

fn extras_of(tree: &MarkerTree) -> Vec<String> {
    tree.expressions()
        .into_iter()
        .filter_map(|e| match (e.lhs(), e.rhs()) {
            (MarkerValue::Field(Field::Extra), MarkerValue::Literal(l))
            | (MarkerValue::Literal(l), MarkerValue::Field(Field::Extra)) => Some(l.to_string()),
            _ => None,
        })
        .collect()
}

/// Sets `python_version` from `python_full_version` (the model's assumption).
fn python_version_of(full: &str) -> String {
    match full.parse::<Version>() {
        Ok(v) => {
            let r = v.release();
            format!(
                "{}.{}",
                r.first().copied().unwrap_or(0),
                r.get(1).copied().unwrap_or(0)
            )
        }
        Err(_) => full.to_owned(),
    }
}

#[derive(Default, Debug)]
struct Tally {
    markers: usize,
    comparisons: usize,
    skipped_errors: usize,
    printed: usize,
    witnesses: usize,
    unverified: usize,
    residuals: usize,
}

/// Checks one marker text under one profile; `Err` describes a disagreement.
fn check(
    text: &str,
    profile: Profile,
    rng: &mut Rng,
    tally: &mut Tally,
    absent_rule: bool,
) -> Result<(), String> {
    let Some(tree) = parse_either(text, profile) else {
        return Ok(());
    };
    let mut ctx = Context::new();
    let m = ctx
        .translate(&tree)
        .map_err(|e| format!("{text}: translate: {e}"))?;
    tally.markers += 1;
    let cands = candidates(&tree, absent_rule);
    let extras = extras_of(&tree);
    let fields: Vec<(&Field, &Vec<EnvValue>)> = cands.iter().collect();
    // `restrict` under an assumption: equal to the marker wherever the assumption holds.
    let assumption: MarkerTree = "python_full_version >= '3.10' and sys_platform != 'win32'"
        .parse()
        .map_err(|e| format!("{e}"))?;
    let a = ctx.translate(&assumption).map_err(|e| e.to_string())?;
    let restricted = ctx.restrict(m, a).map_err(|e| e.to_string())?;
    // The residual with one field the marker reads made Unknown.
    let hidden = tree.fields().into_iter().find(|f| *f != Field::Extra);
    let rounds = 48;
    for _ in 0..rounds {
        let mut env = default_environment();
        for (f, vals) in &fields {
            if let Some(v) = rng.pick(vals) {
                let _ = env.set(**f, v.clone());
            }
        }
        if let Some(EnvValue::String(full)) = env.get(Field::PythonFullVersion).cloned() {
            env = env.with_unchecked(Field::PythonVersion, python_version_of(&full));
        }
        let chosen: Vec<&String> = extras
            .iter()
            .filter(|_| rng.next().is_multiple_of(2))
            .collect();
        env = env.with_extras(chosen);
        let expected = match tree.evaluate(&env) {
            Ok(b) => b,
            Err(_) => {
                tally.skipped_errors += 1;
                continue;
            }
        };
        let got = ctx
            .evaluate_env(m, &env)
            .map_err(|e| format!("{text} [{profile:?}]: algebra failed on {env:?}: {e}"))?;
        tally.comparisons += 1;
        if got != expected {
            return Err(format!(
                "{text} [{profile:?}]: pep508 says {expected}, the algebra {got}, in {env:?}"
            ));
        }
        if ctx.evaluate_env(a, &env).unwrap_or(false)
            && ctx.evaluate_env(restricted, &env).ok() != Some(expected)
        {
            return Err(format!(
                "{text} [{profile:?}]: restricted differs in {env:?}"
            ));
        }
        if let Some(f) = hidden {
            let mut partial = env.clone();
            let _ = partial.set(f, EnvValue::Unknown);
            let r = ctx
                .residual(m, &partial)
                .map_err(|e| format!("{text}: residual: {e}"))?;
            if ctx.evaluate_env(r, &env).ok() != Some(expected) {
                return Err(format!(
                    "{text} [{profile:?}]: the residual over `{f}` differs in {env:?}"
                ));
            }
            tally.residuals += 1;
        }
    }
    // Witness environments: one where the marker holds, one where it does not, checked by
    // pep508.
    for (target, want) in [(m, true), (!m, false)] {
        match ctx.solve_environment(target) {
            Ok(Some(env))
                if !absent_rule
                    && tree
                        .fields()
                        .iter()
                        .any(|f| f.is_extended() && env.get(*f) == Some(&EnvValue::Absent)) =>
            {
                // The evaluator does not implement SPEC §4.3's absent rule yet.
                tally.skipped_errors += 1;
            }
            Ok(Some(env)) => match tree.evaluate(&env) {
                Ok(got) if got == want => tally.witnesses += 1,
                Ok(got) => {
                    return Err(format!(
                        "{text} [{profile:?}]: witness for {want} gives {got}: {env:?}"
                    ));
                }
                Err(_) => tally.skipped_errors += 1,
            },
            Ok(None) => {}
            Err(e) if e.code() == "unverified-witness" => {
                tally.unverified += 1;
                if std::env::var_os("SHOW_UNVERIFIED").is_some() {
                    eprintln!("UNVERIFIED {profile:?} {text}");
                }
            }
            Err(e) => return Err(format!("{text}: solve: {e}")),
        }
    }
    // The printed form reads back as the same marker (spec-2026 markers only: the printer
    // writes the spec-2026 reading).
    if profile == Profile::Spec2026 {
        let printed = ctx
            .to_marker_string(m)
            .map_err(|e| format!("{text}: print: {e}"))?;
        let back = parse_either(&printed, Profile::Spec2026)
            .ok_or_else(|| format!("{text}: printed `{printed}` does not parse"))?;
        let mb = ctx.translate(&back).map_err(|e| e.to_string())?;
        if mb != m {
            return Err(format!("{text}: printed `{printed}` means something else"));
        }
        tally.printed += 1;
    }
    Ok(())
}

fn corpus_markers() -> Vec<String> {
    let mut out: Vec<String> = LOCK
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect();
    for line in REQUIRES.lines() {
        if let Some((_, marker)) = line.split_once(';') {
            out.push(marker.trim().to_owned());
        }
    }
    out
}

const EDGE_CASES: &[&str] = &[
    // `packaging` compares `platform_version` as text: a literal spelt with trailing zeros
    // must keep its spelling in a witness (fuzz/regressions/algebra_laws/
    // platform-version-witness-spelling).
    "platform_version == '3.0'",
    "platform_version != '10.0.0'",
    "platform.version >= '3.14.0rc1'",
    // `uv` reads these literals as names; one that is no valid name (it ends with a dot)
    // matches nothing (fuzz/regressions/algebra_laws/uv-list-literal-not-a-valid-name).
    "'3.3.3.3..' in extras",
    "extra == 'a..'",
    // `packaging` reads `extra == ""` as "no extra requested"
    // (fuzz/regressions/algebra_laws/packaging-empty-extra).
    "extra != '' or platform_python_implementation < 'aarch64'",
    "extra == '' and os_name == 'nt'",
    "python_version >= '3.13'",
    "python_version > '3.12' and python_full_version < '3.13.1'",
    "python_full_version == '3.12.*'",
    "python_full_version != '3.12.*'",
    "python_version ~= '3.8'",
    "python_full_version ~= '3.8.1'",
    "python_version == '3.10' or python_version == '3.11'",
    "python_version in '3.10 3.11'",
    "python_version not in '3.10 3.11'",
    "'3.8' < python_version",
    "'3.8' >= python_full_version",
    "python_full_version === '3.12.0'",
    // `"L" ~= f` reads as `Specifier("~=" + value).contains(L)` (SPEC Appendix E.2): true on
    // 1.17.10 and on 1.17 (the text of the value counts, `~=1.17` is not `~=1.17.0`), so no
    // set of versions says it (it was once read as text equality with `1.17.11`).
    "'1.17.11' ~= python_full_version",
    "'3.12' ~= python_version",
    "'5.15.3' ~= platform_release and platform_release < '6'",
    "'3.12.0' ~= implementation_version or python_version == '3.12'",
    "python_version == 'foo'",
    "python_version != 'foo'",
    "python_version < 'foo'",
    "python_version == '=3.12'",
    "python_full_version <= '3.8+local'",
    "python_full_version == '3.12.0+local'",
    "implementation_version >= '3.12.0rc1'",
    "platform_release >= '5.15'",
    "platform_release == '5.15.0-76-generic'",
    "platform_release < '6' or platform_release in 'abc'",
    "'5' in platform_release",
    "os_name in 'posix nt'",
    "os_name not in 'posix nt'",
    "'nu' in sys_platform",
    "'nu' not in sys_platform",
    "sys_platform < 'linux'",
    "sys_platform <= 'linux'",
    "sys_platform ~= 'linux'",
    "sys_platform === 'linux'",
    "extra == 'Foo.Bar'",
    "extra != 'foo_bar' and extra == 'baz'",
    "extra < 'a'",
    "'test' in extras and 'dev' not in dependency_groups",
    "(platform_machine == 'x86_64' and extra == 'b') or extra == 'a'",
    "cuda_version >= '12' and 'cuda' in gpu_backends",
    "cuda_version != '12.4'",
    "cuda_version == '12.*' or cuda_version == ''",
    "cuda_version ~= '12.4'",
    "cuda_version < '12' or cuda_version > '12.8.1'",
    "'12.8' <= cuda_version",
    "cudnn_version != ''",
    "glibc_version >= '2.28' and musl_version == ''",
    "nvidia_driver_version >= '550.54'",
    "interpreter_arch == 'x86_64' or interpreter_arch in 'aarch64'",
    "interpreter_arch not in 'aarch64'",
    "interpreter_arch in 'xarm64' and interpreter_arch not in 'xarm6'",
    "host_arch in 'amd64 x86_64' or host_arch == 'MIPS'",
    "python_abi_tag == 'cp313t' and 'free-threading' in sys_abi_features",
    "'nvidia :: cuda_version_lower_bound :: 12.8' in variant_properties",
    "'nvidia::cuda' in variant_features or 'nvidia' not in variant_namespaces",
    "variant_label == 'cu128' or variant_label == ''",
    "'8.0' in cuda_compute_capabilities and cuda_compute_capability >= '8.0'",
    "'gfx90a' in rocm_gpu_archs and rocm_version >= '6.1'",
];

#[test]
fn translation_agrees_with_pep508_on_the_corpora_and_edge_cases() {
    let absent_rule = evaluator_has_absent_rule();
    assert!(
        absent_rule,
        "pep508's evaluator no longer follows SPEC §4.3's absent rule"
    );
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    let mut texts: Vec<String> = EDGE_CASES.iter().map(|s| (*s).to_owned()).collect();
    texts.extend(corpus_markers());
    for text in &texts {
        for profile in [Profile::Spec2026, Profile::Packaging, Profile::Uv] {
            if let Err(e) = check(text, profile, &mut rng, &mut tally, absent_rule) {
                failures.push(e);
            }
        }
    }
    eprintln!("{tally:?}");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(tally.markers > 2000, "too few markers checked: {tally:?}");
    assert!(
        tally.printed > 1000,
        "too few printed forms checked: {tally:?}"
    );
}

/// SPEC §4.3, the absent-value rule, checked directly (not through the evaluator).
#[test]
fn extended_fields_follow_the_absent_rule() {
    let opts = ParseOptions::default().dialect(Dialect::Extended);
    let mut absent = Environment::new();
    for f in Field::ALL {
        if f.is_extended() {
            absent.set(*f, EnvValue::Absent).unwrap();
        }
    }
    let cases = [
        ("cuda_version == '12'", false),
        ("cuda_version != '12'", true),
        ("cuda_version < '12'", false),
        ("cuda_version >= '12'", false),
        ("cuda_version ~= '12.4'", false),
        ("cuda_version == '12.*'", false),
        ("cuda_version != '12.*'", true),
        ("cuda_version == ''", true),
        ("cuda_version != ''", false),
        ("interpreter_arch == 'x86_64'", false),
        ("interpreter_arch != 'x86_64'", true),
        ("interpreter_arch in 'x86_64'", false),
        ("interpreter_arch not in 'x86_64'", true),
        ("interpreter_arch == ''", true),
        ("'cuda' in gpu_backends", false),
        ("'cuda' not in gpu_backends", true),
    ];
    let mut ctx = Context::new();
    for (text, expected) in cases {
        let tree = MarkerTree::parse_with(text, &opts, &mut Vec::new()).unwrap();
        let m = ctx.translate(&tree).unwrap();
        assert_eq!(ctx.evaluate_env(m, &absent).unwrap(), expected, "{text}");
        // Negation table: `not C` is the marker of the second column.
        let not_m = !m;
        assert_eq!(
            ctx.evaluate_env(not_m, &absent).unwrap(),
            !expected,
            "not {text}"
        );
    }
    // `f < L` and `f >= L or f == ""` are complements (release-only domain).
    let lt = MarkerTree::parse_with("cuda_version < '12.8'", &opts, &mut Vec::new()).unwrap();
    let ge = MarkerTree::parse_with(
        "cuda_version >= '12.8' or cuda_version == ''",
        &opts,
        &mut Vec::new(),
    )
    .unwrap();
    let (a, b) = (ctx.translate(&lt).unwrap(), ctx.translate(&ge).unwrap());
    assert_eq!(a, !b);
    // `f ~= L` and `f < L or f != "P.*"` are complements.
    let te = MarkerTree::parse_with("cuda_version ~= '12.4'", &opts, &mut Vec::new()).unwrap();
    let co = MarkerTree::parse_with(
        "cuda_version < '12.4' or cuda_version != '12.*'",
        &opts,
        &mut Vec::new(),
    )
    .unwrap();
    let (a, b) = (ctx.translate(&te).unwrap(), ctx.translate(&co).unwrap());
    assert_eq!(a, !b);
}

/// `text` prints in `ctx` (no theory), and the printed form, parsed with `opts`, is the same
/// marker (`true` and `false` are the constants).
fn prints_and_reads_back(
    ctx: &mut Context,
    text: &str,
    opts: &ParseOptions,
) -> Result<(), Box<dyn std::error::Error>> {
    let none = Theory::none();
    let tree = MarkerTree::parse_with(text, opts, &mut Vec::new())?;
    let m = ctx.from_marker(&tree, &none)?;
    let out = ctx
        .to_marker_string(m)
        .map_err(|e| format!("{text}: {e}"))?;
    match out.as_str() {
        "true" => assert!(m.is_true(), "{text} printed as true"),
        "false" => assert!(m.is_false(), "{text} printed as false"),
        _ => {
            let back = MarkerTree::parse_with(&out, opts, &mut Vec::new())?;
            let mb = ctx.from_marker(&back, &none)?;
            assert_eq!(mb, m, "{text} printed as `{out}`");
        }
    }
    Ok(())
}

/// Every `a op b` and `(a op b) op2 c` of `atoms`, `op` and `op2` each `and` or `or`.
fn combinations(atoms: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for a in atoms {
        for b in atoms {
            for op in [" and ", " or "] {
                out.push(format!("{a}{op}{b}"));
                for c in atoms {
                    for op2 in [" and ", " or "] {
                        out.push(format!("({a}{op}{b}){op2}{c}"));
                    }
                }
            }
        }
    }
    out
}

/// Every `and`/`or` of two or three comparisons of an extended version field prints, and the
/// printed form reads back as the same marker. `cuda_version == "" or cuda_version < "12"`
/// ("no CUDA, or CUDA before 12") once answered `unprintable`: the absent value and the versions
/// below 12 make one interval of the field's values, which no comparison covers alone.
#[test]
fn extended_version_fields_print_every_combination() -> Result<(), Box<dyn std::error::Error>> {
    let opts = ParseOptions::default().dialect(Dialect::Extended);
    let atoms = [
        "cuda_version == ''",
        "cuda_version != ''",
        "cuda_version < '12'",
        "cuda_version <= '11.8'",
        "cuda_version >= '12.4'",
        "cuda_version > '12'",
        "cuda_version == '12.*'",
        "cuda_version != '11.*'",
        "cuda_version == '12.8'",
    ];
    let mut ctx = Context::new();
    let mut printed = 0;
    let mut check = |text: &str| {
        printed += 1;
        prints_and_reads_back(&mut ctx, text, &opts)
    };
    check("cuda_version == '' or cuda_version < '12'")?;
    for text in combinations(&atoms) {
        check(&text)?;
    }
    assert_eq!(printed, 1 + 9 * 9 * 2 * (1 + 9 * 2));
    Ok(())
}

/// Every `and`/`or` of two or three comparisons of an architecture field whose literals hold
/// aliases (`arm64` inside `xarm64`) or upper-case names prints, and reads back as the same
/// marker. The field never holds an alias (SPEC §8.3: values are mapped through the table), so
/// `interpreter_arch in "xarm64"` does not hold on `"arm64"`; when it did, such a set was
/// printed with `interpreter_arch == "arm64"`, which the parser reads as `== "aarch64"`.
#[test]
fn architecture_literals_holding_aliases_print_every_combination()
-> Result<(), Box<dyn std::error::Error>> {
    let opts = ParseOptions::default().dialect(Dialect::Extended);
    let atoms = [
        "interpreter_arch in 'xarm64'",
        "interpreter_arch not in 'arm64x'",
        "interpreter_arch in 'amd64x'",
        "interpreter_arch != 'x'",
        "interpreter_arch not in 'xar'",
        "interpreter_arch in 'XFOO'",
        "interpreter_arch == 'aarch64'",
    ];
    let mut ctx = Context::new();
    let mut printed = 0;
    for text in combinations(&atoms) {
        printed += 1;
        prints_and_reads_back(&mut ctx, &text, &opts)?;
    }
    assert_eq!(printed, 7 * 7 * 2 * (1 + 7 * 2));
    // No value holds an upper-case name or an alias: a comparison with one is a constant.
    let none = Theory::none();
    for (text, always) in [
        ("interpreter_arch == 'FOO'", false),
        ("interpreter_arch != 'FOO'", true),
        ("host_arch in 'XFOO'", false),
    ] {
        let tree = MarkerTree::parse_with(text, &opts, &mut Vec::new())?;
        let m = ctx.from_marker(&tree, &none)?;
        assert_eq!(
            m,
            if always { Marker::TRUE } else { Marker::FALSE },
            "{text}"
        );
    }
    // `in "xarm64"` is the substrings of `xarm64` that are values: `arm64` is not one.
    let tree = MarkerTree::parse_with("interpreter_arch in 'xarm64'", &opts, &mut Vec::new())?;
    let m = ctx.from_marker(&tree, &none)?;
    let env = default_environment().with(Field::InterpreterArch, "arm64")?;
    assert_eq!(
        env.get(Field::InterpreterArch),
        Some(&EnvValue::String("aarch64".into()))
    );
    assert!(!ctx.evaluate_env(m, &env)?);
    assert!(!tree.evaluate(&env)?);
    let env = default_environment().with(Field::InterpreterArch, "rm64")?;
    assert!(ctx.evaluate_env(m, &env)?);
    Ok(())
}

/// Every `and`/`or` of two or three comparisons of the standard version fields, with version
/// and non-version literals, prints, and the printed form reads back as the same marker.
/// `python_version >= "0" or platform_version != "x"` once printed as `platform_version !=
/// "x"`: its CNF's one clause held "`platform_version` is no version, its text is `x`" and
/// "`python_full_version` is no version", and the printer left out both absent literals where
/// only the first goes with the text. And the negation of the opaque `platform_release not in
/// "5.15"` was printed as `platform_release in "5.15"`, another atom.
#[test]
fn standard_version_fields_print_every_combination() -> Result<(), Box<dyn std::error::Error>> {
    let atoms = [
        "python_version >= '0'",
        "python_version == 'foo'",
        "python_full_version < '3.12'",
        "platform_version != 'x'",
        "platform_version == 'x'",
        "platform_release >= '5.15'",
        "platform_release != 'abc'",
        "implementation_version == 'foo'",
        // Opaque (SPEC §21.2), and atoms of their own: the negation of one is not the other.
        "platform_release not in '5.15'",
        "platform_release in '5.15'",
    ];
    let opts = ParseOptions::default();
    let mut ctx = Context::new();
    let mut printed = 0;
    let mut check = |text: &str| {
        printed += 1;
        prints_and_reads_back(&mut ctx, text, &opts)
    };
    // Found by the `algebra_realistic` fuzz target: its printed form once held
    // `platform_release in "5.15"` for the negation of the `not in` atom.
    check(
        "(platform_system >= 'Linux' or platform_release not in '5.15' or \
         platform_python_implementation == 'PyPy') and platform_python_implementation not in 'Jy'",
    )?;
    for text in combinations(&atoms) {
        check(&text)?;
    }
    assert_eq!(printed, 1 + 10 * 10 * 2 * (1 + 10 * 2));
    Ok(())
}

fn field_strategy() -> impl Strategy<Value = String> {
    let atoms = prop_oneof![
        Just("python_version >= '3.9'"),
        Just("python_version < '3.12'"),
        Just("python_full_version == '3.11.*'"),
        Just("python_full_version >= '3.12.0rc1'"),
        Just("python_full_version != '3.10.2'"),
        Just("python_version ~= '3.10'"),
        Just("sys_platform == 'linux'"),
        Just("sys_platform != 'win32'"),
        Just("os_name == 'nt'"),
        Just("platform_machine in 'x86_64 aarch64'"),
        Just("'arm' in platform_machine"),
        Just("extra == 'a'"),
        Just("extra != 'b'"),
        Just("implementation_name == 'pypy'"),
        Just("platform_release >= '6'"),
        Just("cuda_version >= '12'"),
        Just("cuda_version != '11.8'"),
        Just("cuda_version == ''"),
        Just("'cuda' in gpu_backends"),
        Just("interpreter_arch in 'x86_64'"),
    ];
    let leaf = atoms.prop_map(str::to_owned);
    leaf.prop_recursive(4, 16, 3, |inner| {
        (inner.clone(), inner, any::<bool>())
            .prop_map(|(a, b, and)| format!("({a}) {} ({b})", if and { "and" } else { "or" }))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn generated_markers_agree_with_pep508(text in field_strategy(), seed in 1u64..u64::MAX) {
        let absent_rule = evaluator_has_absent_rule();
        let mut rng = Rng(seed);
        let mut tally = Tally::default();
        for profile in [Profile::Spec2026, Profile::Packaging, Profile::Uv] {
            let r = check(&text, profile, &mut rng, &mut tally, absent_rule);
            prop_assert!(r.is_ok(), "{}", r.unwrap_err());
        }
    }
}

#[test]
fn equivalent_markers_translate_to_one_marker() {
    let pairs = [
        (
            "python_version >= '3.9' and python_version < '3.11'",
            "python_version == '3.9' or python_version == '3.10'",
        ),
        (
            "python_full_version == '3.11.*'",
            "python_version == '3.11'",
        ),
        ("python_version > '3.10'", "python_version >= '3.11'"),
        (
            "sys_platform == 'linux' and extra == 'a' or sys_platform == 'linux' and extra == 'b'",
            "sys_platform == 'linux' and (extra == 'b' or extra == 'a')",
        ),
        (
            "os_name in 'posix'",
            "os_name == 'posix' or os_name == 'p' or os_name == '' or os_name == 'po' or os_name == 'pos' or os_name == 'posi' or os_name in 'osix'",
        ),
        ("extra == 'Foo_Bar'", "extra == 'foo-bar'"),
    ];
    let mut ctx = Context::new();
    for (a, b) in pairs {
        let ma = ctx
            .from_marker(&a.parse().unwrap(), &Theory::none())
            .unwrap();
        let mb = ctx
            .from_marker(&b.parse().unwrap(), &Theory::none())
            .unwrap();
        assert_eq!(ma, mb, "{a} vs {b}");
    }
    let _ = Marker::TRUE;
}

/// `packaging` compares `platform_version` as text: a string variable of its own, so two
/// literals are disjoint and each can hold, whether they read as versions or not, and
/// whatever versions they spell (`3.1` and `3.1.0` are two strings there); `<=` is `==`,
/// `<` is false, and each prints as a string (SPEC §21.1).
#[test]
fn packaging_platform_version_literals() -> Result<(), Box<dyn std::error::Error>> {
    let mut ctx = Context::new();
    let translate = |ctx: &mut Context, text: &str| {
        let tree = parse_either(text, Profile::Packaging).expect("parses");
        ctx.translate(&tree)
    };
    let a = translate(&mut ctx, "platform_version == '3.1'")?;
    let b = translate(&mut ctx, "platform_version == '3.2'")?;
    let c = translate(&mut ctx, "platform_version == '3.1.0'")?;
    let d = translate(&mut ctx, "platform_version != '#1 SMP'")?;
    assert!(ctx.is_disjoint(a, b)?);
    assert!(ctx.solve(a)?.is_some());
    assert_ne!(a, c);
    assert!(ctx.is_disjoint(a, c)?);
    assert!(ctx.solve(c)?.is_some());
    assert!(ctx.implies(a, d)?);
    assert_eq!(translate(&mut ctx, "platform_version <= '3.1'")?, a);
    assert!(translate(&mut ctx, "platform_version < '3.1'")?.is_false());
    let either = ctx.or(a, c)?;
    assert_eq!(
        ctx.to_marker_string(either)?,
        r#"platform_version == "3.1" or platform_version == "3.1.0""#
    );
    assert_eq!(ctx.to_marker_string(!a)?, r#"platform_version != "3.1""#);
    // `extra == "a"` means the same in both profiles; `extra == ""` does not (packaging: no
    // extra requested).
    let spec = |ctx: &mut Context, text: &str| {
        let tree = parse_either(text, Profile::Spec2026).expect("parses");
        ctx.translate(&tree)
    };
    let packaging_a = translate(&mut ctx, "extra == 'a'")?;
    assert_eq!(packaging_a, spec(&mut ctx, "extra == 'a'")?);
    let packaging_empty = translate(&mut ctx, "extra == ''")?;
    assert_ne!(packaging_empty, spec(&mut ctx, "extra == ''")?);
    Ok(())
}

/// Under `packaging` a `python_full_version` ending in `+` (an untagged build) is read with
/// `local` appended, so a text comparison with a literal ending in `+` never holds in the
/// model: `==` is `false` and `!=` is `true` there, while `spec-2026` compares the text.
#[test]
fn packaging_untagged_build_literals() -> Result<(), Box<dyn std::error::Error>> {
    let mut ctx = Context::new();
    let mut translate = |profile: Profile, text: &str| {
        let tree = parse_either(text, profile).expect("parses");
        ctx.translate(&tree)
    };
    assert!(translate(Profile::Packaging, "python_full_version == '3.13.1+'")?.is_false());
    assert!(translate(Profile::Packaging, "python_full_version != '3.13.1+'")?.is_true());
    assert!(translate(Profile::Packaging, "python_full_version == 'x/+'")?.is_false());
    // Other texts, and other profiles, compare as before.
    let spec = translate(Profile::Spec2026, "python_full_version == '3.13.1+'")?;
    assert!(!spec.is_false() && !spec.is_true());
    let other = translate(Profile::Packaging, "python_full_version == 'x/+y'")?;
    assert!(!other.is_false());
    let mut ctx = Context::new();
    let tree = parse_either("python_full_version == '3.13.1+'", Profile::Spec2026).expect("parses");
    let m = ctx.translate(&tree)?;
    let env = markerspec_pep508::Environment::new()
        .with_unchecked(Field::PythonFullVersion, "3.13.1+")
        .with_unchecked(Field::PythonVersion, "3.13.1+");
    assert!(ctx.evaluate_env(m, &env)?);
    assert!(tree.evaluate(&env)?);
    Ok(())
}

/// `F in "L"` is exact: one string point per substring of `L`, built as one node (the longest
/// literal handled so takes milliseconds, not the seconds an `or` per substring took).
#[test]
fn a_long_in_literal_is_one_node_of_its_substrings() -> Result<(), Box<dyn std::error::Error>> {
    let literal: String = ('!'..='~')
        .filter(|c| *c != '"' && *c != '\\')
        .take(90)
        .collect();
    let mut ctx = Context::new();
    let tree = parse_either(
        &format!("platform_machine in \"{literal}\""),
        Profile::Spec2026,
    )
    .expect("parses");
    let m = ctx.translate(&tree)?;
    // 90 distinct characters: 90 * 91 / 2 non-empty substrings and the empty one.
    assert_eq!(ctx.node_count(m)?, 1);
    let env = default_environment().with_unchecked(Field::PlatformMachine, &literal[10..40]);
    assert!(ctx.evaluate_env(m, &env)?);
    let env = default_environment().with_unchecked(Field::PlatformMachine, "~!");
    assert!(!ctx.evaluate_env(m, &env)?);
    Ok(())
}

/// A translation that stops part way (a limit reached inside an `and` or `or` chain) makes
/// `parse_marker` return that error, as `from_marker` does, whatever the chains read after it;
/// the context stays usable.
#[test]
fn parsing_straight_into_the_algebra_reports_a_translation_error()
-> Result<(), Box<dyn std::error::Error>> {
    let texts = [
        "(extra == 'a' and extra == 'b') or (extra == 'c' and extra == 'd') or extra == 'e'",
        "extra == 'a' or (os_name == 'nt' and (extra == 'b' or extra == 'c')) or extra != 'd'",
    ];
    let opts = ParseOptions::default();
    let limits = markerspec_algebra::Limits {
        steps: 1,
        ..markerspec_algebra::Limits::default()
    };
    for text in texts {
        let tree = MarkerTree::parse_with(text, &opts, &mut Vec::new())?;
        let mut ctx = Context::with_limits(limits);
        let expected = ctx
            .from_marker(&tree, &Theory::none())
            .expect_err("one step is not enough");
        let mut ctx = Context::with_limits(limits);
        let err = ctx
            .parse_marker(text, &opts, &mut Vec::new(), &Theory::none())
            .expect_err("one step is not enough");
        assert_eq!(err, expected, "{text}");
        assert_eq!(err.code(), "intractable");
        ctx.set_limits(markerspec_algebra::Limits::default());
        let m = ctx.parse_marker(text, &opts, &mut Vec::new(), &Theory::none())?;
        assert_eq!(m, ctx.from_marker(&tree, &Theory::none())?);
    }
    Ok(())
}

/// `Context::parse_marker` (each comparison translated as it is read, no tree) gives the
/// marker `from_marker` gives for the parsed tree, in every profile and dialect, under both
/// theories; text that is no marker is a `parse` error carrying the parser's own error.
#[test]
fn parsing_straight_into_the_algebra_matches_the_tree() -> Result<(), Box<dyn std::error::Error>> {
    let mut texts: Vec<String> = EDGE_CASES.iter().map(|s| (*s).to_owned()).collect();
    texts.extend(corpus_markers());
    texts.extend(
        [
            "python_version >=",
            "(os_name == 'nt'",
            "",
            "true",
            "'a' == 'b' or os_name == 'nt'",
        ]
        .map(str::to_owned),
    );
    let (mut same, mut errors) = (0usize, 0usize);
    for theory in [Theory::none(), Theory::platform()] {
        for profile in [Profile::Spec2026, Profile::Packaging, Profile::Uv] {
            for dialect in [Dialect::Pep508, Dialect::Extended] {
                let opts = ParseOptions::default().profile(profile).dialect(dialect);
                let mut ctx = Context::new();
                for text in &texts {
                    let streamed = ctx.parse_marker(text, &opts, &mut Vec::new(), &theory);
                    match MarkerTree::parse_with(text, &opts, &mut Vec::new()) {
                        Ok(tree) => {
                            let m = ctx.from_marker(&tree, &theory)?;
                            assert_eq!(streamed?, m, "{text:?} {profile:?} {dialect:?}");
                            same += 1;
                        }
                        Err(e) => {
                            let err = streamed.expect_err(text);
                            assert_eq!(err.code(), "parse");
                            assert_eq!(
                                err.kind(),
                                &markerspec_algebra::ErrorKind::Parse { error: e }
                            );
                            errors += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(same > 10_000 && errors > 10, "{same} {errors}");
    Ok(())
}

/// An opaque comparison over a field the environment leaves missing or Unknown is unknown, as a
/// translated comparison is: `residual` keeps it (found by the `algebra` fuzz target with
/// `sys_platform === sys_platform` under `packaging`, where it was an evaluation error),
/// `evaluate_env` reports the field, and a known field still decides it, also one the
/// profile reads in place of the written one.
#[test]
fn opaque_comparisons_over_unknown_fields_stay_in_the_residual()
-> Result<(), Box<dyn std::error::Error>> {
    let mut ctx = Context::new();
    let (packaging, spec) = (
        ParseOptions::default().profile(Profile::Packaging),
        ParseOptions::default(),
    );
    let empty = Environment::new();
    let mut unknown = Environment::new();
    unknown.set(Field::SysPlatform, EnvValue::Unknown)?;
    for (text, opts) in [
        ("sys_platform === sys_platform", &packaging),
        ("'lin' in sys_platform", &spec),
    ] {
        let tree = MarkerTree::parse_with(text, opts, &mut Vec::new())?;
        let m = ctx.from_marker(&tree, &Theory::none())?;
        assert!(!m.is_true() && !m.is_false(), "{text}");
        assert_eq!(ctx.residual(m, &empty)?, m, "{text}");
        assert_eq!(ctx.residual(m, &unknown)?, m, "{text}");
        let err = ctx
            .evaluate_env(m, &empty)
            .err()
            .ok_or("no value to evaluate with")?;
        assert_eq!(err.code(), "unknown-field", "{text}: {err}");
    }
    let tree: MarkerTree = "'lin' in sys_platform".parse()?;
    let m = ctx.from_marker(&tree, &Theory::none())?;
    // `not in` on a string field is the same atom, negated: the two cover every value.
    let either: MarkerTree = "'lin' in sys_platform or 'lin' not in sys_platform".parse()?;
    assert!(ctx.from_marker(&either, &Theory::none())?.is_true());
    let linux = Environment::new().with_unchecked(Field::SysPlatform, "linux");
    assert!(ctx.residual(m, &linux)?.is_true());
    assert!(ctx.evaluate_env(m, &linux)?);
    let win = Environment::new().with_unchecked(Field::SysPlatform, "win32");
    assert!(ctx.residual(m, &win)?.is_false());
    // Under `uv`, `platform_system != "Linux"` reads `sys_platform`, as uv does: decided by
    // it with `platform_system` missing (found by the `algebra_theory` fuzz target, where the
    // residual kept the comparison).
    let uv = ParseOptions::default().profile(Profile::Uv);
    for text in ["platform_system != 'Linux'", "'Linux' != platform_system"] {
        let tree = MarkerTree::parse_with(text, &uv, &mut Vec::new())?;
        let m = ctx.from_marker(&tree, &Theory::none())?;
        assert_eq!(
            tree.evaluate_tristate(&linux)?.truth,
            Truth::False,
            "{text}"
        );
        assert!(ctx.residual(m, &linux)?.is_false(), "{text}");
        assert!(!ctx.evaluate_env(m, &linux)?, "{text}");
        assert_eq!(ctx.residual(m, &Environment::new())?, m, "{text}");
    }
    Ok(())
}

/// A comparison its profile decides without reading a value is that constant in the algebra,
/// not an opaque atom that may hold (found by the `algebra_theory` fuzz target: under `uv`,
/// `"0.1.8.16.16a0-0dev0+ubuntu" == python_version` is false on every environment, yet the
/// residual over an empty environment kept it). A comparison that reads the requested extras
/// is not decided by an environment without values: it still has its (empty) extras. (Under
/// `uv`, `python_version` equal to a version of three or more release numbers never holds.)
#[test]
fn comparisons_a_profile_decides_without_values_are_constants()
-> Result<(), Box<dyn std::error::Error>> {
    let uv = ParseOptions::default().profile(Profile::Uv);
    let mut ctx = Context::new();
    for text in [
        r#""0.1.8.16.16a0-0dev0+ubuntu" == python_version"#,
        r#""3.9.1" == python_version"#,
    ] {
        let tree = MarkerTree::parse_with(text, &uv, &mut Vec::new())?;
        assert_eq!(
            tree.evaluate_tristate(&Environment::new())?.truth,
            Truth::False
        );
        let m = ctx.from_marker(&tree, &Theory::none())?;
        assert!(m.is_false(), "{text}");
        let either =
            MarkerTree::parse_with(&format!("{text} or os_name == 'nt'"), &uv, &mut Vec::new())?;
        let m = ctx.from_marker(&either, &Theory::none())?;
        assert_eq!(ctx.to_marker_string(m)?, r#"os_name == "nt""#, "{text}");
        assert!(ctx.residual(m, &Environment::new())? != Marker::FALSE);
    }
    // Not decided without a value: an opaque atom still.
    let tree = MarkerTree::parse_with(r#""3.9" == python_version"#, &uv, &mut Vec::new())?;
    let m = ctx.from_marker(&tree, &Theory::none())?;
    assert!(!m.is_false() && !m.is_true());
    // `packaging`'s `extra == ""` holds in an environment without values (no extra requested)
    // and fails where one is: an atom, not `true`.
    let packaging = ParseOptions::default().profile(Profile::Packaging);
    let tree = MarkerTree::parse_with(r#"extra == """#, &packaging, &mut Vec::new())?;
    assert_eq!(
        tree.evaluate_tristate(&Environment::new())?.truth,
        Truth::True
    );
    let m = ctx.from_marker(&tree, &Theory::none())?;
    assert!(!m.is_false() && !m.is_true());
    Ok(())
}

/// A witness environment's version, where the marker leaves the default out, is a plain
/// release inside the satisfiable interval nearest the default (the first above it, else the
/// last below it; SPEC §21.5): `2` for `python_version < "3"`, not the least version `0.dev0`;
/// `3.13` for `python_version >= "3.13" or python_version < "3.8"`, not `3.7`. Where no
/// release built from the bounds lies inside, it is the interval's least point.
#[test]
fn witness_versions_are_plain_releases() -> Result<(), Box<dyn std::error::Error>> {
    let opts = ParseOptions::default().dialect(Dialect::Extended);
    let mut ctx = Context::new();
    for (text, field, want) in [
        ("python_version < '3'", Field::PythonFullVersion, "2"),
        (
            "python_full_version < '3.8.1'",
            Field::PythonFullVersion,
            "3.8",
        ),
        ("python_version > '3.12'", Field::PythonFullVersion, "3.13"),
        (
            "python_version >= '3.13' or python_version < '3.8'",
            Field::PythonFullVersion,
            "3.13",
        ),
        (
            "python_version < '3.8' or python_version >= '3.14'",
            Field::PythonFullVersion,
            "3.14",
        ),
        // Below the default only: the last interval below it.
        (
            "python_version < '3.8' or python_version == '3.11'",
            Field::PythonFullVersion,
            "3.11",
        ),
        (
            "python_full_version > '3.12.0' and python_full_version < '3.12.1'",
            Field::PythonFullVersion,
            "3.12.0.1",
        ),
        // The interval above 3.12.0 is nearer than the one below it.
        (
            "python_full_version == '3.12.*' and python_full_version != '3.12.0'",
            Field::PythonFullVersion,
            "3.12.1",
        ),
        // No plain release inside: the least point.
        (
            "python_full_version >= '3.12.0rc1' and python_full_version < '3.12.0rc3'",
            Field::PythonFullVersion,
            "3.12rc1",
        ),
        ("python_version == '3.14'", Field::PythonFullVersion, "3.14"),
        // Above the default: the least of `3.14` and `3.15`.
        (
            "python_full_version > '3.13' and python_full_version < '3.16'",
            Field::PythonFullVersion,
            "3.14",
        ),
        (
            "implementation_version < '3.9'",
            Field::ImplementationVersion,
            "3.8",
        ),
        ("platform_release < '5'", Field::PlatformRelease, "4"),
        ("cuda_version < '12'", Field::CudaVersion, "11"),
        ("cuda_version > '12.4'", Field::CudaVersion, "12.5"),
        ("cuda_version >= '12.4'", Field::CudaVersion, "12.4"),
        ("glibc_version < '2.28'", Field::GlibcVersion, "2.27"),
    ] {
        let tree = MarkerTree::parse_with(text, &opts, &mut Vec::new())?;
        let m = ctx.from_marker(&tree, &Theory::none())?;
        let env = ctx.solve_environment(m)?.ok_or(text)?;
        assert_eq!(
            env.get(field),
            Some(&EnvValue::String(want.into())),
            "{text}"
        );
        assert!(tree.evaluate(&env)?, "{text}");
    }
    Ok(())
}

/// `python_version` is read through `python_full_version`: a residual over an environment that
/// gives `python_version` but not the full version keeps the full versions it allows (found by
/// the `algebra_theory` fuzz target: `python_version >= '3_POST_'` under `packaging`, decided
/// by pep508 with `python_version` at `4.0`, was kept whole).
#[test]
fn a_residual_reads_python_version_without_the_full_version()
-> Result<(), Box<dyn std::error::Error>> {
    let mut ctx = Context::new();
    let env = Environment::new().with_unchecked(Field::PythonVersion, "3.13");
    let cases = [
        ("python_version >= '3.13'", "true"),
        (
            "python_version < '3.13' or sys_platform == 'win32'",
            r#"sys_platform == "win32""#,
        ),
        // The release candidates of 3.13 have python_version 3.13 too.
        (
            "python_full_version >= '3.13'",
            r#"python_full_version >= "3.13""#,
        ),
        ("python_full_version >= '3.14'", "false"),
    ];
    for (text, want) in cases {
        let tree: MarkerTree = text.parse()?;
        let m = ctx.from_marker(&tree, &Theory::none())?;
        let r = ctx.residual(m, &env)?;
        assert_eq!(ctx.to_marker_string(r)?, want, "{text}");
    }
    // A python_version no full version has is outside the model: nothing is assumed from it.
    let odd = Environment::new().with_unchecked(Field::PythonVersion, "3.13.1");
    let tree: MarkerTree = "python_version >= '3.13'".parse()?;
    let m = ctx.from_marker(&tree, &Theory::none())?;
    assert_eq!(ctx.residual(m, &odd)?, m);
    Ok(())
}
