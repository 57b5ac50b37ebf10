//! `spec/SPEC.md` §4.3, "Negation (normative)", checked by brute force: for every extended field,
//! every comparison of the table's first column (both operand orders where the field may be on
//! either side), every value of the field's domain (Absent and Unknown included) and every
//! profile, the comparison and the marker the table gives for `not C` never both hold and never
//! both fail; on Unknown both are Unknown.

use markerspec_pep508::{
    Dialect, EnvValue, Environment, Field, FieldType, MarkerTree, ParseOptions, Profile, Truth,
};

fn options(profile: Profile) -> ParseOptions {
    ParseOptions::default()
        .dialect(Dialect::Extended)
        .profile(profile)
}

#[track_caller]
fn parse(text: &str, profile: Profile) -> MarkerTree {
    MarkerTree::parse_with(text, &options(profile), &mut |_| {})
        .unwrap_or_else(|e| panic!("{text} ({profile}): {}", e.render(text)))
}

fn truth(m: &MarkerTree, env: &Environment, text: &str) -> Truth {
    m.evaluate_tristate(env)
        .unwrap_or_else(|e| panic!("{text}: {}", e.render(text)))
        .truth
}

/// Release-only values of an extended `Version` field (the domain R of §4.3), around the
/// literals below.
const VERSIONS: &[&str] = &[
    "0",
    "1",
    "2.2",
    "2.2.1",
    "2.2.9",
    "2.3",
    "9.0",
    "11.8",
    "12",
    "12.0",
    "12.3.9",
    "12.4",
    "12.4.1",
    "12.8",
    "12.8.0",
    "12.8.1",
    "12.9",
    "13",
    "550.144.03",
];

/// Literals: releases of several lengths, a pre-release and a post-release operand.
const VERSION_LITERALS: &[&str] = &[
    "0",
    "2.2.1",
    "9",
    "9.0",
    "12",
    "12.0",
    "12.4",
    "12.8",
    "12.8.0",
    "12.8rc1",
    "12.8.post1",
    "13.0.0",
];

/// `(C, not C)` for a version literal `l`, with the field on the left, per the table of §4.3.
fn version_pairs(f: &str, l: &str) -> Vec<(String, String)> {
    let mut out = vec![
        (format!("{f} == '{l}'"), format!("{f} != '{l}'")),
        (format!("{f} != '{l}'"), format!("{f} == '{l}'")),
        (format!("{f} < '{l}'"), format!("{f} >= '{l}' or {f} == ''")),
        (format!("{f} <= '{l}'"), format!("{f} > '{l}' or {f} == ''")),
        (format!("{f} > '{l}'"), format!("{f} <= '{l}' or {f} == ''")),
        (format!("{f} >= '{l}'"), format!("{f} < '{l}' or {f} == ''")),
        // The literal on the left is the mirrored comparison (§5.1).
        (format!("'{l}' > {f}"), format!("{f} >= '{l}' or {f} == ''")),
        (format!("'{l}' >= {f}"), format!("{f} > '{l}' or {f} == ''")),
        (format!("'{l}' < {f}"), format!("'{l}' >= {f} or {f} == ''")),
        (format!("'{l}' <= {f}"), format!("{f} < '{l}' or '' == {f}")),
        (format!("'{l}' != {f}"), format!("'{l}' == {f}")),
    ];
    let release: Vec<&str> = l.split('.').collect();
    if l.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        let wild = format!("{l}.*");
        out.push((format!("{f} == '{wild}'"), format!("{f} != '{wild}'")));
        out.push((format!("{f} != '{wild}'"), format!("{f} == '{wild}'")));
        if release.len() >= 2 {
            // `f ~= L` is `f >= L and f == "P.*"`, P = L's release without its last component.
            let prefix = release[..release.len() - 1].join(".");
            out.push((
                format!("{f} ~= '{l}'"),
                format!("{f} < '{l}' or {f} != '{prefix}.*'"),
            ));
        }
    }
    out
}

/// Checks every pair under every profile for every value in `values`.
fn check(field: Field, pairs: &[(String, String)], values: &[EnvValue]) -> usize {
    let mut checked = 0;
    let mut wrong = Vec::new();
    for &profile in Profile::ALL {
        for (c, not_c) in pairs {
            let (m, n) = (parse(c, profile), parse(not_c, profile));
            for value in values {
                let mut env = Environment::new();
                env.set(field, value.clone()).unwrap();
                let (a, b) = (truth(&m, &env, c), truth(&n, &env, not_c));
                let ok = match value {
                    EnvValue::Unknown => a == Truth::Unknown && b == Truth::Unknown,
                    _ => a != Truth::Unknown && b != Truth::Unknown && a != b,
                };
                if !ok {
                    wrong.push(format!(
                        "{profile}: {field} = {value:?}: `{c}` is {a}, `{not_c}` is {b}"
                    ));
                }
                checked += 1;
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} failures:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    checked
}

fn strings(values: &[&str]) -> Vec<EnvValue> {
    let mut out = vec![EnvValue::Absent, EnvValue::Unknown];
    out.extend(values.iter().map(|v| EnvValue::String((*v).into())));
    out
}

/// §4.3 for every extended `Version` field: `==`/`!=`, the four ordered comparisons and their
/// complements with `or f == ""`, wildcards, `~=`, both operand orders, and the absence test.
#[test]
fn version_fields() {
    let fields: Vec<Field> = Field::ALL
        .iter()
        .copied()
        .filter(|f| f.is_extended() && f.field_type() == FieldType::Version)
        .collect();
    assert!(
        fields.contains(&Field::NvidiaDriverVersion),
        "§4.3: a Version field"
    );
    assert!(fields.contains(&Field::CudaComputeCapabilityMax));
    assert!(fields.contains(&Field::CudnnCudaVersion));
    let values = strings(VERSIONS);
    let mut checked = 0;
    for &field in &fields {
        let f = field.name();
        let mut pairs: Vec<(String, String)> = VERSION_LITERALS
            .iter()
            .flat_map(|l| version_pairs(f, l))
            .collect();
        pairs.push((format!("{f} == ''"), format!("{f} != ''")));
        pairs.push((format!("{f} != ''"), format!("{f} == ''")));
        checked += check(field, &pairs, &values);
    }
    assert!(checked > 50_000, "{checked}");
}

/// §4.3 for every extended `String` field: `==`/`!=`, `<=`/`>=` (meaning `==`, negated by
/// `!=`), `<`/`>` (always false, negated by a tautology), `in`/`not in` with the literal on
/// either side, and the absence test.
#[test]
fn string_fields() {
    let cases: &[(Field, &[&str], &[&str])] = &[
        (
            Field::VariantLabel,
            &["cu128", "null", "cu12", "a_very_long_variant_label"],
            &["cu128", "cu12", "null", "a_very_long_variant_label"],
        ),
        (
            Field::PythonAbiTag,
            &["cp312", "cp313t", "abi3", "pypy310_pp73"],
            &["cp312", "cp313", "cp312 cp313t", "cp3", "t"],
        ),
        (
            Field::InterpreterArch,
            &["x86_64", "aarch64", "x86", "riscv64"],
            &["x86_64", "aarch64", "x86", "arm"],
        ),
        (
            Field::HostArch,
            &["x86_64", "aarch64", "x86"],
            &["x86_64", "aarch64", "x86"],
        ),
    ];
    let fields: Vec<Field> = Field::ALL
        .iter()
        .copied()
        .filter(|f| f.is_extended() && f.field_type() == FieldType::String)
        .collect();
    assert_eq!(
        fields,
        cases.iter().map(|c| c.0).collect::<Vec<_>>(),
        "every extended String field has a case"
    );
    for (field, values, literals) in cases {
        let f = field.name();
        let mut pairs = vec![
            (format!("{f} == ''"), format!("{f} != ''")),
            (format!("{f} != ''"), format!("{f} == ''")),
        ];
        for l in *literals {
            pairs.extend([
                (format!("{f} == '{l}'"), format!("{f} != '{l}'")),
                (format!("'{l}' != {f}"), format!("{f} == '{l}'")),
                (format!("{f} <= '{l}'"), format!("{f} != '{l}'")),
                (format!("'{l}' >= {f}"), format!("{f} != '{l}'")),
                (format!("{f} < '{l}'"), format!("{f} == '' or {f} != ''")),
                (format!("'{l}' < {f}"), format!("{f} == '' or {f} != ''")),
                (format!("'{l}' in {f}"), format!("'{l}' not in {f}")),
                (format!("'{l}' not in {f}"), format!("'{l}' in {f}")),
                (format!("{f} in '{l}'"), format!("{f} not in '{l}'")),
                (format!("{f} not in '{l}'"), format!("{f} in '{l}'")),
            ]);
        }
        check(*field, &pairs, &strings(values));
    }
}

/// §4.3 for every extended `Set` field: the absent value is the empty set; `in` and `not in`
/// are complements.
#[test]
fn set_fields() {
    let cases: &[(Field, &[&str])] = &[
        (Field::VariantNamespaces, &["nvidia", "x86_64"]),
        (
            Field::VariantFeatures,
            &["nvidia :: sm_arch", "nvidia :: cuda"],
        ),
        (
            Field::VariantProperties,
            &[
                "nvidia :: sm_arch :: 90_real",
                "nvidia :: sm_arch :: 80_real",
            ],
        ),
        (
            Field::SysAbiFeatures,
            &["free-threading", "debug", "64-bit"],
        ),
        (Field::GpuBackends, &["cuda", "rocm"]),
        (Field::CudaComputeCapabilities, &["8.6", "9.0", "10.0"]),
        (Field::RocmGpuArchs, &["gfx90a", "gfx942"]),
    ];
    let fields: Vec<Field> = Field::ALL
        .iter()
        .copied()
        .filter(|f| f.is_extended() && f.field_type() == FieldType::Set)
        .collect();
    assert_eq!(fields, cases.iter().map(|c| c.0).collect::<Vec<_>>());
    for (field, members) in cases {
        let f = field.name();
        let pairs: Vec<(String, String)> = members
            .iter()
            .flat_map(|m| {
                [
                    (format!("'{m}' in {f}"), format!("'{m}' not in {f}")),
                    (format!("'{m}' not in {f}"), format!("'{m}' in {f}")),
                ]
            })
            .collect();
        let mut values = vec![
            EnvValue::Absent,
            EnvValue::Unknown,
            EnvValue::Set(Vec::new()),
        ];
        values.extend(members.iter().map(|m| EnvValue::Set(vec![(*m).into()])));
        values.push(EnvValue::Set(members.iter().map(|m| (*m).into()).collect()));
        check(*field, &pairs, &values);
    }
}

/// The point of §4.3: `f == "" or f != ""` is a tautology on every extended field, and
/// `f != L` is true where `f` is Absent (0.1 made it false for `Version` fields).
#[test]
fn absence_test_is_a_tautology_and_not_equal_holds_on_absent() {
    for &field in Field::ALL.iter().filter(|f| f.is_extended()) {
        if field.field_type() == FieldType::Set {
            continue;
        }
        let f = field.name();
        let literal = match field.field_type() {
            FieldType::Version => "12.8",
            _ if matches!(field, Field::InterpreterArch | Field::HostArch) => "x86_64",
            _ => "cp312",
        };
        let mut env = Environment::new();
        env.set(field, EnvValue::Absent).unwrap();
        for profile in Profile::ALL {
            let text = format!("{f} == '' or {f} != ''");
            assert_eq!(truth(&parse(&text, *profile), &env, &text), Truth::True);
            let text = format!("{f} != '{literal}'");
            assert_eq!(
                truth(&parse(&text, *profile), &env, &text),
                Truth::True,
                "{text}"
            );
        }
    }
}
