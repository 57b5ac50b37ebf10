//! Exactness of the version domain: specifier → interval conversion against pep440's own
//! evaluation (`contains_with(v, Some(true))`, what marker evaluation calls), cut order against
//! version order, and witnesses inside their intervals.

use markerspec_algebra::{Cut, Point, VersionSet};
use markerspec_pep440::{Version, VersionSpecifier};
use proptest::prelude::*;

/// Versions concentrated on a few releases, with every kind of suffix.
fn version_text() -> impl Strategy<Value = String> {
    let release = prop::collection::vec(prop_oneof![3 => 0u64..3, 1 => Just(12u64)], 1..5);
    let epoch = prop_oneof![6 => Just(None), 1 => Just(Some(1u64))];
    let pre = prop_oneof![
        4 => Just(String::new()),
        1 => (prop_oneof![Just("a"), Just("b"), Just("rc")], 0u64..3).prop_map(|(k, n)| format!("{k}{n}")),
    ];
    let post =
        prop_oneof![3 => Just(String::new()), 1 => (0u64..3).prop_map(|n| format!(".post{n}"))];
    let dev =
        prop_oneof![3 => Just(String::new()), 1 => (0u64..3).prop_map(|n| format!(".dev{n}"))];
    let local = prop_oneof![
        4 => Just(String::new()),
        1 => prop::collection::vec(prop_oneof![Just("a"), Just("0a"), Just("b"), Just("1"), Just("0"), Just("abc")], 1..3)
            .prop_map(|segs| format!("+{}", segs.join(".")))
    ];
    (epoch, release, pre, post, dev, local).prop_map(|(e, r, pre, post, dev, local)| {
        let e = e.map(|e| format!("{e}!")).unwrap_or_default();
        let r: Vec<String> = r.iter().map(u64::to_string).collect();
        format!("{e}{}{pre}{post}{dev}{local}", r.join("."))
    })
}

fn operator() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("=="),
        Just("!="),
        Just("<"),
        Just("<="),
        Just(">"),
        Just(">="),
        Just("~="),
        Just("==*"),
        Just("!=*"),
    ]
}

/// A valid specifier (invalid combinations are filtered out by parsing).
fn specifier() -> impl Strategy<Value = VersionSpecifier> {
    (
        operator(),
        version_text(),
        prop::collection::vec(0u64..3, 1..4),
    )
        .prop_filter_map("invalid specifier", |(op, v, prefix)| {
            let text = match op {
                "==*" | "!=*" => {
                    let r: Vec<String> = prefix.iter().map(u64::to_string).collect();
                    format!("{}{}.*", &op[..2], r.join("."))
                }
                _ => format!("{op}{v}"),
            };
            text.parse().ok()
        })
}

/// Versions near `v`: its neighbours by every suffix kind.
fn near(v: &Version) -> Vec<Version> {
    let base = v.without_local();
    let mut out = vec![v.clone(), base.clone()];
    let r = base.release().to_vec();
    let e = base.epoch();
    let mk = |text: String| text.parse::<Version>().ok();
    let rel: Vec<String> = r.iter().map(u64::to_string).collect();
    let rel = rel.join(".");
    let pfx = if e > 0 {
        format!("{e}!")
    } else {
        String::new()
    };
    for suffix in [
        "",
        ".dev0",
        ".dev1",
        "a0",
        "a0.dev0",
        "rc1",
        "rc1.post0",
        ".post0",
        ".post0.dev0",
        ".post1",
        ".post1+x",
        "+a",
        "+0",
        "+a.1",
        ".0",
        ".0.0",
        ".0.1",
        ".1",
        ".0.0.1.dev0",
    ] {
        out.extend(mk(format!("{pfx}{rel}{suffix}")));
    }
    out.extend(mk(format!("{base}+zz")));
    out.extend(mk(format!("{base}.post0")));
    out.extend(mk(format!("{base}.dev0")));
    out.extend(mk(format!("{v}.a")));
    out.extend(mk(format!("{v}.0a")));
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn specifier_membership_is_exact(spec in specifier(), others in prop::collection::vec(version_text(), 0..6)) {
        let set = VersionSet::from_specifier(&spec).expect("=== is never generated");
        prop_assert!(!set.contains(&Point::Absent), "{spec}: absent is in no specifier");
        let mut probes = near(spec.version());
        for o in &others {
            let o: Version = o.parse().expect("generated versions parse");
            probes.extend(near(&o));
        }
        for v in probes {
            let expected = spec.contains_with(&v, Some(true));
            prop_assert_eq!(set.contains(&Point::Version(v.clone())), expected, "{} on {} (set {})", spec, v, set);
        }
        // Every interval has a witness, and it is in the set.
        for (lo, hi) in set.intervals() {
            let w = lo.point_between(hi);
            prop_assert!(w.is_some(), "no witness in ({lo:?}, {hi:?}) of {spec}");
            let w = w.expect("checked");
            prop_assert!(set.contains(&w), "{spec}: witness {w} not in {set}");
            if let Point::Version(v) = &w {
                prop_assert!(spec.contains_with(v, Some(true)), "{spec}: witness {v}");
            }
        }
    }

    #[test]
    fn cut_order_agrees_with_version_order(a in version_text(), b in version_text()) {
        let a: Version = a.parse().expect("parses");
        let b: Version = b.parse().expect("parses");
        prop_assert_eq!(Cut::below(&a).cmp(&Cut::below(&b)), a.cmp(&b));
        prop_assert_eq!(Cut::above(&a).cmp(&Cut::above(&b)), a.cmp(&b));
        let pa = Point::Version(a.clone());
        prop_assert!(Cut::below(&a).is_below(&pa));
        prop_assert!(!Cut::above(&a).is_below(&pa));
        prop_assert_eq!(Cut::below(&b).is_below(&pa), b <= a);
        prop_assert_eq!(Cut::above(&b).is_below(&pa), b < a);
    }

    #[test]
    fn set_operations_agree_pointwise(s1 in specifier(), s2 in specifier(), v in version_text()) {
        let a = VersionSet::from_specifier(&s1).expect("not ===");
        let b = VersionSet::from_specifier(&s2).expect("not ===");
        let mut probes: Vec<Point> = near(&v.parse().expect("parses")).into_iter().map(Point::Version).collect();
        probes.extend(near(s1.version()).into_iter().map(Point::Version));
        probes.extend(near(s2.version()).into_iter().map(Point::Version));
        probes.push(Point::Absent);
        let (and, or, not) = (a.intersection(&b), a.union(&b), a.complement());
        for p in &probes {
            prop_assert_eq!(and.contains(p), a.contains(p) && b.contains(p));
            prop_assert_eq!(or.contains(p), a.contains(p) || b.contains(p));
            prop_assert_eq!(not.contains(p), !a.contains(p));
        }
        // Every non-empty result has witnesses in each interval.
        for set in [&and, &or, &not] {
            for (lo, hi) in set.intervals() {
                let w = lo.point_between(hi);
                prop_assert!(w.as_ref().is_some_and(|w| set.contains(w)), "{set}: witness {w:?}");
            }
        }
        prop_assert_eq!(a.intersection(&b) == a, a.union(&b) == b);
    }
}

fn set(spec: &str) -> VersionSet {
    VersionSet::from_specifier(&spec.parse().expect("valid specifier")).expect("not ===")
}

#[test]
fn equal_gaps_are_equal_cuts() {
    // No version lies between these pairs: the sets must be identical values.
    assert_eq!(set("<=1.0.dev0"), set("<1.0.dev1"));
    assert_eq!(set("<=1.0"), set("<1.0.post0.dev0"));
    assert_eq!(set("<=1.0rc1.post3"), set("<1.0rc1.post4.dev0"));
    assert_eq!(
        set(">=1.0.post0.dev0"),
        set("<=1.0")
            .complement()
            .intersection(&VersionSet::versions())
    );
    assert_eq!(
        set("==1.0.*"),
        set("==1.0.0.*").union(&set("==1.0.0.*").complement().intersection(&set("==1.0.*")))
    );
    assert_eq!(set("==1.*"), set(">=1.dev0").intersection(&set("<2.dev0")));
    assert_eq!(set("~=1.4.5"), set(">=1.4.5").intersection(&set("==1.4.*")));
    assert_eq!(
        set("!=1.0.*").union(&set("==1.0.*")),
        VersionSet::versions()
    );
    assert_eq!(set("==1.0.0"), set("==1"));
}

#[test]
fn prerelease_interpreters() {
    let p = |s: &str| Point::Version(s.parse().expect("version"));
    assert!(!set(">=3.13").contains(&p("3.13.0rc1")));
    assert!(!set("<3.13").contains(&p("3.13.0rc1")));
    assert!(set("==3.13.*").contains(&p("3.13.0rc1")));
    assert!(set("<3.11").contains(&p("3.10.0a1.dev0")));
    assert!(!set(">=3.11").contains(&p("3.11.0a1.dev0")));
    assert!(set(">=3.11.0a1.dev0").contains(&p("3.11.0a1.dev0")));
    assert!(set(">3.11.0a1").contains(&p("3.11.0a2.dev0")));
    assert!(!set(">3.11.0a1").contains(&p("3.11.0a1.post1")));
}

#[test]
fn display_is_readable() {
    assert_eq!(
        set(">=3.8").intersection(&set("<3.9")).to_string(),
        "[3.8, 3.9.dev0)"
    );
    assert_eq!(set(">3.12").to_string(), "(3.12.post∞, +∞)");
    assert_eq!(set("<=3.12").to_string(), "(-∞, 3.12.post0.dev0)");
    assert_eq!(set("==3.12+abc").to_string(), "[3.12+abc, 3.12+abc]");
    assert_eq!(VersionSet::absent().to_string(), "\"\"");
    assert_eq!(
        set("<3").union(&VersionSet::absent()).to_string(),
        "\"\" ∪ (-∞, 3.dev0)"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Normalisation is unique: two sets that are different values always differ on a point,
    /// and the point is found. (A gap written two ways would make a non-empty difference with no
    /// point in it.) Checked on unions of random specifiers.
    #[test]
    fn distinct_sets_differ_on_a_witnessed_point(
        s in prop::collection::vec(specifier(), 1..4),
        t in prop::collection::vec(specifier(), 1..4),
        absent in any::<bool>(),
    ) {
        let union = |specs: &[VersionSpecifier]| {
            specs.iter().fold(VersionSet::empty(), |acc, s| acc.union(&VersionSet::from_specifier(s).expect("not ===")))
        };
        let a = union(&s);
        let b = if absent { union(&t).union(&VersionSet::absent()) } else { union(&t) };
        let diff = a.union(&b).intersection(&a.intersection(&b).complement());
        prop_assert_eq!(diff.is_empty(), a == b);
        for (lo, hi) in diff.intervals() {
            let w = lo.point_between(hi);
            prop_assert!(w.is_some(), "empty interval ({lo:?}, {hi:?}) in the difference of {a} and {b}");
            let w = w.expect("checked");
            prop_assert!(a.contains(&w) != b.contains(&w), "{w} does not separate {a} and {b}");
        }
    }
}

/// `python_version` of a full version: epoch and first two release numbers.
fn python_version_of(v: &Version) -> Version {
    let r = v.release();
    Version::new([
        r.first().copied().unwrap_or(0),
        r.get(1).copied().unwrap_or(0),
    ])
    .with_epoch(v.epoch())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn python_version_preimage_is_exact(spec in specifier(), others in prop::collection::vec(version_text(), 0..6)) {
        let set = VersionSet::python_version_preimage(&spec).expect("not ===");
        prop_assert!(!set.contains(&Point::Absent));
        let mut probes = near(spec.version());
        for o in &others {
            probes.extend(near(&o.parse().expect("parses")));
        }
        // Neighbouring minor and major versions of every probe, with suffixes.
        let mut more = Vec::new();
        for v in &probes {
            let pv = python_version_of(v);
            let (e, r) = (pv.epoch(), pv.release().to_vec());
            let (x, y) = (r.first().copied().unwrap_or(0), r.get(1).copied().unwrap_or(0));
            for (x, y) in [(x, y + 1), (x + 1, 0), (x, y.saturating_sub(1)), (x.saturating_sub(1), 99)] {
                more.extend(near(&Version::new([x, y]).with_epoch(e)));
            }
        }
        probes.extend(more);
        for v in probes {
            let expected = spec.contains_with(&python_version_of(&v), Some(true));
            prop_assert_eq!(set.contains(&Point::Version(v.clone())), expected, "python_version {} on full {} (set {})", spec, v, set);
        }
        for (lo, hi) in set.intervals() {
            let w = lo.point_between(hi);
            prop_assert!(w.as_ref().is_some_and(|w| set.contains(w)), "{set}: witness {w:?}");
        }
    }
}
