//! A differential fuzzer: generated cases run through markerspec (under the profile each
//! implementation claims) and through other implementations; every disagreement, crash, hang
//! or protocol violation is a finding, shrunk to a small input, grouped by a signature, and
//! written as a conformance vector.
//!
//! The implementations are anything that implements [`Implementation`]: in-process Rust
//! code, or an external program reached through the adapter protocol
//! ([`protocol::Adapter`](crate::protocol::Adapter)), which is what `markerspec fuzz` drives.
//!
//! ```
//! use markerspec_conformance::fuzz::{Fuzzer, Settings, Target};
//! use markerspec_conformance::{
//!     Evaluated, Implementation, Parsed, Profile, Request, TestResult, builtin::Markerspec,
//! };
//!
//! /// markerspec, except that it rejects every marker holding `~=`.
//! struct NoTilde(Markerspec);
//!
//! impl Implementation for NoTilde {
//!     fn name(&self) -> &str { "no-tilde" }
//!     fn parse(&mut self, r: &Request<'_>) -> TestResult<Parsed> {
//!         if r.input().contains("~=") {
//!             return TestResult::Ok(Parsed::Invalid { code: None, message: None });
//!         }
//!         self.0.parse(r)
//!     }
//!     fn evaluate(&mut self, r: &Request<'_>) -> TestResult<Evaluated> {
//!         if r.input().contains("~=") {
//!             return TestResult::Ok(Evaluated::Invalid { code: None, message: None });
//!         }
//!         self.0.evaluate(r)
//!     }
//! }
//!
//! let target = Target::new(Box::new(NoTilde(Markerspec::new())), "no-tilde", "1", Profile::Packaging);
//! let mut fuzzer = Fuzzer::new(vec![target], Settings { seed: 1, ..Settings::default() });
//! fuzzer.run_cases(300, &mut |_| {});
//! let groups = fuzzer.groups();
//! assert!(!groups.is_empty());
//! // Shrunk to a single comparison with `~=`.
//! assert!(groups[0].example.input.contains("~="));
//! assert!(groups[0].example.input.len() < 40, "{}", groups[0].example.input);
//!
//! // The counters, the target, and what one finding says.
//! use markerspec_conformance::Dialect;
//! use markerspec_conformance::fuzz::{Check, generate_case, reference_of, signature};
//! assert_eq!(fuzzer.progress().cases, 300);
//! assert_eq!(fuzzer.progress().groups, groups.len());
//! assert_eq!(fuzzer.per_target()["no-tilde"].0, fuzzer.progress().disagreements);
//! let target = &fuzzer.targets()[0];
//! assert_eq!((target.name(), target.profile(), target.given_up()), ("no-tilde", Profile::Packaging, None));
//! let finding = &groups[0].finding;
//! assert_eq!(finding.disagreement.check, Check::Parse);
//! assert_eq!(finding.disagreement.check.as_str(), "parse");
//! assert_eq!(finding.disagreement.direction(), "markerspec accepts, tool rejects");
//! assert_eq!(signature("no-tilde", &finding.disagreement, &finding.example), groups[0].signature);
//! // Cases are reproducible from the seed and their index.
//! assert_eq!(fuzzer.generate(finding.index).input, finding.original);
//! assert_eq!(generate_case(1, finding.index, Dialect::Pep508), fuzzer.generate(finding.index));
//! // Findings as vectors pinned under the reference implementation's answer, and as a report.
//! assert_eq!(reference_of(Profile::Packaging), Some("packaging"));
//! let new_findings = groups.iter().filter(|g| g.known_as.is_none()).count();
//! assert_eq!(fuzzer.vectors(100)["cases"].as_array().map_or(0, Vec::len), new_findings);
//! assert_eq!(fuzzer.report()["cases"], 300);
//! // More cases, for a while or up to a count.
//! fuzzer.run_for(std::time::Duration::from_secs(60), Some(310), &mut |_| {});
//! assert_eq!(fuzzer.progress().cases, 310);
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use arbitrary::Unstructured;
use markerspec_pep508::generate::{self, Options};
use markerspec_pep508::{MarkerTree, ParseOptions};
use serde_json::{Value, json};

use crate::builtin::Markerspec;
use crate::case::{Case, Cases, Dialect, DocValue, EnvDocument, Expected, Kind, Profile};
use crate::runner::{Evaluated, Implementation, Parsed, Request, TestResult, construct, shape};

/// How the fuzzer runs.
///
/// See the example in the [module documentation](crate::fuzz).
#[derive(Debug, Clone)]
pub struct Settings {
    /// The seed: the same seed gives the same cases in the same order.
    pub seed: u64,
    /// The dialect of the generated cases.
    pub dialect: Dialect,
    /// The most calls to an implementation spent shrinking one finding.
    pub shrink_budget: usize,
    /// Ask each target every shipped vector case first, so that findings the conformance
    /// suite already shows are reported as known (a few seconds per adapter).
    pub learn_known: bool,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            seed: 0,
            dialect: Dialect::Pep508,
            shrink_budget: 1000,
            learn_known: true,
        }
    }
}

/// An implementation under test, with the profile its answers are compared under.
///
/// See the example in the [module documentation](crate::fuzz).
pub struct Target {
    imp: Box<dyn Implementation>,
    name: String,
    version: String,
    profile: Profile,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("profile", &self.profile)
            .finish()
    }
}

impl Target {
    /// `imp`, reported as `name` `version`, compared with markerspec under `profile`.
    ///
    /// See the example in the [module documentation](crate::fuzz).
    pub fn new(
        imp: Box<dyn Implementation>,
        name: &str,
        version: &str,
        profile: Profile,
    ) -> Target {
        Target {
            imp,
            name: name.to_string(),
            version: version.to_string(),
            profile,
        }
    }

    /// The implementation's name.
    ///
    /// See the example in the [module documentation](crate::fuzz).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The profile its answers are compared under.
    ///
    /// See the example in the [module documentation](crate::fuzz).
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// Why the implementation was given up, if it was (an adapter that hung three times in a
    /// row): it is asked nothing more.
    ///
    /// See the example in the [module documentation](crate::fuzz).
    pub fn given_up(&self) -> Option<&str> {
        self.imp.given_up()
    }
}

/// Which kind of answer differed.
///
/// See the example in the [module documentation](crate::fuzz).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Check {
    /// One accepts the input, the other rejects it.
    Parse,
    /// Both accept it and evaluate it differently.
    Result,
    /// The implementation crashed, hung, broke the protocol or reported its own failure.
    Crash,
}

impl Check {
    /// The check's name.
    ///
    /// See the example in the [module documentation](crate::fuzz).
    pub fn as_str(self) -> &'static str {
        match self {
            Check::Parse => "parse",
            Check::Result => "result",
            Check::Crash => "crash",
        }
    }
}

/// One case: the input, how to read it, and the environment.
///
/// See the example in the [module documentation](crate::fuzz).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FuzzCase {
    /// `marker` or `requirement`.
    pub kind: Kind,
    /// The text.
    pub input: String,
    /// The dialect.
    pub dialect: Dialect,
    /// The environment document, without `extra`.
    pub environment: EnvDocument,
    /// The requested extras.
    pub extras: Vec<String>,
}

impl FuzzCase {
    fn case(&self) -> Case {
        Case::adhoc(
            self.kind,
            self.input.clone(),
            self.dialect,
            false,
            self.environment.clone(),
            self.extras.clone(),
        )
    }
}

/// What the two sides answered, in words, and how they differ.
///
/// See the example in the [module documentation](crate::fuzz).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disagreement {
    /// Which kind of answer differed.
    pub check: Check,
    /// markerspec's answer (`accepts`, `rejects (M002: …)`, `true`, `error (E002)`).
    pub markerspec: String,
    /// The implementation's answer.
    pub other: String,
    /// The implementation's answer as a vector outcome (`None` for a crash).
    pub outcome: Option<Value>,
    /// markerspec's answer as a vector outcome.
    pub markerspec_outcome: Option<Value>,
}

impl Disagreement {
    /// The direction of the difference, without the messages: `markerspec accepts, tool
    /// rejects`, `markerspec true, tool false`, `crash: <message shape>`.
    ///
    /// See the example in the [module documentation](crate::fuzz).
    pub fn direction(&self) -> String {
        let head = |s: &str| s.split(" (").next().unwrap_or(s).to_string();
        match self.check {
            Check::Crash => shape(self.other.strip_prefix("crash: ").unwrap_or(&self.other)),
            _ => format!(
                "markerspec {}, tool {}",
                head(&self.markerspec),
                head(&self.other)
            ),
        }
    }
}

/// A shrunk finding.
///
/// See the example in the [module documentation](crate::fuzz).
#[derive(Debug, Clone)]
pub struct Finding {
    /// The implementation.
    pub target: String,
    /// The profile compared under.
    pub profile: Profile,
    /// The shrunk case.
    pub example: FuzzCase,
    /// The case as generated.
    pub original: String,
    /// How the answers differ on the shrunk case.
    pub disagreement: Disagreement,
    /// The index of the generated case (reproducible from the seed).
    pub index: u64,
}

/// Findings with one signature: the implementation, the check, the direction and the
/// construct of the shrunk input (`version field ==`), largest group first.
///
/// See the example in the [module documentation](crate::fuzz).
#[derive(Debug, Clone)]
pub struct Group {
    /// `tool / check / direction / construct`.
    pub signature: String,
    /// How many generated cases ended in this group.
    pub count: usize,
    /// The smallest shrunk example.
    pub example: FuzzCase,
    /// Its finding.
    pub finding: Finding,
    /// The vector case that already shows a disagreement with this signature (or that has
    /// the same input), if one does: the finding is then known.
    pub known_as: Option<String>,
}

/// Counters of a run.
///
/// See the example in the [module documentation](crate::fuzz).
#[derive(Debug, Clone, Default)]
pub struct Progress {
    /// Cases generated and run.
    pub cases: u64,
    /// Cases where some implementation disagreed.
    pub disagreements: u64,
    /// Distinct groups so far.
    pub groups: usize,
    /// Cases an implementation skipped.
    pub skipped: u64,
}

/// The fuzzer: the targets, markerspec, and the findings so far.
///
/// See the example in the [module documentation](crate::fuzz).
pub struct Fuzzer {
    targets: Vec<Target>,
    builtin: Markerspec,
    settings: Settings,
    known_inputs: BTreeSet<(&'static str, String)>,
    known_signatures: BTreeMap<String, String>,
    groups: BTreeMap<String, Group>,
    progress: Progress,
    per_target: BTreeMap<String, (u64, u64)>,
}

impl std::fmt::Debug for Fuzzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fuzzer")
            .field("targets", &self.targets)
            .field("settings", &self.settings)
            .field("progress", &self.progress)
            .finish()
    }
}

impl Fuzzer {
    /// A fuzzer over `targets`. Each target is first asked every shipped vector case (outside
    /// lock files): a finding with the signature of a disagreement seen there is known, as is
    /// one whose input is a vector's.
    ///
    /// See the example in the [module documentation](crate::fuzz).
    pub fn new(targets: Vec<Target>, settings: Settings) -> Fuzzer {
        let all = Cases::all();
        let known_inputs = all
            .iter()
            .map(|c| (c.kind().as_str(), c.input().to_string()))
            .collect();
        let mut fuzzer = Fuzzer {
            targets,
            builtin: Markerspec::new(),
            settings,
            known_inputs,
            known_signatures: BTreeMap::new(),
            groups: BTreeMap::new(),
            progress: Progress::default(),
            per_target: BTreeMap::new(),
        };
        if fuzzer.settings.learn_known {
            fuzzer.learn_known(&all);
        }
        fuzzer
    }

    /// Runs every vector case (outside lock files) through markerspec and each target, and
    /// remembers the signature of each disagreement with the case that shows it: a finding
    /// with the same signature is already visible in the conformance suite (as a failure, or
    /// as a declared divergence).
    fn learn_known(&mut self, all: &Cases) {
        for t in 0..self.targets.len() {
            let profile = self.targets[t].profile;
            let cases: Vec<(String, FuzzCase)> = all
                .iter()
                .filter(|c| !c.lock_file())
                .map(|c| {
                    (
                        c.full_name().to_string(),
                        FuzzCase {
                            kind: c.kind(),
                            input: c.input().to_string(),
                            dialect: c.dialect(),
                            environment: c.environment().clone(),
                            extras: c.extras().to_vec(),
                        },
                    )
                })
                .collect();
            for (name, case) in cases {
                if !self.targets[t].imp.supports(profile, case.dialect) {
                    continue;
                }
                if let Answer::Differs(d) =
                    compare(&mut self.builtin, &mut *self.targets[t].imp, profile, &case)
                {
                    let sig = signature(&self.targets[t].name, &d, &case);
                    self.known_signatures.entry(sig).or_insert(name);
                }
            }
        }
    }

    /// The counters so far.
    ///
    /// See the example in the [module documentation](crate::fuzz).
    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    /// Per target: (cases where it disagreed, cases it skipped).
    ///
    /// See the example in the [module documentation](crate::fuzz).
    pub fn per_target(&self) -> &BTreeMap<String, (u64, u64)> {
        &self.per_target
    }

    /// The targets.
    ///
    /// See the example in the [module documentation](crate::fuzz).
    pub fn targets(&self) -> &[Target] {
        &self.targets
    }

    /// Runs `n` more cases, calling `tick` after each.
    ///
    /// See the example in the [module documentation](crate::fuzz).
    pub fn run_cases(&mut self, n: u64, tick: &mut dyn FnMut(&Progress)) {
        for _ in 0..n {
            self.step();
            tick(&self.progress);
        }
    }

    /// Runs cases until `duration` has passed (or `max` cases ran), calling `tick` after each.
    ///
    /// See the example in the [module documentation](crate::fuzz).
    pub fn run_for(
        &mut self,
        duration: Duration,
        max: Option<u64>,
        tick: &mut dyn FnMut(&Progress),
    ) {
        let end = Instant::now() + duration;
        while Instant::now() < end && max.is_none_or(|m| self.progress.cases < m) {
            self.step();
            tick(&self.progress);
        }
    }

    /// The groups, largest first (then by signature).
    ///
    /// See the example in the [module documentation](crate::fuzz).
    pub fn groups(&self) -> Vec<Group> {
        let mut g: Vec<Group> = self.groups.values().cloned().collect();
        g.sort_by(|a, b| b.count.cmp(&a.count).then(a.signature.cmp(&b.signature)));
        g
    }

    /// The case with index `index` of this seed.
    ///
    /// See the example in the [module documentation](crate::fuzz).
    pub fn generate(&self, index: u64) -> FuzzCase {
        generate_case(self.settings.seed, index, self.settings.dialect)
    }

    fn step(&mut self) {
        let index = self.progress.cases;
        let case = self.generate(index);
        self.progress.cases += 1;
        let mut disagreed = false;
        for t in 0..self.targets.len() {
            let profile = self.targets[t].profile;
            // An adapter given up (it hung three times in a row) is asked nothing more.
            if !self.targets[t].imp.supports(profile, case.dialect)
                || self.targets[t].imp.given_up().is_some()
            {
                continue;
            }
            let name = self.targets[t].name.clone();
            match compare(&mut self.builtin, &mut *self.targets[t].imp, profile, &case) {
                Answer::Same => {}
                Answer::Skipped => {
                    self.progress.skipped += 1;
                    self.per_target.entry(name).or_default().1 += 1;
                }
                Answer::Differs(d) => {
                    disagreed = true;
                    self.per_target.entry(name.clone()).or_default().0 += 1;
                    // A disagreement whose signature, unshrunk, is a group's already is
                    // counted there without shrinking it again.
                    let quick = signature(&name, &d, &case);
                    if let Some(g) = self.groups.get_mut(&quick) {
                        g.count += 1;
                        continue;
                    }
                    let (example, d) = self.shrink(t, &case, d);
                    let signature = signature(&name, &d, &example);
                    let finding = Finding {
                        target: name,
                        profile,
                        original: case.input.clone(),
                        example: example.clone(),
                        disagreement: d,
                        index,
                    };
                    let known_as = self.known_signatures.get(&signature).cloned().or_else(|| {
                        self.known_inputs
                            .contains(&(example.kind.as_str(), example.input.clone()))
                            .then(|| "a vector with this input".to_string())
                    });
                    let g = self.groups.entry(signature.clone()).or_insert(Group {
                        signature,
                        count: 0,
                        example: example.clone(),
                        finding: finding.clone(),
                        known_as: known_as.clone(),
                    });
                    g.count += 1;
                    if example.input.len() < g.example.input.len() {
                        g.example = example;
                        g.finding = finding;
                    }
                }
            }
        }
        if disagreed {
            self.progress.disagreements += 1;
        }
        self.progress.groups = self.groups.len();
    }

    /// Shrinks a disagreement of target `t` on `case`: first to a single comparison of the
    /// parsed marker (the tree), then by deleting runs of tokens and pairs of parentheses,
    /// then single characters (delta debugging), keeping each change that leaves a
    /// disagreement of the same check and direction.
    fn shrink(&mut self, t: usize, case: &FuzzCase, d: Disagreement) -> (FuzzCase, Disagreement) {
        let want = (d.check, d.direction());
        let profile = self.targets[t].profile;
        let mut budget = self.settings.shrink_budget;
        let mut best = (case.clone(), d);
        let builtin = &mut self.builtin;
        let imp = &mut *self.targets[t].imp;
        let mut holds = |input: &str, budget: &mut usize| -> Option<Disagreement> {
            if *budget == 0 {
                return None;
            }
            *budget -= 1;
            let candidate = FuzzCase {
                input: input.to_string(),
                ..case.clone()
            };
            match compare(builtin, imp, profile, &candidate) {
                Answer::Differs(d) if (d.check, d.direction()) == want => Some(d),
                _ => None,
            }
        };
        // Parentheses around the whole marker, every layer at once.
        if let Some(candidate) = unwrapped(&best.0.input) {
            if let Some(d) = holds(&candidate, &mut budget) {
                best = (
                    FuzzCase {
                        input: candidate,
                        ..case.clone()
                    },
                    d,
                );
            }
        }
        // The tree: each comparison on its own (for a requirement, with its name).
        for candidate in clauses(case) {
            if candidate.len() < best.0.input.len() {
                if let Some(d) = holds(&candidate, &mut budget) {
                    best = (
                        FuzzCase {
                            input: candidate,
                            ..case.clone()
                        },
                        d,
                    );
                    break;
                }
            }
        }
        // Delta debugging on tokens (a quoted string is one token): remove each of n
        // chunks, n doubling while nothing goes.
        let mut tokens = tokenize(&best.0.input);
        let mut n = 2usize;
        while tokens.len() >= 2 && budget > 0 {
            let chunk = tokens.len().div_ceil(n);
            let mut reduced = false;
            let mut start = 0;
            while start < tokens.len() && budget > 0 {
                let end = (start + chunk).min(tokens.len());
                let candidate: String = tokens[..start]
                    .iter()
                    .chain(&tokens[end..])
                    .map(String::as_str)
                    .collect();
                if let Some(d) = holds(&candidate, &mut budget) {
                    best = (
                        FuzzCase {
                            input: candidate,
                            ..case.clone()
                        },
                        d,
                    );
                    tokens = tokenize(&best.0.input);
                    reduced = true;
                } else {
                    start = end;
                }
            }
            if reduced {
                n = n.saturating_sub(1).max(2);
            } else if chunk <= 1 {
                break;
            } else {
                n = (n * 2).min(tokens.len());
            }
        }
        // Pairs of matching parentheses, then runs of one to eight tokens wherever they
        // start (those the chunks straddled), a scan per length, until a round removes nothing.
        let mut changed = true;
        while changed && budget > 0 {
            changed = false;
            let mut p = 0;
            loop {
                let tokens = tokenize(&best.0.input);
                let pairs = paren_pairs(&tokens);
                let Some(&(open, close)) = pairs.get(p) else {
                    break;
                };
                let candidate: String = tokens
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != open && *j != close)
                    .map(|(_, t)| t.as_str())
                    .collect();
                match holds(&candidate, &mut budget) {
                    Some(d) => {
                        best = (
                            FuzzCase {
                                input: candidate,
                                ..case.clone()
                            },
                            d,
                        );
                        changed = true;
                    }
                    None if budget == 0 => break,
                    None => p += 1,
                }
            }
            for k in (1..=8usize).rev() {
                let mut i = 0;
                loop {
                    let tokens = tokenize(&best.0.input);
                    if i + k > tokens.len() || budget == 0 {
                        break;
                    }
                    let candidate: String = tokens[..i]
                        .iter()
                        .chain(&tokens[i + k..])
                        .map(String::as_str)
                        .collect();
                    match holds(&candidate, &mut budget) {
                        Some(d) => {
                            best = (
                                FuzzCase {
                                    input: candidate,
                                    ..case.clone()
                                },
                                d,
                            );
                            changed = true;
                        }
                        None => i += 1,
                    }
                }
            }
        }
        // Then single characters (inside strings too).
        let mut i = 0;
        while budget > 0 {
            let chars: Vec<char> = best.0.input.chars().collect();
            if i >= chars.len() {
                break;
            }
            let candidate: String = chars[..i].iter().chain(&chars[i + 1..]).collect();
            if let Some(d) = holds(&candidate, &mut budget) {
                best = (
                    FuzzCase {
                        input: candidate,
                        ..case.clone()
                    },
                    d,
                );
            } else {
                i += 1;
            }
        }
        best
    }

    /// The groups as a vector file (`spec/vectors/schema.json`): one case per group not
    /// already known, category `findings`, named `finding-NNN` from `first_number`, pinning
    /// under the target's profile the answer of the implementation the profile is recorded
    /// from ([`reference_of`]): the target's own when it is that implementation (markerspec
    /// then has a profile bug to fix or a divergence to declare), markerspec's otherwise (the
    /// target then fails the case, crashes included). A crash of the reference pins nothing
    /// and is left to the report.
    ///
    /// See the example in the [module documentation](crate::fuzz).
    pub fn vectors(&self, first_number: usize) -> Value {
        let mut cases = Vec::new();
        let mut n = first_number;
        for g in self.groups().iter().filter(|g| g.known_as.is_none()) {
            let f = &g.finding;
            // The implementation a profile is recorded from defines it: its answer is what
            // the profile must give. Any other implementation claiming the profile is measured
            // against markerspec's answer, which is the reference's as modelled.
            let defines = reference_of(f.profile) == Some(f.target.as_str());
            let outcome = if defines {
                &f.disagreement.outcome
            } else {
                &f.disagreement.markerspec_outcome
            };
            let Some(outcome) = outcome else {
                continue;
            };
            let version = self
                .targets
                .iter()
                .find(|t| t.name == f.target)
                .map_or(String::new(), |t| t.version.clone());
            let mut env = serde_json::Map::new();
            for (k, v) in &f.example.environment {
                env.insert(k.clone(), serde_json::to_value(v).unwrap_or(Value::Null));
            }
            let mut case = json!({
                "name": format!("finding-{n}"),
                "category": "findings",
                "kind": f.example.kind.as_str(),
                "input": f.example.input,
                "dialect": f.example.dialect.as_str(),
                "see": format!(
                    "markerspec fuzz --seed {} (case {}): {} {} answers differently from markerspec's `{}` profile",
                    self.settings.seed, f.index, f.target, version, f.profile
                ),
                "note": format!(
                    "{} {}: {}; markerspec: {}",
                    f.target, version, f.disagreement.other, f.disagreement.markerspec
                ),
                "expect": { f.profile.as_str(): outcome },
            });
            if f.disagreement.check == Check::Result {
                case["environment"] = Value::Object(env);
                case["extras"] = json!(f.example.extras);
            }
            cases.push(case);
            n += 1;
        }
        json!({
            "description": "Disagreements found by `markerspec fuzz`, shrunk: each pins the other implementation's answer under the profile that follows it.",
            "cases": cases,
        })
    }

    /// A JSON report: settings, counters and every group with its example.
    ///
    /// See the example in the [module documentation](crate::fuzz).
    pub fn report(&self) -> Value {
        json!({
            "seed": self.settings.seed,
            "cases": self.progress.cases,
            "disagreements": self.progress.disagreements,
            "targets": self.targets.iter().map(|t| {
                let (d, s) = self.per_target.get(&t.name).copied().unwrap_or_default();
                json!({"name": t.name, "version": t.version, "profile": t.profile.as_str(),
                       "disagreements": d, "skipped": s})
            }).collect::<Vec<_>>(),
            "groups": self.groups().iter().map(|g| json!({
                "signature": g.signature,
                "count": g.count,
                "known_as": g.known_as,
                "target": g.finding.target,
                "profile": g.finding.profile.as_str(),
                "check": g.finding.disagreement.check.as_str(),
                "kind": g.example.kind.as_str(),
                "input": g.example.input,
                "original": g.finding.original,
                "index": g.finding.index,
                "markerspec": g.finding.disagreement.markerspec,
                "other": g.finding.disagreement.other,
                "environment": if g.finding.disagreement.check == Check::Result {
                    serde_json::to_value(&g.example.environment).unwrap_or(Value::Null)
                } else { Value::Null },
                "extras": g.example.extras,
            })).collect::<Vec<_>>(),
        })
    }
}

/// The implementation a profile is recorded from (its name in the adapter handshake):
/// `packaging` for [`Profile::Packaging`], `uv-pep508` for [`Profile::Uv`].
///
/// See the example in the [module documentation](crate::fuzz).
pub fn reference_of(profile: Profile) -> Option<&'static str> {
    match profile {
        Profile::Packaging => Some("packaging"),
        Profile::Uv => Some("uv-pep508"),
        _ => None,
    }
}

/// The signature findings are grouped by: the target, the check, the direction, and what
/// tells causes apart: for a parse difference, the shape of the rejecting side's message
/// (quoted text and numbers blanked); for a result, the construct of the input (`version
/// field ==`); for a crash, its message shape (in the direction).
///
/// See the example in the [module documentation](crate::fuzz).
pub fn signature(target: &str, d: &Disagreement, case: &FuzzCase) -> String {
    let detail = match d.check {
        Check::Parse => {
            let rejecting = if d.markerspec.starts_with("rejects") {
                &d.markerspec
            } else {
                &d.other
            };
            let message = rejecting
                .strip_prefix("rejects (")
                .and_then(|m| m.strip_suffix(')'))
                .unwrap_or(rejecting);
            shape(message)
        }
        Check::Result => construct(&case.input, case.kind == Kind::Requirement),
        Check::Crash => String::new(),
    };
    format!(
        "{target} / {} / {} / {detail}",
        d.check.as_str(),
        d.direction()
    )
    .trim_end_matches(" / ")
    .to_string()
}

/// Each comparison of the case's marker alone, printed (a requirement keeps its name).
fn clauses(case: &FuzzCase) -> Vec<String> {
    let opts = ParseOptions::default().dialect(case.dialect);
    let (prefix, marker_text) = match case.kind {
        Kind::Marker => (String::new(), case.input.as_str()),
        Kind::Requirement => match case.input.split_once(';') {
            Some((head, m)) => (format!("{}; ", head.trim_end()), m),
            None => return Vec::new(),
        },
    };
    let Ok(tree) = MarkerTree::parse_with(marker_text, &opts, &mut |_| {}) else {
        return Vec::new();
    };
    let mut out: Vec<String> = tree
        .expressions()
        .iter()
        .map(|e| format!("{prefix}{e}"))
        .collect();
    out.sort_by_key(String::len);
    out.dedup();
    out
}

/// The text cut into tokens: quoted strings (with their quotes), runs of word characters,
/// runs of whitespace, and single other characters. Joined, they give the text back.
fn tokenize(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let mut t = String::from(c);
        if c == '"' || c == '\'' {
            for d in chars.by_ref() {
                t.push(d);
                if d == c {
                    break;
                }
            }
        } else if c.is_alphanumeric() || c == '_' || c == '.' {
            while let Some(&d) = chars.peek() {
                if !(d.is_alphanumeric() || d == '_' || d == '.') {
                    break;
                }
                t.push(d);
                chars.next();
            }
        } else if c.is_whitespace() {
            while let Some(&d) = chars.peek() {
                if !d.is_whitespace() {
                    break;
                }
                t.push(d);
                chars.next();
            }
        }
        out.push(t);
    }
    out
}

/// The text without the parentheses that enclose the whole marker (after a requirement's
/// `;`), every layer, if there are any.
fn unwrapped(text: &str) -> Option<String> {
    let start = text.find(';').map_or(0, |i| i + 1);
    let (head, mut marker) = text.split_at(start);
    let mut layers = 0;
    loop {
        let trimmed = marker.trim();
        let Some(inner) = trimmed.strip_prefix('(').and_then(|t| t.strip_suffix(')')) else {
            break;
        };
        // The first `(` must close at the last `)`.
        let tokens = tokenize(trimmed);
        let closes_last = paren_pairs(&tokens)
            .iter()
            .any(|&(open, close)| open == 0 && close == tokens.len() - 1);
        if !closes_last {
            break;
        }
        marker = inner;
        layers += 1;
    }
    (layers > 0).then(|| {
        format!(
            "{head}{}",
            if head.is_empty() {
                marker.trim()
            } else {
                marker
            }
        )
    })
}

/// The indexes of matching `(` and `)` tokens.
fn paren_pairs(tokens: &[String]) -> Vec<(usize, usize)> {
    let mut stack = Vec::new();
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        match t.as_str() {
            "(" => stack.push(i),
            ")" => {
                if let Some(open) = stack.pop() {
                    out.push((open, i));
                }
            }
            _ => {}
        }
    }
    out
}

/// The `index`-th generated case of `seed`: a marker (60%) or a requirement, valid (half),
/// a near miss (a third) or from the odd corners, with an environment a real interpreter
/// could report, sometimes holding the marker's own literals.
///
/// See the example in the [module documentation](crate::fuzz).
pub fn generate_case(seed: u64, index: u64, dialect: Dialect) -> FuzzCase {
    let bytes = generate::seeded_bytes(generate::case_seed(seed, index), 4096);
    let mut u = Unstructured::new(&bytes);
    let mode = u.int_in_range(0u8..=5).unwrap_or(0);
    let options = if mode == 5 {
        Options::fuzz().dialect(dialect)
    } else {
        Options::valid().dialect(dialect)
    };
    let requirement = u.ratio(2, 5).unwrap_or(false);
    let (mut input, literals) = if requirement {
        (
            generate::requirement(&mut u, &options).unwrap_or_else(|_| "a".into()),
            Vec::new(),
        )
    } else {
        generate::marker(&mut u, &options)
            .map(|m| (m.text, m.literals))
            .unwrap_or_else(|_| ("os_name == 'nt'".into(), Vec::new()))
    };
    if mode == 3 || mode == 4 {
        if let Ok(m) = generate::near_miss(&mut u, &input) {
            input = m.text;
        }
    }
    let env =
        generate::realistic_environment(&mut u, &Options::valid().dialect(dialect), &literals)
            .unwrap_or_default();
    let (environment, extras) = document(&env);
    FuzzCase {
        kind: if requirement {
            Kind::Requirement
        } else {
            Kind::Marker
        },
        input,
        dialect,
        environment,
        extras,
    }
}

/// An environment as a protocol document, and its extras.
fn document(env: &markerspec_pep508::Environment) -> (EnvDocument, Vec<String>) {
    let mut doc: EnvDocument = serde_json::to_value(env)
        .ok()
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default();
    let extras = match doc.remove("extra") {
        Some(DocValue::List(l)) => l,
        Some(DocValue::String(s)) if !s.is_empty() => vec![s],
        _ => Vec::new(),
    };
    (doc, extras)
}

enum Answer {
    Same,
    Skipped,
    Differs(Disagreement),
}

fn words_parsed(p: &Parsed) -> String {
    match p {
        Parsed::Valid { .. } => "accepts".into(),
        Parsed::Invalid { code, message } => {
            let detail: Vec<&str> = [code.as_deref(), message.as_deref()]
                .into_iter()
                .flatten()
                .collect();
            if detail.is_empty() {
                "rejects".into()
            } else {
                format!("rejects ({})", first_line(&detail.join(": ")))
            }
        }
    }
}

fn first_line(s: &str) -> String {
    let l = s.lines().next().unwrap_or("");
    l.chars().take(160).collect()
}

/// Whether two results agree: errors match errors whatever their code.
fn same_result(a: &Expected, b: &Expected) -> bool {
    match (a, b) {
        (Expected::Error(_), Expected::Error(_)) => true,
        _ => a == b,
    }
}

fn words_result(r: &Expected, message: &Option<String>) -> String {
    match (r, message) {
        (Expected::Error(_), Some(m)) => format!("error ({})", first_line(m)),
        (Expected::Error(_), None) => "error".into(),
        _ => r.to_string(),
    }
}

fn crash<T>(r: &TestResult<T>) -> Option<String> {
    match r {
        TestResult::Crash(m) | TestResult::Fail(m) => Some(first_line(m)),
        _ => None,
    }
}

fn catch<T>(f: impl FnOnce() -> TestResult<T>) -> TestResult<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|_| TestResult::Crash("panicked".into()))
}

/// Asks both sides to parse the case and, when both accept it, to evaluate it.
fn compare(
    builtin: &mut Markerspec,
    imp: &mut dyn Implementation,
    profile: Profile,
    fc: &FuzzCase,
) -> Answer {
    let case = fc.case();
    let request = Request {
        case: &case,
        profile,
    };
    let ours = builtin.parse(&request);
    let theirs = catch(|| imp.parse(&request));
    let parsed_outcome = |p: &Parsed| match p {
        Parsed::Valid { .. } => json!({}),
        Parsed::Invalid { code: Some(c), .. } => json!({"parses": false, "error": c}),
        Parsed::Invalid { .. } => json!({"parses": false}),
    };
    if let Some(m) = crash(&theirs) {
        return Answer::Differs(Disagreement {
            check: Check::Crash,
            markerspec: match &ours {
                TestResult::Ok(p) => words_parsed(p),
                _ => "crash".into(),
            },
            other: m,
            outcome: None,
            markerspec_outcome: match &ours {
                TestResult::Ok(p) => Some(parsed_outcome(p)),
                _ => None,
            },
        });
    }
    let (TestResult::Ok(ours), TestResult::Ok(theirs)) = (ours, theirs) else {
        return Answer::Skipped;
    };
    match (&ours, &theirs) {
        (Parsed::Valid { .. }, Parsed::Invalid { .. })
        | (Parsed::Invalid { .. }, Parsed::Valid { .. }) => {
            let outcome = parsed_outcome;
            return Answer::Differs(Disagreement {
                check: Check::Parse,
                markerspec: words_parsed(&ours),
                other: words_parsed(&theirs),
                outcome: Some(outcome(&theirs)),
                markerspec_outcome: Some(outcome(&ours)),
            });
        }
        (Parsed::Invalid { .. }, Parsed::Invalid { .. }) => return Answer::Same,
        _ => {}
    }
    let ours = builtin.evaluate(&request);
    let theirs = catch(|| imp.evaluate(&request));
    if let Some(m) = crash(&theirs) {
        return Answer::Differs(Disagreement {
            check: Check::Crash,
            markerspec: "accepts".into(),
            other: m,
            outcome: None,
            markerspec_outcome: None,
        });
    }
    match (ours, theirs) {
        (
            TestResult::Ok(Evaluated::Result {
                result: a,
                message: ma,
            }),
            TestResult::Ok(Evaluated::Result {
                result: b,
                message: mb,
            }),
        ) => {
            if same_result(&a, &b) {
                Answer::Same
            } else {
                let result = |r: &Expected| match r {
                    Expected::Error(code) => json!({"result": {"error": code}}),
                    other => json!({"result": other.to_json()}),
                };
                Answer::Differs(Disagreement {
                    check: Check::Result,
                    markerspec: words_result(&a, &ma),
                    other: words_result(&b, &mb),
                    outcome: Some(result(&b)),
                    markerspec_outcome: Some(result(&a)),
                })
            }
        }
        (TestResult::Ok(_), TestResult::Ok(_)) => Answer::Same,
        _ => Answer::Skipped,
    }
}
