//! Evaluation: each comparison under the tree's profile ([`crate::profile`]), Kleene logic
//! over the tree.
//!
//! Under a profile whose comparisons can fail (`packaging`), every comparison of a tree is
//! evaluated, even where the result is already decided, so a comparison that is undefined
//! (`E002`) is reported whatever the environment, as pypa/packaging does.

use crate::compare::precompile;
use crate::environment::{Environment, EvalEnv};
use crate::error::{Error, ErrorKind};
use crate::lower::{Comparison, Fast, Lowered};
use crate::marker::MarkerTree;
use crate::name::normalize_name;
use crate::options::{EvalOptions, Profile, UnknownPolicy};
use crate::requirement::Requirement;
use crate::span::Span;
use crate::syntax::{MarkerExpression, MarkerNode};
use crate::truth::{Evaluation, T_FALSE, T_TRUE, T_UNKNOWN, Tri};

impl MarkerTree {
    /// Evaluates the marker to a `bool` under the profile it was parsed with; an unknown result
    /// is an error (`E004`).
    ///
    /// ```
    /// use markerspec_pep508::{Environment, Field, MarkerTree, ParseOptions, Profile};
    /// let env = Environment::new().with(Field::PythonVersion, "3.11").unwrap();
    /// let text = r#"python_version in "3.10 3.11""#;
    /// // packaging reads `in` on a version as a substring test; spec-2026 as false.
    /// let packaging = ParseOptions::default().profile(Profile::Packaging);
    /// let m = MarkerTree::parse_with(text, &packaging, &mut Vec::new()).unwrap();
    /// assert!(m.evaluate(&env).unwrap());
    /// assert!(!text.parse::<MarkerTree>().unwrap().evaluate(&env).unwrap());
    /// ```
    ///
    /// # Errors
    /// `E001` when (under the `packaging` profile) the environment lacks a field the marker
    /// reads, `E002` for an undefined comparison, `E003` for `extras`/`dependency_groups`
    /// outside a lock-file context (`packaging` profile), `E004` when the result is unknown.
    /// Render them with [`Error::render`] and the text the marker was parsed from.
    #[inline]
    pub fn evaluate(&self, env: &Environment) -> Result<bool, Error> {
        self.evaluate_with(env, EvalOptions::default())
    }

    /// Evaluates the marker to a `bool` with `options`.
    ///
    /// # Errors
    /// As [`MarkerTree::evaluate`]; `E004` only under [`UnknownPolicy::Error`].
    #[inline]
    pub fn evaluate_with(&self, env: &Environment, options: EvalOptions) -> Result<bool, Error> {
        self.evaluate_in(&env.eval(), options)
    }

    /// Evaluates the marker to a `bool` with `extras` requested instead of the environment's
    /// own (names are normalised; the environment is not copied): how a resolver evaluates one
    /// requirement for several sets of extras.
    ///
    /// ```
    /// use markerspec_pep508::{Environment, MarkerTree};
    /// let m: MarkerTree = "extra == 'gpu'".parse().unwrap();
    /// let env = Environment::new();
    /// assert!(m.evaluate_with_extras(&env, &["GPU"]).unwrap());
    /// assert!(!m.evaluate_with_extras(&env, &[] as &[&str]).unwrap());
    /// ```
    ///
    /// # Errors
    /// As [`MarkerTree::evaluate`].
    pub fn evaluate_with_extras<S: AsRef<str>>(
        &self,
        env: &Environment,
        extras: &[S],
    ) -> Result<bool, Error> {
        let extras = requested(extras);
        self.evaluate_in(&EvalEnv::with_extras(env, &extras), EvalOptions::default())
    }

    #[inline]
    fn evaluate_in(&self, env: &EvalEnv<'_>, options: EvalOptions) -> Result<bool, Error> {
        let tri = match (self.node(), self.lowered()) {
            (MarkerNode::Expression(e), Lowered::Cmp(c)) => c.view(e).eval(env, self.profile()),
            (node, lowered) => eval_node(node, lowered, env, self.profile()),
        }
        .map_err(|f| f.into_error())?;
        match (tri.truth_bits(), options.unknown) {
            (T_TRUE, _) | (T_UNKNOWN, UnknownPolicy::True) => Ok(true),
            (T_FALSE, _) | (T_UNKNOWN, UnknownPolicy::False) => Ok(false),
            _ => Err(self.unknown_error(tri.evaluation())),
        }
    }

    #[cold]
    fn unknown_error(&self, e: Evaluation) -> Error {
        // The whole marker, as far as the parsed comparisons tell.
        let exprs = self.expressions();
        let start = exprs.iter().map(|e| e.span.start).min().unwrap_or(0);
        let end = exprs.iter().map(|e| e.span.end).max().unwrap_or(0);
        Error::new(
            ErrorKind::UnknownResult {
                fields: e.unknown.iter().collect(),
            },
            Span::new(start, end),
        )
    }

    /// Evaluates the marker with three values under the profile it was parsed with (Kleene
    /// logic: `False and Unknown` is False, `True or Unknown` is True).
    ///
    /// Under [`Profile::Packaging`] every comparison is evaluated, even once the result is
    /// decided, so that an undefined comparison is reported whatever the environment, as
    /// pypa/packaging does. Under [`Profile::Spec2026`] a marker cannot fail to evaluate, and
    /// evaluation stops once the result is decided; nor can one parsed with [`Profile::Uv`].
    /// The set of unknown fields never depends on evaluation order.
    ///
    /// ```
    /// use markerspec_pep508::{Dialect, EnvValue, Environment, Field, MarkerTree, ParseOptions, Truth};
    /// let opts = ParseOptions::default().dialect(Dialect::Extended);
    /// let text = "os_name == 'nt' and cuda_version >= '12'";
    /// let m = MarkerTree::parse_with(text, &opts, &mut Vec::new()).unwrap();
    /// let mut env = Environment::new().with(Field::OsName, "nt").unwrap();
    /// env.set(Field::CudaVersion, EnvValue::Unknown).unwrap();
    /// let e = m.evaluate_tristate(&env).unwrap();
    /// assert_eq!(e.truth, Truth::Unknown);
    /// assert_eq!(e.unknown.iter().collect::<Vec<_>>(), [Field::CudaVersion]);
    /// ```
    ///
    /// # Errors
    /// As [`MarkerTree::evaluate`], without `E004`.
    pub fn evaluate_tristate(&self, env: &Environment) -> Result<Evaluation, Error> {
        eval_node(self.node(), self.lowered(), &env.eval(), self.profile())
            .map(Tri::evaluation)
            .map_err(|f| f.into_error())
    }
}

impl MarkerExpression {
    /// Evaluates this one comparison with three values under `profile` (a comparison does not
    /// remember its profile; the tree it came from does, see [`MarkerTree::profile`]). The
    /// comparison is lowered for each call; a [`MarkerTree`] is lowered once, when it is built.
    ///
    /// # Errors
    /// As [`MarkerTree::evaluate`], without `E004`.
    pub fn evaluate(&self, env: &Environment, profile: Profile) -> Result<Evaluation, Error> {
        eval_fresh(self, &env.eval(), profile)
            .map(Tri::evaluation)
            .map_err(|f| f.into_error())
    }
}

impl Comparison<'_> {
    /// One comparison. The match tests only for the default profile, so that `eval_node`'s
    /// loop is specialised for it; the others are dispatched out of line through the rules
    /// table.
    #[inline(always)]
    fn eval(&self, env: &EvalEnv<'_>, profile: Profile) -> Result<Tri, Box<Failure>> {
        let r = match profile {
            Profile::Spec2026 => crate::profile::spec2026::compare(self, env),
            Profile::Packaging | Profile::Uv => other(self, env, profile),
        };
        r.map_err(|kind| Failure::new(kind, self.expr.span))
    }
}

/// The profiles other than `spec-2026`, out of line so that its evaluation keeps its shape.
#[inline(never)]
fn other(
    c: &Comparison<'_>,
    env: &EvalEnv<'_>,
    profile: Profile,
) -> crate::profile::outcome::Outcome {
    (profile.rules().compare)(c, env)
}

/// An evaluation error on its way up the tree, boxed so that results stay in registers.
pub(crate) struct Failure {
    kind: Box<ErrorKind>,
    span: Span,
}

impl Failure {
    #[cold]
    fn new(kind: Box<ErrorKind>, span: Span) -> Box<Failure> {
        Box::new(Failure { kind, span })
    }

    #[cold]
    fn into_error(self) -> Error {
        Error::new(*self.kind, self.span)
    }
}

/// Evaluates `node`, reading each comparison with what `lowered` (the same tree lowered)
/// computed ahead for it; where there is no lowered form ([`Lowered::Deferred`]), each
/// comparison is lowered as it is read. A lowered form other than `Deferred` has `node`'s
/// shape: every [`MarkerTree`] keeps it so ([`crate::lower`]).
fn eval_node(
    node: &MarkerNode,
    lowered: &Lowered,
    env: &EvalEnv<'_>,
    profile: Profile,
) -> Result<Tri, Box<Failure>> {
    let (children, compiled, is_and): (_, &[Lowered], _) = match (node, lowered) {
        (MarkerNode::Expression(e), Lowered::Cmp(c)) => {
            return c.view(e).eval(env, profile);
        }
        (MarkerNode::Expression(e), _) => return eval_fresh(e, env, profile),
        (MarkerNode::True, _) => return Ok(Tri::known(true)),
        (MarkerNode::False, _) => return Ok(Tri::known(false)),
        (MarkerNode::And(c), Lowered::And(l)) => (c, l, true),
        (MarkerNode::Or(c), Lowered::Or(l)) => (c, l, false),
        // Deferred.
        (MarkerNode::And(c), _) => (c, &[], true),
        (MarkerNode::Or(c), _) => (c, &[], false),
    };
    // Where no comparison can fail to evaluate (spec-2026), evaluation stops as soon as an
    // operand decides the result (Kleene logic makes the unknown fields of an unknown result
    // the same either way). Under packaging every comparison is evaluated, so that an
    // undefined one is reported whatever the others decide; so is every comparison under uv,
    // which gives the same result as stopping early.
    let short_circuit = profile.rules().short_circuit;
    let decisive = Tri::known(!is_and);
    let combine = |acc: Tri, r: Tri| if is_and { acc.and(r) } else { acc.or(r) };
    let mut acc = Tri::known(is_and);
    let lowered = |i: usize| compiled.get(i).unwrap_or(&Lowered::Deferred);
    // `extra == "…"` is the cheapest comparison and, since most installs request no extra,
    // the one that most often decides an `and`: when stopping early, try those first. Kleene
    // logic is commutative, so the order changes neither the result nor its unknown fields.
    let is_extra = |c: &MarkerNode, l: &Lowered| match l {
        Lowered::Cmp(c) => matches!(c.fast, Fast::Extra { .. }),
        Lowered::Deferred => matches!(c, MarkerNode::Expression(e)
            if matches!(Fast::of(&e.lhs, e.op, &e.rhs, false), Fast::Extra { .. })),
        Lowered::True | Lowered::False | Lowered::And(_) | Lowered::Or(_) => false,
    };
    if short_circuit {
        for (i, c) in children.iter().enumerate() {
            if is_extra(c, lowered(i)) {
                let r = eval_node(c, lowered(i), env, profile)?;
                if r == decisive {
                    return Ok(decisive);
                }
                acc = combine(acc, r);
            }
        }
    }
    for (i, c) in children.iter().enumerate() {
        let l = lowered(i);
        if short_circuit && is_extra(c, l) {
            continue;
        }
        let r = match (c, l) {
            (MarkerNode::Expression(e), Lowered::Cmp(c)) => c.view(e).eval(env, profile)?,
            (c, l) => eval_node(c, l, env, profile)?,
        };
        if short_circuit && r == decisive {
            return Ok(decisive);
        }
        acc = combine(acc, r);
    }
    Ok(acc)
}

/// One comparison, lowered as it is read (nothing kept).
pub(crate) fn eval_fresh(
    e: &MarkerExpression,
    env: &EvalEnv<'_>,
    profile: Profile,
) -> Result<Tri, Box<Failure>> {
    let spec = precompile(&e.lhs, e.op, &e.rhs);
    Comparison {
        expr: e,
        fast: Fast::of(&e.lhs, e.op, &e.rhs, spec.is_some()),
        spec: spec.as_ref(),
    }
    .eval(env, profile)
}

/// Requested extras as the evaluator compares them: normalised, sorted, without repeats.
fn requested<S: AsRef<str>>(extras: &[S]) -> Vec<Box<str>> {
    let mut out: Vec<Box<str>> = extras
        .iter()
        .map(|s| normalize_name(s.as_ref()).into_boxed_str())
        .collect();
    out.sort();
    out.dedup();
    out
}

impl Requirement {
    /// Whether the requirement applies in `env` with `extras` requested (the extras the user
    /// asked for on the package that declares this requirement, e.g. `gpu` for
    /// `pkg[gpu]`): true when it has no marker, else its marker's value under the profile it
    /// was parsed with. The extras replace the environment's own for this call; the
    /// environment is not copied. An unknown result is an error (`E004`).
    ///
    /// ```
    /// use markerspec_pep508::{Environment, Field, Requirement};
    /// let env = Environment::new().with(Field::SysPlatform, "linux").unwrap();
    /// let cuda: Requirement = "nvidia-cudnn-cu12; sys_platform == 'linux' and extra == 'gpu'"
    ///     .parse()
    ///     .unwrap();
    /// assert!(cuda.evaluate(&env, &["gpu"]).unwrap());
    /// assert!(!cuda.evaluate(&env, &[] as &[&str]).unwrap());
    /// let plain: Requirement = "numpy>=2".parse().unwrap();
    /// assert!(plain.evaluate(&env, &[] as &[&str]).unwrap());
    /// ```
    ///
    /// # Errors
    /// As [`MarkerTree::evaluate`].
    pub fn evaluate<S: AsRef<str>>(&self, env: &Environment, extras: &[S]) -> Result<bool, Error> {
        match self.marker() {
            None => Ok(true),
            Some(m) => m.evaluate_with_extras(env, extras),
        }
    }
}
