//! Brute-force marker semantics, independent of the algebra: a search over environments built
//! from the literals of the markers at hand and their neighbours, pre-releases included, with
//! markerspec-pep508's evaluator as the judge of each comparison.
//!
//! The candidate environments assign every field read by the markers one of a few values:
//!
//! * version fields (`python_full_version` with `python_version` derived from it as its first
//!   two release components, `implementation_version`): for every version literal (a
//!   `python_version` literal `X.Y` and a wildcard `X.Y.*` read as `X.Y`), the literal, its
//!   release padded with zeros to three components, each with its last component minus and
//!   plus one, each of those as a final release, a `rc1` and an `a1` pre-release, a `.dev0`, a
//!   `.post1` and a `+local` label; plus `0`, `99`, the empty string and another string that
//!   is not a version (SPEC §4.2: a standard field that cannot be calculated is `""`);
//! * string fields: every literal, a string that is none of them, the empty string; for
//!   substring tests `"lit" in field`, strings containing each subset of their literals (each
//!   one and all of them past six), and for `field in "lit"` the literal's first character and
//!   the rest;
//! * `extra`: each literal requested or not (extras are a set).
//!
//! Candidates are grouped by the truth of every comparison of their field, and one per group
//! is kept, a release-only version first, so that the search visits each distinguishable case
//! once. The search assigns fields one at a time and evaluates the query with Kleene logic
//! (an unassigned field is unknown), pruning a branch as soon as the query is decided false.
//! It is exhaustive over the candidates, so "no environment" means none among them: as
//! complete as the neighbours are, which the tests rely on for markers with literal bounds.

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;

use markerspec_pep508::{
    Environment, Field, FieldType, MarkerExpression, MarkerNode, MarkerOperator, MarkerTree, Truth,
    normalize_name,
};

/// A query over the markers of a [`Space`]: a Boolean combination of them.
#[derive(Clone, Debug)]
pub enum Query {
    /// The marker at this index.
    Leaf(usize),
    /// Negation.
    Not(Box<Query>),
    /// Conjunction.
    And(Box<Query>, Box<Query>),
    /// Exclusive or: the two differ.
    Xor(Box<Query>, Box<Query>),
}

impl Query {
    /// `a and b` over markers `a` and `b`.
    pub fn and(a: usize, b: usize) -> Query {
        Query::And(Box::new(Query::Leaf(a)), Box::new(Query::Leaf(b)))
    }
    /// `a and not b`.
    pub fn and_not(a: usize, b: usize) -> Query {
        Query::And(
            Box::new(Query::Leaf(a)),
            Box::new(Query::Not(Box::new(Query::Leaf(b)))),
        )
    }
    /// `a xor b`: an environment where the two differ.
    pub fn differ(a: usize, b: usize) -> Query {
        Query::Xor(Box::new(Query::Leaf(a)), Box::new(Query::Leaf(b)))
    }
}

/// A point of the search: one value per assigned field, and the extras requested.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Point {
    /// Field values (the version fields' values as text).
    pub values: BTreeMap<&'static str, String>,
    /// Extras requested (normalised names).
    pub extras: BTreeSet<String>,
}

impl std::fmt::Display for Point {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut first = true;
        for (k, v) in &self.values {
            if !first {
                f.write_str(", ")?;
            }
            first = false;
            write!(f, "{k}={v:?}")?;
        }
        write!(f, "; extras={:?}", self.extras)
    }
}

/// Whether a version text is a release alone (`3.11.2`), as uv-pep508 models versions.
pub fn is_release_only(v: &str) -> bool {
    v.split('.')
        .all(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether a version text is one a CPython interpreter reports: a release, or a release with an
/// `a`/`b`/`rc` pre-release (`3.13.0rc1`), no dev, post or local part.
pub fn is_cpython_shaped(v: &str) -> bool {
    let release = v.split(['a', 'b', 'r']).next().unwrap_or("");
    let rest = &v[release.len()..];
    is_release_only(release)
        && ["a", "b", "rc"].iter().any(|p| {
            rest.strip_prefix(p)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
        || is_release_only(v)
}

/// Which values of the `Version` fields (`python_full_version`, `implementation_version`) a
/// search may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Versions {
    /// Every candidate: pre-, dev-, post-releases, local labels, and values that are not
    /// versions (`""`).
    All,
    /// Every PEP 440 version, no value that is not one.
    Pep440,
    /// Releases and `a`/`b`/`rc` pre-releases, as CPython reports them.
    CPython,
    /// Releases only (what uv-pep508 can represent).
    Releases,
}

impl Versions {
    fn admits(self, v: &str) -> bool {
        match self {
            Versions::All => true,
            Versions::Pep440 => markerspec_pep508::pep440::Version::from_str(v).is_ok(),
            Versions::CPython => is_cpython_shaped(v),
            Versions::Releases => is_release_only(v),
        }
    }
}

#[derive(Clone, Debug)]
enum Var {
    /// A field other than `extra`, with its candidate values; `python_full_version` also sets
    /// `python_version`.
    Field(Field, Vec<String>),
    /// One extra, requested or not.
    Extra(String),
}

/// Markers and the candidate environments that distinguish them.
pub struct Space<'m> {
    markers: Vec<&'m MarkerTree>,
    vars: Vec<Var>,
}

fn literal_of(e: &MarkerExpression) -> Option<&str> {
    e.rhs().as_literal().or(e.lhs().as_literal())
}

fn expressions<'a>(node: &'a MarkerNode, out: &mut Vec<&'a MarkerExpression>) {
    match node {
        MarkerNode::True | MarkerNode::False => {}
        MarkerNode::Expression(e) => out.push(e),
        MarkerNode::And(c) | MarkerNode::Or(c) => c.iter().for_each(|n| expressions(n, out)),
    }
}

/// The field a comparison is searched over (`python_version` is a function of
/// `python_full_version`).
fn search_field(f: Field) -> Field {
    if f == Field::PythonVersion {
        Field::PythonFullVersion
    } else {
        f
    }
}

/// Candidate versions around one version literal.
fn version_neighbours(lit: &str, out: &mut Vec<String>) {
    let lit = lit.trim().trim_end_matches(".*");
    out.push(lit.to_string());
    let digits: String = lit
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let release: Vec<u64> = digits
        .split('.')
        .filter(|c| !c.is_empty())
        .filter_map(|c| c.parse().ok())
        .collect();
    if release.is_empty() {
        return;
    }
    let mut bases = Vec::new();
    for k in release.len()..=release.len().max(3) {
        let mut r = release.clone();
        r.resize(k, 0);
        let last = r.len() - 1;
        bases.push(r.clone());
        let mut up = r.clone();
        up[last] += 1;
        bases.push(up);
        if r[last] > 0 {
            let mut down = r;
            down[last] -= 1;
            bases.push(down);
        }
    }
    for b in bases {
        let s = b.iter().map(u64::to_string).collect::<Vec<_>>().join(".");
        for suffix in ["", "rc1", "a1", ".dev0", ".post1", "+local"] {
            out.push(format!("{s}{suffix}"));
        }
    }
}

/// `major.minor` of a version text, as `python_version` derives from `python_full_version`; a
/// value that is not a version is kept as it is.
fn major_minor(v: &str) -> String {
    if markerspec_pep508::pep440::Version::from_str(v).is_err() {
        return v.to_string();
    }
    let digits: String = v
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let mut parts = digits.split('.').filter(|c| !c.is_empty());
    let major = parts.next().unwrap_or("0");
    let minor = parts.next().unwrap_or("0");
    format!("{major}.{minor}")
}

fn environment(point: &Point) -> Environment {
    let mut env = Environment::new();
    for (k, v) in &point.values {
        let Some(f) = Field::from_name(k, markerspec_pep508::Dialect::Extended) else {
            continue;
        };
        env = env.with_unchecked(f, v.clone());
        if f == Field::PythonFullVersion {
            env = env.with_unchecked(Field::PythonVersion, major_minor(v));
        }
    }
    env
}

fn kleene_and(a: Truth, b: Truth) -> Truth {
    match (a, b) {
        (Truth::False, _) | (_, Truth::False) => Truth::False,
        (Truth::True, Truth::True) => Truth::True,
        _ => Truth::Unknown,
    }
}

fn kleene_not(a: Truth) -> Truth {
    match a {
        Truth::True => Truth::False,
        Truth::False => Truth::True,
        Truth::Unknown => Truth::Unknown,
    }
}

fn eval_node(
    node: &MarkerNode,
    env: &Environment,
    tree: &MarkerTree,
    extras: &BTreeMap<String, bool>,
) -> Truth {
    match node {
        MarkerNode::True => Truth::True,
        MarkerNode::False => Truth::False,
        MarkerNode::Expression(e) => {
            if e.field() == Some(Field::Extra) {
                let name = normalize_name(literal_of(e).unwrap_or(""));
                let holds = match e.operator() {
                    MarkerOperator::Equal => true,
                    MarkerOperator::NotEqual => false,
                    // Other operators on `extra` are not in lock files; judge them by the
                    // evaluator with the extras assigned so far.
                    _ => return Truth::Unknown,
                };
                match extras.get(&name) {
                    Some(&b) => {
                        if b == holds {
                            Truth::True
                        } else {
                            Truth::False
                        }
                    }
                    None => Truth::Unknown,
                }
            } else {
                e.evaluate(env, tree.profile())
                    .map_or(Truth::Unknown, |ev| ev.truth)
            }
        }
        MarkerNode::And(c) => c.iter().fold(Truth::True, |acc, n| {
            if acc == Truth::False {
                acc
            } else {
                kleene_and(acc, eval_node(n, env, tree, extras))
            }
        }),
        MarkerNode::Or(c) => kleene_not(c.iter().fold(Truth::True, |acc, n| {
            if acc == Truth::False {
                acc
            } else {
                kleene_and(acc, kleene_not(eval_node(n, env, tree, extras)))
            }
        })),
    }
}

impl<'m> Space<'m> {
    /// The candidate space of `markers` (queries refer to them by index).
    pub fn new(markers: &[&'m MarkerTree]) -> Space<'m> {
        let mut exprs = Vec::new();
        for m in markers {
            expressions(m.node(), &mut exprs);
        }
        let mut by_field: BTreeMap<u16, (Field, Vec<&MarkerExpression>)> = BTreeMap::new();
        let mut extras = BTreeSet::new();
        for e in &exprs {
            let Some(f) = e.field() else { continue };
            if f == Field::Extra {
                extras.insert(normalize_name(literal_of(e).unwrap_or("")));
                continue;
            }
            let f = search_field(f);
            by_field
                .entry(f as u16)
                .or_insert_with(|| (f, Vec::new()))
                .1
                .push(e);
        }
        let mut vars = Vec::new();
        // The Python version first: it splits the most.
        let mut fields: Vec<(Field, Vec<&MarkerExpression>)> = by_field.into_values().collect();
        fields.sort_by_key(|(f, _)| *f != Field::PythonFullVersion);
        for (f, es) in fields {
            let mut cands = Vec::new();
            let versiony = matches!(
                f.field_type(),
                FieldType::Version | FieldType::VersionOrString
            );
            // Literals of substring tests `"lit" in field`: the field may contain any subset.
            let mut contained = Vec::new();
            for e in &es {
                let lit = literal_of(e).unwrap_or("");
                if versiony {
                    version_neighbours(lit, &mut cands);
                }
                cands.push(lit.to_string());
                if matches!(e.operator(), MarkerOperator::In | MarkerOperator::NotIn) {
                    if e.rhs().as_field().is_some() {
                        contained.push(lit.to_string());
                    } else {
                        // `field in "lit"`: the field may be a part of the literal.
                        let mut chars = lit.chars();
                        cands.push(chars.next().map(String::from).unwrap_or_default());
                        cands.push(chars.as_str().to_string());
                    }
                }
            }
            contained.sort();
            contained.dedup();
            // Every subset when there are few, else each one and all of them.
            let subsets: Vec<Vec<&String>> = if contained.len() <= 6 {
                (0..1u32 << contained.len())
                    .map(|bits| {
                        (0..contained.len())
                            .filter(|i| bits & (1 << i) != 0)
                            .map(|i| &contained[i])
                            .collect()
                    })
                    .collect()
            } else {
                let mut v: Vec<Vec<&String>> = contained.iter().map(|c| vec![c]).collect();
                v.push(contained.iter().collect());
                v
            };
            for subset in subsets {
                let joined: Vec<&str> = subset.iter().map(|s| s.as_str()).collect();
                cands.push(format!("x{}x", joined.join("x")));
            }
            if versiony {
                cands.push("0".into());
                cands.push("99".into());
            }
            // Any field may hold the empty string (the living spec's value for what cannot be
            // calculated; SPEC §4.2: Known(""), which for a `Version` field satisfies no
            // specifier) or another string; for a `Version` field these are the values that are
            // not PEP 440 versions, which no interpreter reports and uv-pep508 cannot hold
            // ([`Versions`] leaves them out except with `All`).
            if f.field_type() == FieldType::Version {
                cands.retain(|c| markerspec_pep508::pep440::Version::from_str(c).is_ok());
            }
            cands.push("zz-none-of-these".into());
            cands.push(String::new());
            // Release-only versions first, so that a group keeps one when it has one.
            // Then the longest release first (`3.14.0rc1` rather than `3.14rc1`).
            cands.sort_by_key(|c| {
                let release_len = c
                    .split(['a', 'b', 'r', '+', 'p', 'd'])
                    .next()
                    .unwrap_or("")
                    .split('.')
                    .count();
                (
                    !(versiony && is_release_only(c)),
                    std::cmp::Reverse(release_len),
                )
            });
            // One candidate per group and kind (release, CPython pre-release, other), so that
            // each restriction of [`Versions`] still meets every group it can.
            let mut seen = BTreeSet::new();
            let mut keep = Vec::new();
            for c in cands {
                let point = Point {
                    values: BTreeMap::from([(f.name(), c.clone())]),
                    extras: BTreeSet::new(),
                };
                let env = environment(&point);
                let signature: Vec<Option<Truth>> = es
                    .iter()
                    .map(|e| e.evaluate(&env, markers[0].profile()).ok().map(|v| v.truth))
                    .collect();
                let kind = if !versiony || is_release_only(&c) {
                    0
                } else if is_cpython_shaped(&c) {
                    1
                } else {
                    2
                };
                if seen.insert(format!("{kind}{signature:?}")) {
                    keep.push(c);
                }
            }
            vars.push(Var::Field(f, keep));
        }
        vars.extend(extras.into_iter().map(Var::Extra));
        Space {
            markers: markers.to_vec(),
            vars,
        }
    }

    fn eval(&self, q: &Query, env: &Environment, extras: &BTreeMap<String, bool>) -> Truth {
        match q {
            Query::Leaf(i) => {
                let m = self.markers[*i];
                eval_node(m.node(), env, m, extras)
            }
            Query::Not(a) => kleene_not(self.eval(a, env, extras)),
            Query::And(a, b) => match self.eval(a, env, extras) {
                Truth::False => Truth::False,
                t => kleene_and(t, self.eval(b, env, extras)),
            },
            Query::Xor(a, b) => match (self.eval(a, env, extras), self.eval(b, env, extras)) {
                (Truth::Unknown, _) | (_, Truth::Unknown) => Truth::Unknown,
                (x, y) => {
                    if x == y {
                        Truth::False
                    } else {
                        Truth::True
                    }
                }
            },
        }
    }

    /// A point where `q` holds, if there is one among the candidates whose Python version
    /// `versions` admits.
    pub fn find(&self, q: &Query, versions: Versions) -> Option<Point> {
        let mut point = Point::default();
        let mut extras = BTreeMap::new();
        self.search(q, 0, versions, &mut point, &mut extras)
    }

    fn search(
        &self,
        q: &Query,
        depth: usize,
        versions: Versions,
        point: &mut Point,
        extras: &mut BTreeMap<String, bool>,
    ) -> Option<Point> {
        let env = environment(point);
        match self.eval(q, &env, extras) {
            Truth::False => return None,
            Truth::True => {
                let mut p = point.clone();
                p.extras = extras
                    .iter()
                    .filter(|(_, b)| **b)
                    .map(|(k, _)| k.clone())
                    .collect();
                return Some(p);
            }
            Truth::Unknown => {}
        }
        let var = self.vars.get(depth)?;
        match var {
            Var::Field(f, cands) => {
                for c in cands {
                    if f.field_type() == FieldType::Version && !versions.admits(c) {
                        continue;
                    }
                    point.values.insert(f.name(), c.clone());
                    let found = self.search(q, depth + 1, versions, point, extras);
                    point.values.remove(f.name());
                    if found.is_some() {
                        return found;
                    }
                }
                None
            }
            Var::Extra(name) => {
                for b in [false, true] {
                    extras.insert(name.clone(), b);
                    let found = self.search(q, depth + 1, versions, point, extras);
                    extras.remove(name);
                    if found.is_some() {
                        return found;
                    }
                }
                None
            }
        }
    }
}
