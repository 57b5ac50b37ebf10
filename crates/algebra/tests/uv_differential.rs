//! Differential test on real lock-file markers (this crate's `tests/data/lock-markers.txt`):
//! uv-pep508 0.0.98's marker algebra (its answers are committed in `tests/data/uv-lock-markers.jsonl`,
//! written by `benches/compare/src/bin/uv-algebra.rs`; CI regenerates the file and diffs it)
//! against brute-force evaluation (`support/brute.rs`: environments from the markers' literals
//! and their neighbours, pre-release interpreters included), with markerspec-pep508's evaluator
//! as the judge.
//!
//! Every disagreement is classified; the counts per class are the ones explained in
//! `spec/DIVERGENCES-ALGEBRA.md`, and the test fails when a count changes or a disagreement
//! falls in no class. Run with `--nocapture` to see the table and one example per class.
//!
//! The same checks run on markers of your own (`scripts/check-lock-markers FILE` does all of
//! it): set `MARKERSPEC_DIFF_MARKERS` to a file of markers, one per line, and
//! `MARKERSPEC_DIFF_UV` to what `uv-algebra FILE` prints for it. The counts per class are then
//! reported, not compared with the committed ones; a disagreement in no class, a wrong answer
//! or witness of markerspec's, or a printed total longer than uv's still fails.

#[path = "support/brute.rs"]
#[allow(dead_code)]
mod brute;
#[path = "support/uv.rs"]
mod uv;

use std::collections::BTreeMap;
use std::str::FromStr;

use brute::{Point, Query, Space, Versions};
use markerspec_pep508::MarkerTree;
use serde_json::Value;
use uv::{parse_uv, uv_theory};

const CORPUS: &str = include_str!("data/lock-markers.txt");
const UV: &str = include_str!("data/uv-lock-markers.jsonl");

/// The classes of disagreement, with a count and the first example of each.
#[derive(Default)]
struct Tally {
    counts: BTreeMap<&'static str, usize>,
    examples: BTreeMap<&'static str, String>,
}

impl Tally {
    fn add(&mut self, class: &'static str, example: impl FnOnce() -> String) {
        *self.counts.entry(class).or_default() += 1;
        self.examples.entry(class).or_insert_with(example);
    }
    fn get(&self, class: &str) -> usize {
        self.counts.get(class).copied().unwrap_or(0)
    }
}

fn parse(text: &str) -> MarkerTree {
    MarkerTree::from_str(text).unwrap_or_else(|e| panic!("markerspec parses {text:?}: {e:?}"))
}

struct Data {
    inputs: Vec<&'static str>,
    uv_printed: Vec<String>,
    pairs: Vec<Value>,
}

/// The markers and uv's answers on them: the committed ones, or the files named by
/// `MARKERSPEC_DIFF_MARKERS` and `MARKERSPEC_DIFF_UV` (both or neither).
fn sources() -> (&'static str, &'static str) {
    let read = |var: &str| -> Option<&'static str> {
        let path = std::env::var_os(var)?;
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{var}: cannot read {}: {e}", path.display()));
        Some(Box::leak(text.into_boxed_str()))
    };
    match (read("MARKERSPEC_DIFF_MARKERS"), read("MARKERSPEC_DIFF_UV")) {
        (Some(m), Some(u)) => (m, u),
        (None, None) => (CORPUS, UV),
        _ => panic!(
            "set both MARKERSPEC_DIFF_MARKERS (a file of markers) and MARKERSPEC_DIFF_UV \
             (what `uv-algebra FILE` prints for it), or neither"
        ),
    }
}

/// Whether the markers are the committed corpus (whose counts per class are known).
fn committed() -> bool {
    std::env::var_os("MARKERSPEC_DIFF_MARKERS").is_none()
}

/// The committed counts, or (for markers of your own) the counts found.
fn expected_or_found(
    rows: &[(&'static str, usize)],
    found: &BTreeMap<&'static str, usize>,
) -> BTreeMap<&'static str, usize> {
    if committed() {
        expected(rows)
    } else {
        found.clone()
    }
}

fn load() -> Data {
    let (corpus, uv) = sources();
    let inputs: Vec<&str> = corpus.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut uv_printed = Vec::new();
    let mut pairs = Vec::new();
    for line in uv.lines() {
        let v: Value = serde_json::from_str(line).expect("a JSON line");
        if let Some(i) = v.get("marker").and_then(Value::as_u64) {
            assert_eq!(i as usize, uv_printed.len(), "markers in order");
            uv_printed.push(v["uv"].as_str().expect("a printed marker").to_string());
        } else {
            pairs.push(v);
        }
    }
    assert_eq!(uv_printed.len(), inputs.len(), "uv answered every marker");
    Data {
        inputs,
        uv_printed,
        pairs,
    }
}

/// The brute-force judge for a few marker texts: under the `spec-2026` profile (the
/// specification, pre-releases included), with uv's `platform_system` theory available as
/// the marker after the texts, and under the `uv` profile (what uv-pep508 evaluates).
struct Judge {
    /// The texts, then the theory.
    spec: Vec<MarkerTree>,
    /// The texts under the uv profile, then the theory.
    uv: Vec<MarkerTree>,
    /// Whether a text reads `platform_release` (which class a uv-profile difference is in).
    platform_release: bool,
}

/// Why uv-pep508's answer differs from brute force under the specification.
const AGREE: &str = "agree";
const PRE: &str = "pre-release modelling: differs only on pre-release interpreters, e.g. 3.11.0rc1";
const NON_VERSION: &str = "non-version values: differs only where a `Version` field holds a \
                           value that is not a version (`\"\"`), which uv cannot hold";
const PRE_OTHER: &str =
    "pre-release modelling: differs only on dev/post/local versions (no CPython reports one)";
const THEORY: &str =
    "uv's world knowledge: platform_system identified with sys_platform, exclusion table";
const PRE_AND_THEORY: &str = "pre-release modelling and world knowledge together (neither alone)";
const COMBINED: &str =
    "uv's modelling, several parts at once (pre-releases, world knowledge, uv profile)";
const UV_RELEASE: &str =
    "uv profile: platform_release is a version only where sys_platform is darwin";
const UV_LITERAL: &str =
    "uv profile: a version literal loses its pre/dev/post/local part (changes releases too)";
const FALSE_NEGATIVE: &str = "uv false negative";
const UNEXPLAINED: &str = "UNEXPLAINED";

impl Judge {
    fn new(texts: &[&str]) -> Judge {
        let theory = uv_theory();
        let mut spec: Vec<MarkerTree> = texts.iter().map(|t| parse(t)).collect();
        spec.push(theory.clone());
        let mut uv: Vec<MarkerTree> = texts.iter().map(|t| parse_uv(t)).collect();
        uv.push(theory);
        Judge {
            spec,
            uv,
            platform_release: texts.iter().any(|t| t.contains("platform_release")),
        }
    }

    /// The space of the texts alone (the theory's literals would only slow the search).
    fn spec_space(&self) -> Space<'_> {
        Space::new(&self.spec[..self.spec.len() - 1].iter().collect::<Vec<_>>())
    }

    /// Which part of the uv profile explains a difference.
    fn uv_reading(&self) -> &'static str {
        if self.platform_release {
            UV_RELEASE
        } else {
            UV_LITERAL
        }
    }

    fn uv_space(&self) -> Space<'_> {
        Space::new(&self.uv[..self.uv.len() - 1].iter().collect::<Vec<_>>())
    }

    /// uv claims `q` holds nowhere (disjoint, implies, same meaning): `AGREE` or why not, with
    /// the counterexample.
    fn uv_claims_empty(&self, q: &Query) -> (&'static str, Option<Point>) {
        let space = self.spec_space();
        let Some(p) = space.find(q, Versions::All) else {
            return (AGREE, None);
        };
        let with_theory = Query::And(
            Box::new(q.clone()),
            Box::new(Query::Leaf(self.spec.len() - 1)),
        );
        let theory_space = Space::new(&self.spec.iter().collect::<Vec<_>>());
        let uv_theory_space = Space::new(&self.uv.iter().collect::<Vec<_>>());
        if space.find(q, Versions::Releases).is_none() {
            // Show the interpreter CPython would report, when there is one.
            return match space.find(q, Versions::CPython) {
                Some(p) => (PRE, Some(p)),
                None if space.find(q, Versions::Pep440).is_none() => (NON_VERSION, Some(p)),
                None => (PRE_OTHER, Some(p)),
            };
        }
        let class = if theory_space.find(&with_theory, Versions::All).is_none() {
            THEORY
        } else if theory_space
            .find(&with_theory, Versions::Releases)
            .is_none()
        {
            PRE_AND_THEORY
        } else if self.uv_space().find(q, Versions::All).is_none() {
            self.uv_reading()
        } else if uv_theory_space
            .find(&with_theory, Versions::Releases)
            .is_none()
        {
            COMBINED
        } else {
            UNEXPLAINED
        };
        (class, Some(p))
    }

    /// uv claims `q` holds somewhere (overlapping, does not imply): `AGREE` or why not.
    fn uv_claims_nonempty(&self, q: &Query) -> (&'static str, Option<Point>) {
        if self.spec_space().find(q, Versions::All).is_some() {
            return (AGREE, None);
        }
        match self.uv_space().find(q, Versions::All) {
            Some(p) => (self.uv_reading(), Some(p)),
            None => (FALSE_NEGATIVE, None),
        }
    }
}

/// uv-pep508's simplified form of each marker, against the marker, by brute force.
#[test]
fn uv_simplified_markers_against_brute_force() {
    let d = load();
    let mut t = Tally::default();
    for (i, printed) in d.uv_printed.iter().enumerate() {
        let judge = Judge::new(&[d.inputs[i], printed]);
        let (class, p) = judge.uv_claims_empty(&Query::differ(0, 1));
        t.add(class, || {
            format!(
                "line {}: {:?} -> {printed:?} at {}",
                i + 1,
                d.inputs[i],
                show(&p)
            )
        });
    }
    report("uv's simplified output (one per marker)", &t);
    assert_eq!(t.get(UNEXPLAINED), 0);
    assert_eq!(t.counts, expected_or_found(EXPECTED_SIMPLIFY, &t.counts));
}

fn show(p: &Option<Point>) -> String {
    p.as_ref().map_or_else(String::new, Point::to_string)
}

/// uv-pep508's `is_disjoint` and `implies` (`a.and(b.negate()).is_false()`) on the pair sample,
/// and its printed `and`/`or` of the consecutive pairs, against brute force.
#[test]
fn uv_pair_answers_against_brute_force() {
    let d = load();
    let mut dis = Tally::default();
    let mut imp = Tally::default();
    let mut and = Tally::default();
    let mut or = Tally::default();
    for v in &d.pairs {
        let i = v["a"].as_u64().expect("a") as usize;
        let j = v["b"].as_u64().expect("b") as usize;
        let mut texts = vec![d.inputs[i], d.inputs[j]];
        let printed = (
            v.get("and").and_then(Value::as_str),
            v.get("or").and_then(Value::as_str),
        );
        if let (Some(a), Some(o)) = printed {
            texts.extend([a, o]);
        }
        let judge = Judge::new(&texts);
        let ex = |p: Option<Point>| {
            format!(
                "lines {} and {}: {:?} / {:?} at {}",
                i + 1,
                j + 1,
                d.inputs[i],
                d.inputs[j],
                show(&p)
            )
        };

        let (class, p) = if v["disjoint"].as_bool().expect("disjoint") {
            judge.uv_claims_empty(&Query::and(0, 1))
        } else {
            judge.uv_claims_nonempty(&Query::and(0, 1))
        };
        dis.add(class, || ex(p));
        let (class, p) = if v["implies"].as_bool().expect("implies") {
            judge.uv_claims_empty(&Query::and_not(0, 1))
        } else {
            judge.uv_claims_nonempty(&Query::and_not(0, 1))
        };
        imp.add(class, || ex(p));

        if texts.len() == 4 {
            let both = Query::and(0, 1);
            let either = Query::Not(Box::new(Query::And(
                Box::new(Query::Not(Box::new(Query::Leaf(0)))),
                Box::new(Query::Not(Box::new(Query::Leaf(1)))),
            )));
            let (class, p) =
                judge.uv_claims_empty(&Query::Xor(Box::new(both), Box::new(Query::Leaf(2))));
            and.add(class, || ex(p));
            let (class, p) =
                judge.uv_claims_empty(&Query::Xor(Box::new(either), Box::new(Query::Leaf(3))));
            or.add(class, || ex(p));
        }
    }
    report("uv is_disjoint (pair sample)", &dis);
    report("uv implies (pair sample)", &imp);
    report("uv's printed `and` (consecutive pairs)", &and);
    report("uv's printed `or` (consecutive pairs)", &or);
    for t in [&dis, &imp, &and, &or] {
        assert_eq!(t.get(UNEXPLAINED), 0);
    }
    assert_eq!(
        dis.counts,
        expected_or_found(EXPECTED_DISJOINT, &dis.counts)
    );
    assert_eq!(imp.counts, expected_or_found(EXPECTED_IMPLIES, &imp.counts));
    assert_eq!(and.counts, expected_or_found(EXPECTED_AND, &and.counts));
    assert_eq!(or.counts, expected_or_found(EXPECTED_OR, &or.counts));
}

fn expected(rows: &[(&'static str, usize)]) -> BTreeMap<&'static str, usize> {
    rows.iter().copied().filter(|(_, n)| *n > 0).collect()
}

// The counts explained in spec/DIVERGENCES-ALGEBRA.md.
const EXPECTED_SIMPLIFY: &[(&str, usize)] = &[
    (AGREE, 1075),
    (PRE, 60),
    (PRE_AND_THEORY, 1),
    (THEORY, 17),
    (UV_LITERAL, 1),
    (UV_RELEASE, 2),
];
const EXPECTED_DISJOINT: &[(&str, usize)] = &[(AGREE, 3146), (THEORY, 8), (UV_RELEASE, 1)];
const EXPECTED_IMPLIES: &[(&str, usize)] = &[(AGREE, 3148), (PRE, 1), (THEORY, 2), (UV_RELEASE, 4)];
const EXPECTED_AND: &[(&str, usize)] = &[
    (AGREE, 1047),
    (PRE, 71),
    (PRE_AND_THEORY, 7),
    (THEORY, 21),
    (UV_LITERAL, 2),
    (UV_RELEASE, 8),
];
const EXPECTED_OR: &[(&str, usize)] = &[
    (AGREE, 963),
    (NON_VERSION, 13),
    (PRE, 143),
    (PRE_AND_THEORY, 6),
    (THEORY, 20),
    (UV_LITERAL, 1),
    (UV_RELEASE, 10),
];

fn report(title: &str, t: &Tally) {
    println!("== {title}");
    for (class, n) in &t.counts {
        println!("{n:6}  {class}");
        if let Some(e) = t.examples.get(class).filter(|_| *class != AGREE) {
            println!("        e.g. {e}");
        }
    }
}

/// markerspec-algebra on the same markers: every `is_disjoint` / `implies` answer equals brute
/// force (no theory, pre-releases included), every printed form means its input (checked by
/// brute force on the printed text, parsed back), and the printed forms are no longer in total
/// than uv-pep508's.
#[test]
fn markerspec_algebra_against_brute_force_and_uv() {
    use markerspec_algebra::{Context, Theory};

    let d = load();
    let mut ctx = Context::new();
    let theory = Theory::none();
    let markers: Vec<_> = d
        .inputs
        .iter()
        .map(|t| ctx.from_marker(&parse(t), &theory).expect("translates"))
        .collect();

    let mut wrong = Vec::new();
    let mut ours_len = 0usize;
    for (i, m) in markers.iter().enumerate() {
        let printed = ctx.to_marker_string(*m).expect("prints");
        ours_len += printed.len();
        let back = parse(&printed);
        let input = parse(d.inputs[i]);
        if let Some(p) = Space::new(&[&input, &back]).find(&Query::differ(0, 1), Versions::All) {
            wrong.push(format!(
                "line {}: {:?} printed as {printed:?}, differs at {p}",
                i + 1,
                d.inputs[i]
            ));
        }
        // The printed form reads back to the same canonical value.
        let again = ctx.from_marker(&back, &theory).expect("translates");
        if again != *m {
            wrong.push(format!(
                "line {}: {printed:?} does not read back to itself",
                i + 1
            ));
        }
    }
    let uv_len: usize = d.uv_printed.iter().map(String::len).sum();

    let (mut disjoint_vs_uv, mut implies_vs_uv) = (0usize, 0usize);
    for v in &d.pairs {
        let i = v["a"].as_u64().expect("a") as usize;
        let j = v["b"].as_u64().expect("b") as usize;
        let (a, b) = (parse(d.inputs[i]), parse(d.inputs[j]));
        let space = Space::new(&[&a, &b]);
        let disjoint = ctx
            .is_disjoint(markers[i], markers[j])
            .expect("is_disjoint");
        if disjoint != space.find(&Query::and(0, 1), Versions::All).is_none() {
            wrong.push(format!(
                "lines {} and {}: is_disjoint {disjoint}",
                i + 1,
                j + 1
            ));
        }
        let implies = ctx.implies(markers[i], markers[j]).expect("implies");
        if implies != space.find(&Query::and_not(0, 1), Versions::All).is_none() {
            wrong.push(format!("lines {} and {}: implies {implies}", i + 1, j + 1));
        }
        disjoint_vs_uv += usize::from(disjoint != v["disjoint"].as_bool().expect("disjoint"));
        implies_vs_uv += usize::from(implies != v["implies"].as_bool().expect("implies"));
        // `relate`: every witness is an environment document in which its cell holds (both
        // markers evaluated by markerspec-pep508), and a cell without one is empty.
        let rel = ctx.relate(markers[i], markers[j]).expect("relate");
        let cells = ctx.cells(markers[i], markers[j]).expect("cells");
        let named = [
            ("a_and_b", &rel.a_and_b, (true, true)),
            ("a_not_b", &rel.a_not_b, (true, false)),
            ("b_not_a", &rel.b_not_a, (false, true)),
            ("neither", &rel.neither, (false, false)),
        ];
        for ((name, witness, (want_a, want_b)), cell) in named.into_iter().zip(cells) {
            let cell_query = match (want_a, want_b) {
                (true, true) => Query::and(0, 1),
                (true, false) => Query::and_not(0, 1),
                (false, true) => Query::and_not(1, 0),
                (false, false) => Query::And(
                    Box::new(Query::Not(Box::new(Query::Leaf(0)))),
                    Box::new(Query::Not(Box::new(Query::Leaf(1)))),
                ),
            };
            let Some(w) = witness else {
                if let Some(p) = space.find(&cell_query, Versions::All) {
                    wrong.push(format!(
                        "lines {} and {}: {name} has no witness, but holds at {p}",
                        i + 1,
                        j + 1
                    ));
                }
                continue;
            };
            let holds = ctx.witness_environment(cell, w).map(|env| {
                (
                    a.evaluate(&env).expect("evaluates"),
                    b.evaluate(&env).expect("evaluates"),
                )
            });
            if holds.as_ref().ok() != Some(&(want_a, want_b)) {
                wrong.push(format!(
                    "lines {} and {}: the {name} witness gives {holds:?}",
                    i + 1,
                    j + 1
                ));
            }
        }
    }
    println!(
        "printed length: markerspec {ours_len}, uv-pep508 {uv_len}; differs from uv: \
         is_disjoint {disjoint_vs_uv}, implies {implies_vs_uv} of {} pairs",
        d.pairs.len()
    );
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(
        ours_len <= uv_len,
        "printed {ours_len} characters, uv {uv_len}"
    );
    if !committed() {
        // (Each difference from uv is then a disagreement of uv's with brute force, which
        // `uv_pair_answers_against_brute_force` classifies.)
        return;
    }
    // Every difference from uv is one of the explained disagreements of uv with brute force.
    let explained = |rows: &[(&str, usize)]| -> usize {
        rows.iter()
            .filter(|(c, _)| *c != AGREE)
            .map(|(_, n)| n)
            .sum()
    };
    assert_eq!(disjoint_vs_uv, explained(EXPECTED_DISJOINT));
    assert_eq!(implies_vs_uv, explained(EXPECTED_IMPLIES));
}
