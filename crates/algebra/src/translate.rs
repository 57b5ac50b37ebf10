//! Translation of a pep508 [`MarkerTree`] into the algebra, and back from the algebra to
//! environments: evaluation against an [`Environment`], residuals, witnesses as environments.
//!
//! One variable per field value, declared on first use with the field's registry rank, so the
//! variable order is the registry order whatever the order of translation:
//!
//! | field | variable(s) |
//! | --- | --- |
//! | standard `Version` (`python_full_version`, `implementation_version`), `Version \| String` (`platform_release`) | a [`Domain::Version`] variable whose absent point stands for "not a PEP 440 version", and a [`Domain::String`] variable `F#text` holding the text in that case |
//! | `python_version` | `python_full_version`'s variable, through [`VersionSet::python_version_preimage`]; its text variable `python_version#text` |
//! | standard `String` | a [`Domain::String`] variable |
//! | extended `Version` (and `nvidia_driver_version`, a `Version` field in SPEC 0.2) | a [`Domain::Version`] variable; absent is ⊥ (SPEC §4.3); sets are moved onto whole release blocks ([`VersionSet::release_only`]) |
//! | extended `String` | a [`Domain::String`] variable; `""` is ⊥ |
//! | `Set` fields | one [`Domain::Bool`] variable per member literal, `"L" in F` |
//! | `extra` | one [`Domain::Bool`] variable per normalised name, `extra == "n"` |
//! | anything else | an *opaque* [`Domain::Bool`] variable per comparison and profile, evaluated by pep508 |
//!
//! The opaque comparisons are where the translation is not exact *between* atoms (it is exact
//! for each atom: its value in an environment is pep508's): `"L" in F` on a string field
//! (substring), `===`, containment on `platform_release`, version comparisons with the literal
//! on the left under `packaging`, the `uv` profile's version and `platform_*` rules, and the
//! comparisons a profile leaves undefined (`packaging`'s `~=` on strings).

use markerspec_pep440::{Version, VersionSpecifier};
use markerspec_pep508::{
    EnvValue, Environment, Field, FieldType, MarkerBuilder, MarkerExpression, MarkerNode,
    MarkerOperator as O, MarkerTree, MarkerValue, ParseOptions, Profile, Reporter, Truth,
    normalize_name,
};

use std::hash::BuildHasher;

use crate::dd::{Context, Domain, Marker, Value, Var, Witness};
use crate::error::{Error, ErrorKind};
use crate::range::VersionSet;
use crate::theory::Theory;

/// What a variable stands for.
#[derive(Clone, Debug)]
pub(crate) enum VarMeta {
    /// The version of a version-typed field (`python_full_version` also for `python_version`).
    Version { field: Field },
    /// The text of a standard version field whose value is not a PEP 440 version.
    Text { field: Field },
    /// A string field.
    Str { field: Field },
    /// `"literal" in field` for a set field.
    Member { field: Field, literal: Box<str> },
    /// `extra == "name"`.
    Extra { name: Box<str> },
    /// One comparison, evaluated by pep508 under `profile`.
    Opaque {
        expr: Box<MarkerExpression>,
        profile: Profile,
    },
}

/// Which operand is the field.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    FieldLeft,
    LiteralLeft,
}

/// The longest literal whose substrings are enumerated for `field in "L"`.
pub(crate) const MAX_SUBSTRING_LITERAL: usize = 96;

/// Whether `s` can be the value of the string field `field` (SPEC §21.1). An extended field's
/// value is checked on the way in (documents, overrides and detection, SPEC §11) and stored in
/// its format's canonical spelling, so a string that the check changes or rejects is no value:
/// `interpreter_arch` is never `"arm64"` (an alias, read as `"aarch64"`) nor `"MIPS"` (read as
/// `"mips"`). A standard field's value is any string.
pub(crate) fn is_value(field: Field, s: &str) -> bool {
    !field.is_extended() || field.format().check(s).is_ok_and(|c| c == s)
}

fn is_extended_version(f: Field) -> bool {
    f.is_extended()
        && matches!(
            f.field_type(),
            FieldType::Version | FieldType::VersionOrString
        )
}

/// Appends `s` as `{:?}` writes it, without the formatting machinery when nothing needs
/// escaping (the usual names and literals).
fn push_quoted(out: &mut String, s: &str) {
    let plain = s
        .bytes()
        .all(|b| b == b' ' || (b.is_ascii_graphic() && b != b'"' && b != b'\\'));
    if plain {
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        use std::fmt::Write as _;
        let _ = write!(out, "{s:?}");
    }
}

/// Python's `str.strip()` whitespace (as pep508 strips a version literal).
fn strip(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// Whether `op + literal` would read as another operator (pep508's rule).
fn continues_operator(l: &str) -> bool {
    l.starts_with(['=', '!', '<', '>', '~'])
}

fn mirror(op: O) -> Option<O> {
    Some(match op {
        O::Equal => O::Equal,
        O::NotEqual => O::NotEqual,
        O::LessThan => O::GreaterThan,
        O::LessThanEqual => O::GreaterThanEqual,
        O::GreaterThan => O::LessThan,
        O::GreaterThanEqual => O::LessThanEqual,
        _ => return None,
    })
}

/// `op literal` as a PEP 440 specifier, as pep508 reads a comparison (`None` for `===`'s
/// text comparison and for text that is no specifier).
fn specifier(op: O, literal: &str) -> Option<VersionSpecifier> {
    let p = pep440_operator(op)?;
    let text = strip(literal);
    if continues_operator(text) {
        return None;
    }
    VersionSpecifier::from_parts(p, text).ok()
}

/// A marker's version operator as PEP 440's (`==` and `!=` without a wildcard); `None` for
/// `===`'s text comparison and for `in` / `not in`.
fn pep440_operator(op: O) -> Option<markerspec_pep440::Operator> {
    use markerspec_pep440::Operator as P;
    Some(match op {
        O::Equal => P::Equal,
        O::NotEqual => P::NotEqual,
        O::LessThan => P::LessThan,
        O::LessThanEqual => P::LessThanEqual,
        O::GreaterThan => P::GreaterThan,
        O::GreaterThanEqual => P::GreaterThanEqual,
        O::TildeEqual => P::TildeEqual,
        O::ExactEqual | O::In | O::NotIn => return None,
    })
}

/// Every substring of `s` (the empty one included), sorted, without repeats.
pub(crate) fn substrings(s: &str) -> Vec<String> {
    let idx: Vec<usize> = s
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(s.len()))
        .collect();
    let mut out = Vec::new();
    for (a, &i) in idx.iter().enumerate() {
        for &j in idx.iter().skip(a) {
            if let Some(sub) = s.get(i..j) {
                out.push(sub.to_owned());
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The canonical spelling of a variant string: parts joined by ` :: ` (SPEC §9).
pub(crate) fn variant_canonical(s: &str) -> String {
    s.split("::")
        .map(|p| p.trim_matches([' ', '\t']))
        .collect::<Vec<_>>()
        .join(" :: ")
}

fn member_literal(field: Field, literal: &str) -> String {
    match field {
        Field::VariantNamespaces | Field::VariantFeatures | Field::VariantProperties => {
            variant_canonical(literal)
        }
        Field::Extras | Field::DependencyGroups => normalize_name(literal),
        _ => literal.to_owned(),
    }
}

fn rank(field: Field, sub: u32) -> u32 {
    // Field indices are small (the registry has a few dozen fields).
    u32::try_from(field.index()).unwrap_or(u32::MAX / 8) * 8 + sub
}

impl Context {
    fn meta_var(
        &mut self,
        rank: u32,
        name: &str,
        domain: Domain,
        meta: VarMeta,
    ) -> Result<Var, Error> {
        let var = self.variable(rank, name, domain)?;
        let i = var.index();
        if self.meta.len() <= i {
            self.meta.resize(i + 1, None);
        }
        if let Some(slot) = self.meta.get_mut(i) {
            if slot.is_none() {
                *slot = Some(meta);
            }
        }
        Ok(var)
    }

    pub(crate) fn meta(&self, var: Var) -> Option<&VarMeta> {
        self.meta.get(var.index()).and_then(Option::as_ref)
    }

    pub(crate) fn version_var(&mut self, field: Field) -> Result<Var, Error> {
        let field = if field == Field::PythonVersion {
            Field::PythonFullVersion
        } else {
            field
        };
        self.meta_var(
            rank(field, 0),
            field.name(),
            Domain::Version,
            VarMeta::Version { field },
        )
    }

    fn text_var(&mut self, field: Field) -> Result<Var, Error> {
        let f = if field == Field::PythonVersion {
            Field::PythonFullVersion
        } else {
            field
        };
        let sub = if field == Field::PythonVersion { 2 } else { 1 };
        self.meta_var(
            rank(f, sub),
            &[field.name(), "#text"].concat(),
            Domain::String,
            VarMeta::Text { field },
        )
    }

    fn str_var(&mut self, field: Field) -> Result<Var, Error> {
        self.meta_var(
            rank(field, 0),
            field.name(),
            Domain::String,
            VarMeta::Str { field },
        )
    }

    /// A standard version field compared as a string under `packaging` (`platform_version`):
    /// a string variable after the field's value and text variables, printed as the field.
    fn packaging_str_var(&mut self, field: Field) -> Result<Var, Error> {
        self.meta_var(
            rank(field, 2),
            &[field.name(), "#packaging"].concat(),
            Domain::String,
            VarMeta::Str { field },
        )
    }

    fn member(&mut self, field: Field, literal: &str) -> Result<Marker, Error> {
        let literal = member_literal(field, literal);
        let var = self.meta_var(
            rank(field, 3),
            &{
                let mut name = String::with_capacity(literal.len() + field.name().len() + 6);
                push_quoted(&mut name, &literal);
                name.push_str(" in ");
                name.push_str(field.name());
                name
            },
            Domain::Bool,
            VarMeta::Member {
                field,
                literal: literal.into(),
            },
        )?;
        self.boolean(var)
    }

    fn extra(&mut self, name: &str) -> Result<Marker, Error> {
        let name = normalize_name(name);
        let var = self.meta_var(
            rank(Field::Extra, 3),
            &{
                let mut var_name = String::with_capacity(name.len() + 11);
                var_name.push_str("extra == ");
                push_quoted(&mut var_name, &name);
                var_name
            },
            Domain::Bool,
            VarMeta::Extra { name: name.into() },
        )?;
        self.boolean(var)
    }

    fn opaque(&mut self, e: &MarkerExpression, profile: Profile) -> Result<Marker, Error> {
        // On a string field `"L" not in f` is the negation of `"L" in f` in every profile (a
        // substring test, Python's `not in`; SPEC §4.3 for the extended fields), and the
        // printer writes an opaque atom's negation with the flipped operator: one atom for
        // both, so that a printed form reads back as the same marker. Not `!=` against `==`
        // (packaging reads both through a specifier, false on a value that is no version; uv
        // makes both false there), nor the set fields (a misused `in` and `not in` are both
        // false).
        let string_field = e
            .field()
            .is_some_and(|f| f.field_type() == FieldType::String);
        let positive = match e.operator() {
            O::NotIn if string_field => Some(O::In),
            _ => None,
        };
        if let Some(op) = positive {
            let e = MarkerExpression::new(e.lhs().clone(), op, e.rhs().clone());
            return Ok(!self.opaque(&e, profile)?);
        }
        // A comparison the profile decides without reading a value (under `uv`,
        // `"3.9.1" == python_version`: `python_version` equal to a version of three or more
        // release numbers is false whatever the version) is that constant, so that `is_false`
        // and the relations see it. Not one that reads the requested extras: an environment
        // with no value for a field still has them (none).
        let reads_extras = [e.lhs(), e.rhs()].into_iter().any(|side| {
            matches!(
                side,
                MarkerValue::Field(Field::Extra | Field::Extras | Field::DependencyGroups)
            )
        });
        if !reads_extras && let Ok(decided) = e.evaluate(&Environment::new(), profile) {
            match decided.truth {
                Truth::True => return Ok(Marker::TRUE),
                Truth::False => return Ok(Marker::FALSE),
                Truth::Unknown => {}
            }
        }
        let field = e.field().unwrap_or(Field::Extra);
        // The profile is part of the name where the standard fields' meaning depends on it.
        let name = if e.field().is_some_and(Field::is_extended) {
            format!("[opaque] {e}")
        } else {
            format!("[{}] {e}", profile.as_str())
        };
        let var = self.meta_var(
            rank(field, 4),
            &name,
            Domain::Bool,
            VarMeta::Opaque {
                expr: Box::new(e.clone()),
                profile,
            },
        )?;
        self.boolean(var)
    }

    /// The marker of a tree: its comparisons translated under the profile the tree was parsed
    /// with ([`MarkerTree::profile`]), joined by the algebra's `and`/`or`, then conjoined with
    /// `theory`'s rules over the fields and literals the context knows
    /// (the theory's constraint). The result is canonical for the theory: two trees translated in
    /// one context give the same [`Marker`] exactly when they hold in the same environments that
    /// the theory admits (as far as the opaque comparisons, listed in the crate docs, allow).
    ///
    /// Under [`Theory::platform`] the constraint gains rules when the context meets new
    /// literals of the extended fields (a variant property implies its feature, an ABI tag its
    /// features: rules instantiated on the literals): a marker read before such a literal lies
    /// inside the older constraint, and equals a marker read after only once conjoined with the
    /// constraint of now (`ctx.and(m, ctx.theory_constraint(&theory)?)`).
    /// [`relation`](Self::relation), [`cells`](Self::cells) and [`relate`](Self::relate) do
    /// that themselves; the standard fields instantiate no rule.
    ///
    /// A context serves one theory: the first call fixes it, and a later call with another one
    /// is [`ErrorKind::MixedTheories`].
    ///
    /// The translation reads the syntax tree only: a tree parsed just to be translated is
    /// cheaper with [`ParseOptions::prepare_evaluation`](markerspec_pep508::ParseOptions)
    /// off (`MarkerTree::parse_with(text, &ParseOptions::default().prepare_evaluation(false),
    /// &mut warnings)`), which skips the work done ahead for evaluating it.
    ///
    /// ```
    /// use markerspec_algebra::{Context, Theory};
    /// use markerspec_pep508::MarkerTree;
    ///
    /// let mut ctx = Context::new();
    /// let a: MarkerTree = "python_version >= '3.9' and python_version < '3.11'".parse().unwrap();
    /// let b: MarkerTree = "python_version == '3.9' or python_version == '3.10'".parse().unwrap();
    /// let ma = ctx.from_marker(&a, &Theory::none())?;
    /// let mb = ctx.from_marker(&b, &Theory::none())?;
    /// assert_eq!(ma, mb);
    /// assert_eq!(ctx.to_marker_string(ma)?, r#"python_version >= "3.9" and python_version < "3.11""#);
    /// # Ok::<(), markerspec_algebra::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Intractable`] past the limits; [`ErrorKind::MixedTheories`].
    pub fn from_marker(&mut self, tree: &MarkerTree, theory: &Theory) -> Result<Marker, Error> {
        self.use_theory(theory)?;
        let m = self.translate_node(tree.node(), tree.profile())?;
        let c = self.theory_constraint(theory)?;
        self.conj(m, c)
    }

    /// Parses `text` with `options` straight into a marker of this context under `theory`:
    /// what [`MarkerTree::parse_with`] followed by [`from_marker`](Self::from_marker) gives,
    /// with the same parse errors and warnings, but each comparison is translated as it is
    /// read and no syntax tree is built (under the `pep508` dialect; see
    /// [`MarkerTree::parse_into`]). The way for a resolver to read markers it only computes
    /// with.
    ///
    /// ```
    /// use markerspec_algebra::{Context, Theory};
    /// use markerspec_pep508::{MarkerTree, ParseOptions};
    ///
    /// let mut ctx = Context::new();
    /// let opts = ParseOptions::default();
    /// let none = Theory::none();
    /// let text = "python_version >= '3.9' and (sys_platform == 'linux' or extra == 'cli')";
    /// let m = ctx.parse_marker(text, &opts, &mut Vec::new(), &none)?;
    /// let tree = MarkerTree::parse_with(text, &opts, &mut Vec::new()).unwrap();
    /// assert_eq!(m, ctx.from_marker(&tree, &none)?);
    ///
    /// let err = ctx.parse_marker("python_version >=", &opts, &mut Vec::new(), &none).unwrap_err();
    /// assert_eq!(err.code(), "parse");
    /// # Ok::<(), markerspec_algebra::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Parse`] with the parser's error when `text` is no marker;
    /// [`ErrorKind::Intractable`] past the limits; [`ErrorKind::MixedTheories`].
    pub fn parse_marker(
        &mut self,
        text: &str,
        options: &ParseOptions,
        reporter: &mut dyn Reporter,
        theory: &Theory,
    ) -> Result<Marker, Error> {
        self.use_theory(theory)?;
        let mut translator = Translator {
            ctx: self,
            profile: options.profile,
            failed: None,
        };
        let m = MarkerTree::parse_into(text, options, reporter, &mut translator)
            .map_err(|error| Error::new(ErrorKind::Parse { error }))?;
        if let Some(e) = translator.failed {
            return Err(e);
        }
        let c = self.theory_constraint(theory)?;
        self.conj(m, c)
    }

    /// The exact translation of a tree, without any theory: equal to the tree in every
    /// environment (as pep508 evaluates it), with no rule of world knowledge conjoined.
    ///
    /// ```
    /// use markerspec_algebra::{Context, Theory};
    /// use markerspec_pep508::{Field, MarkerTree, Profile};
    ///
    /// let mut ctx = Context::new();
    /// let tree: MarkerTree = "os_name == 'nt' and extra == 'gpu'".parse()?;
    /// let m = ctx.translate(&tree)?;
    /// // One comparison alone.
    /// let nt = ctx.translate_expression(tree.expressions()[0], Profile::Spec2026)?;
    /// assert_eq!(nt, ctx.translate(&"os_name == 'nt'".parse()?)?);
    /// // Whatever extras are requested? No: without `gpu` it does not hold.
    /// assert!(ctx.forall_field(m, Field::Extra)?.is_false());
    /// // An environment in which it holds.
    /// let w = ctx.solve(m)?.expect("satisfiable");
    /// let env = ctx.witness_environment(m, &w)?;
    /// assert!(tree.evaluate(&env)?);
    /// // World knowledge, as a marker: under it, `sys_platform == 'win32'` implies `nt`.
    /// let rules = ctx.theory_constraint(&Theory::platform())?;
    /// let win = ctx.translate(&"sys_platform == 'win32'".parse()?)?;
    /// let win_in_theory = ctx.and(rules, win)?;
    /// assert!(ctx.implies(win_in_theory, nt)?);
    /// assert!(!ctx.implies(win, nt)?); // not without it
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Intractable`] past the limits.
    pub fn translate(&mut self, tree: &MarkerTree) -> Result<Marker, Error> {
        self.translate_node(tree.node(), tree.profile())
    }

    fn translate_node(&mut self, node: &MarkerNode, profile: Profile) -> Result<Marker, Error> {
        match node {
            MarkerNode::True => Ok(Marker::TRUE),
            MarkerNode::False => Ok(Marker::FALSE),
            MarkerNode::Expression(e) => self.translate_expression(e, profile),
            MarkerNode::And(children) => self.translate_all(children, profile, false),
            MarkerNode::Or(children) => Ok(!self.translate_all(children, profile, true)?),
        }
    }

    /// The conjunction of the children's markers (of their negations when `negate`: an `or`
    /// by De Morgan), the usual few children held on the stack.
    fn translate_all(
        &mut self,
        children: &[MarkerNode],
        profile: Profile,
        negate: bool,
    ) -> Result<Marker, Error> {
        self.and_of(children, |ctx, c| {
            let m = ctx.translate_node(c, profile)?;
            Ok(if negate { !m } else { m })
        })
    }

    /// The conjunction of `f` of each item, the usual few held on the stack (as `and_all`
    /// reorders them, they are all computed first).
    fn and_of<T>(
        &mut self,
        items: &[T],
        mut f: impl FnMut(&mut Context, &T) -> Result<Marker, Error>,
    ) -> Result<Marker, Error> {
        const HELD: usize = 8;
        if items.len() <= HELD {
            let mut ms = [Marker::TRUE; HELD];
            for (slot, item) in ms.iter_mut().zip(items) {
                *slot = f(self, item)?;
            }
            let ms = ms.get_mut(..items.len()).unwrap_or_default();
            return self.and_all(ms);
        }
        let mut ms = Vec::with_capacity(items.len());
        for item in items {
            ms.push(f(self, item)?);
        }
        self.and_all(&mut ms)
    }

    /// One comparison under `profile`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Intractable`] past the limits.
    ///
    /// See the example on [`Context::translate`].
    pub fn translate_expression(
        &mut self,
        e: &MarkerExpression,
        profile: Profile,
    ) -> Result<Marker, Error> {
        // A comparison's marker depends only on the comparison and the profile: translated
        // once per context (lock files repeat the same few comparisons many times).
        let hasher = rustc_hash::FxBuildHasher;
        let hash = hasher.hash_one((e.lhs(), e.operator(), e.rhs(), profile));
        let same = |k: &ExpressionKey| {
            k.op == e.operator() && k.profile == profile && k.lhs == *e.lhs() && k.rhs == *e.rhs()
        };
        if let Some((_, m)) = self.expression_cache.find(hash, |(k, _)| same(k)) {
            return Ok(*m);
        }
        let m = self.translate_expression_uncached(e, profile)?;
        let key = ExpressionKey {
            lhs: e.lhs().clone(),
            op: e.operator(),
            rhs: e.rhs().clone(),
            profile,
        };
        self.expression_cache
            .insert_unique(hash, (key, m), |(k, _)| {
                hasher.hash_one((&k.lhs, k.op, &k.rhs, k.profile))
            });
        Ok(m)
    }

    fn translate_expression_uncached(
        &mut self,
        e: &MarkerExpression,
        profile: Profile,
    ) -> Result<Marker, Error> {
        let (field, literal, side) = match (e.lhs(), e.rhs()) {
            (MarkerValue::Field(f), MarkerValue::Literal(l)) => (*f, &**l, Side::FieldLeft),
            (MarkerValue::Literal(l), MarkerValue::Field(f)) => (*f, &**l, Side::LiteralLeft),
            _ => return self.opaque(e, profile),
        };
        let op = e.operator();
        if field.is_extended() {
            return self.extended(e, field, op, literal, side, profile);
        }
        match profile {
            Profile::Spec2026 => self.standard_spec(e, field, op, literal, side, profile),
            Profile::Packaging => self.standard_packaging(e, field, op, literal, side),
            Profile::Uv => self.standard_uv(e, field, op, literal, side),
        }
    }

    /// A string rule (`spec/SPEC.md` §5.2) on a string variable: `==`-like, `!=`, `<`/`>`
    /// false, `field in "L"` as membership in L's substrings. `None` where the rule needs an
    /// opaque atom (`"L" in field`, long literals).
    fn string_rule(
        &mut self,
        var: Var,
        op: O,
        literal: &str,
        side: Side,
        exclude: &dyn Fn(&str) -> bool,
    ) -> Result<Option<Marker>, Error> {
        let eq = |ctx: &mut Context, l: &str| {
            if exclude(l) {
                Ok(Marker::FALSE)
            } else {
                ctx.string_eq(var, l)
            }
        };
        Ok(Some(match op {
            O::Equal | O::LessThanEqual | O::GreaterThanEqual | O::TildeEqual | O::ExactEqual => {
                eq(self, literal)?
            }
            O::NotEqual => !eq(self, literal)?,
            O::LessThan | O::GreaterThan => Marker::FALSE,
            O::In | O::NotIn => {
                if side == Side::LiteralLeft || literal.len() > MAX_SUBSTRING_LITERAL {
                    return Ok(None);
                }
                let mut subs = substrings(literal);
                subs.retain(|s| !exclude(s));
                let acc = self.string_in(var, &subs)?;
                if op == O::In { acc } else { !acc }
            }
        }))
    }

    /// [`string_rule`](Self::string_rule) on `var`, or `e` as an opaque atom where the rule
    /// needs one.
    fn string_rule_or_opaque(
        &mut self,
        e: &MarkerExpression,
        var: Var,
        (op, literal, side): (O, &str, Side),
        profile: Profile,
        exclude: &dyn Fn(&str) -> bool,
    ) -> Result<Marker, Error> {
        match self.string_rule(var, op, literal, side, exclude)? {
            Some(m) => Ok(m),
            None => self.opaque(e, profile),
        }
    }

    /// A set field's comparison (SPEC §4.3, the same in every profile): `"L" in field` and
    /// `"L" not in field` are the member's variable; any other is an opaque atom.
    fn membership(
        &mut self,
        e: &MarkerExpression,
        field: Field,
        op: O,
        literal: &str,
        side: Side,
        profile: Profile,
    ) -> Result<Marker, Error> {
        match (op, side) {
            (O::In, Side::LiteralLeft) => self.member(field, literal),
            (O::NotIn, Side::LiteralLeft) => Ok(!self.member(field, literal)?),
            _ => self.opaque(e, profile),
        }
    }

    fn standard_spec(
        &mut self,
        e: &MarkerExpression,
        field: Field,
        op: O,
        literal: &str,
        side: Side,
        profile: Profile,
    ) -> Result<Marker, Error> {
        match field.field_type() {
            FieldType::Extra => match op {
                O::Equal => self.extra(literal),
                O::NotEqual => Ok(!self.extra(literal)?),
                _ => Ok(Marker::FALSE),
            },
            FieldType::Set => self.membership(e, field, op, literal, side, profile),
            FieldType::String => {
                let var = self.str_var(field)?;
                self.string_rule_or_opaque(e, var, (op, literal, side), profile, &|_| false)
            }
            FieldType::Version | FieldType::VersionOrString => {
                if matches!(op, O::In | O::NotIn) {
                    return if field.field_type() == FieldType::Version {
                        Ok(Marker::FALSE)
                    } else {
                        self.opaque(e, profile)
                    };
                }
                if side == Side::LiteralLeft && op == O::TildeEqual {
                    // `"L" ~= f` is `Specifier("~=" + value).contains(L)` (SPEC Appendix E.2),
                    // which depends on the value's text (`~=1.17` holds on 1.17.11,
                    // `~=1.17.0` does not, and both are the version 1.17): no set of versions.
                    return self.opaque(e, profile);
                }
                let op2 = match side {
                    Side::FieldLeft => Some(op),
                    Side::LiteralLeft => mirror(op),
                };
                if op2 == Some(O::ExactEqual) {
                    return self.opaque(e, profile);
                }
                // The common case, a version literal: one set of the version variable.
                if let Some(set) = op2.and_then(|o| spec_version_set(field, o, literal)) {
                    let v = self.version_var(field)?;
                    return self.version_set(v, &set);
                }
                let spec = op2.and_then(|o| specifier(o, literal));
                match spec {
                    Some(spec) if !continues_operator(literal) => {
                        let set = version_field_set(field, &spec);
                        let v = self.version_var(field)?;
                        let on_versions = self.version_set(v, &set)?;
                        let fallback = self.text_fallback(field, op, literal, side, profile)?;
                        self.disj(on_versions, fallback)
                    }
                    _ => self.text_rule_everywhere(e, field, op, literal, side, profile),
                }
            }
        }
    }

    /// `V is not a version and the string rule holds on its text`, under `profile`.
    fn text_fallback(
        &mut self,
        field: Field,
        op: O,
        literal: &str,
        side: Side,
        profile: Profile,
    ) -> Result<Marker, Error> {
        let v = self.version_var(field)?;
        let t = self.text_var(field)?;
        // A text that reads as a version is never held by the text variable, and the model
        // leaves out texts that read as a wildcard (`3.12.*`: see the crate docs). Under
        // `packaging` it leaves out a `python_full_version` ending in `+` too (packaging reads
        // an untagged build's `3.13.1+` with `local` appended), so no text in the model is
        // equal to such a literal there.
        let untagged = |l: &str| {
            profile == Profile::Packaging && field == Field::PythonFullVersion && l.ends_with('+')
        };
        let rule = self
            .string_rule(t, op, literal, side, &|l| {
                not_a_text_value(l) || untagged(l)
            })?
            .unwrap_or(Marker::FALSE);
        if rule.is_false() {
            // The usual case (a version literal): no need for the absent set.
            return Ok(Marker::FALSE);
        }
        let absent = self.version_set(v, &VersionSet::absent())?;
        self.conj(absent, rule)
    }

    /// The string rule on the value's text, for a literal that is no specifier: on versions,
    /// the text equals the literal only for the version the literal spells (when it is a
    /// version written canonically, without trailing zeros in its release: the spelling a
    /// witness environment gives that version); elsewhere the text variable. A literal that
    /// reads as a version spelt otherwise (`3.0`, `3.14.0rc1`) is an opaque comparison: one
    /// version point stands for every spelling of a version, and only one spelling equals
    /// the literal as text.
    fn text_rule_everywhere(
        &mut self,
        e: &MarkerExpression,
        field: Field,
        op: O,
        literal: &str,
        side: Side,
        profile: Profile,
    ) -> Result<Marker, Error> {
        let point = match literal.parse::<Version>() {
            Ok(v)
                if v.to_string() == literal
                    && v.release().last() != Some(&0)
                    && field != Field::PythonVersion =>
            {
                Some(v)
            }
            Ok(_) => return self.opaque(e, profile),
            Err(_) => None,
        };
        let eq_versions = match point {
            Some(v) => {
                let var = self.version_var(field)?;
                self.equals(var, &Value::Version(v))?
            }
            None => Marker::FALSE,
        };
        let eq_text = self.text_fallback(field, O::Equal, literal, side, profile)?;
        let eq = self.disj(eq_versions, eq_text)?;
        match op {
            O::Equal | O::LessThanEqual | O::GreaterThanEqual | O::TildeEqual => Ok(eq),
            O::NotEqual => Ok(!eq),
            O::LessThan | O::GreaterThan => Ok(Marker::FALSE),
            O::ExactEqual | O::In | O::NotIn => self.opaque(e, profile),
        }
    }

    /// pypa/packaging 26.x for the standard fields.
    fn standard_packaging(
        &mut self,
        e: &MarkerExpression,
        field: Field,
        op: O,
        literal: &str,
        side: Side,
    ) -> Result<Marker, Error> {
        let profile = Profile::Packaging;
        // packaging 26.x reads only its MARKERS_REQUIRING_VERSION (implementation_version,
        // platform_release, python_full_version, python_version) as versions; platform_version
        // is compared as a string there (`<`/`>` false, `<=`/`>=` equality): a string
        // variable of its own, whatever the text (`10.0.19045` is a string there, not a
        // version, and prints as one).
        if field == Field::PlatformVersion {
            return match op {
                O::Equal
                | O::NotEqual
                | O::LessThan
                | O::LessThanEqual
                | O::GreaterThan
                | O::GreaterThanEqual => {
                    let var = self.packaging_str_var(field)?;
                    self.string_rule_or_opaque(e, var, (op, literal, side), profile, &|_| false)
                }
                _ => self.opaque(e, profile),
            };
        }
        match field.field_type() {
            FieldType::Extra => match op {
                // packaging evaluates with `extra` set to "" when no extra is requested:
                // `extra == ""` means "no extra at all", which no finite set of extra names
                // says.
                _ if literal.is_empty() => self.opaque(e, profile),
                O::Equal => self.extra(literal),
                O::NotEqual => Ok(!self.extra(literal)?),
                _ => self.opaque(e, profile),
            },
            FieldType::Set => match (op, side) {
                (O::In, Side::LiteralLeft) => self.member(field, literal),
                (O::NotIn, Side::LiteralLeft) => Ok(!self.member(field, literal)?),
                (
                    O::Equal
                    | O::LessThan
                    | O::LessThanEqual
                    | O::GreaterThan
                    | O::GreaterThanEqual,
                    Side::LiteralLeft,
                ) => Ok(Marker::FALSE),
                (O::NotEqual, Side::LiteralLeft) => Ok(Marker::TRUE),
                _ => self.opaque(e, profile),
            },
            FieldType::String if !matches!(op, O::TildeEqual | O::ExactEqual) => {
                let var = self.str_var(field)?;
                self.string_rule_or_opaque(e, var, (op, literal, side), profile, &|_| false)
            }
            FieldType::Version | FieldType::VersionOrString
                if side == Side::FieldLeft && !matches!(op, O::ExactEqual | O::In | O::NotIn) =>
            {
                if continues_operator(strip(literal)) {
                    // packaging reads `== "=3.12"` as `===3.12`.
                    return self.opaque(e, profile);
                }
                match specifier(op, literal) {
                    // A value that is no version satisfies no specifier.
                    Some(spec) => {
                        let set = version_field_set(field, &spec);
                        let v = self.version_var(field)?;
                        self.version_set(v, &set)
                    }
                    None if op == O::TildeEqual => self.opaque(e, profile),
                    None => self.text_rule_everywhere(e, field, op, literal, side, profile),
                }
            }
            _ => self.opaque(e, profile),
        }
    }

    /// uv-pep508 0.0.98 for the standard fields: exact for `extra` with a name, the list
    /// fields and the plain string fields' `==`/`!=`; every other comparison opaque.
    fn standard_uv(
        &mut self,
        e: &MarkerExpression,
        field: Field,
        op: O,
        literal: &str,
        side: Side,
    ) -> Result<Marker, Error> {
        let profile = Profile::Uv;
        let plain = matches!(
            field,
            Field::OsName
                | Field::SysPlatform
                | Field::PlatformMachine
                | Field::PlatformPythonImplementation
                | Field::ImplementationName
        );
        // A valid name: ASCII letters and digits at both ends, `-`, `_`, `.` between. Any
        // other literal (`a..`) matches nothing under uv, and is left to pep508's evaluation.
        let b = literal.as_bytes();
        let name_like = b.first().is_some_and(u8::is_ascii_alphanumeric)
            && b.last().is_some_and(u8::is_ascii_alphanumeric)
            && b.iter()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'));
        match (field.field_type(), op) {
            (FieldType::Extra, O::Equal) if name_like => self.extra(literal),
            (FieldType::Extra, O::NotEqual) if name_like => Ok(!self.extra(literal)?),
            // uv reads a list marker's literal as a name: one that is no name (a space, say)
            // is left to pep508's evaluation.
            (FieldType::Set, O::In) if side == Side::LiteralLeft && name_like => {
                self.member(field, literal)
            }
            (FieldType::Set, O::NotIn) if side == Side::LiteralLeft && name_like => {
                Ok(!self.member(field, literal)?)
            }
            (FieldType::String, O::Equal) if plain => {
                let var = self.str_var(field)?;
                self.string_eq(var, literal)
            }
            (FieldType::String, O::NotEqual) if plain => {
                let var = self.str_var(field)?;
                Ok(!self.string_eq(var, literal)?)
            }
            _ => self.opaque(e, profile),
        }
    }

    /// The extended fields, in every profile: SPEC §4.3.
    fn extended(
        &mut self,
        e: &MarkerExpression,
        field: Field,
        op: O,
        literal: &str,
        side: Side,
        profile: Profile,
    ) -> Result<Marker, Error> {
        match field.field_type() {
            FieldType::Set => self.membership(e, field, op, literal, side, profile),
            FieldType::String | FieldType::Extra => {
                let var = self.str_var(field)?;
                if literal.is_empty() {
                    return match op {
                        O::Equal => self.string_eq(var, ""),
                        O::NotEqual => Ok(!self.string_eq(var, "")?),
                        _ => self.opaque(e, profile),
                    };
                }
                if matches!(op, O::TildeEqual | O::ExactEqual) {
                    return self.opaque(e, profile);
                }
                // ⊥ (`""`) contains nothing and is contained in nothing, and a string the
                // field's check changes is no value (`interpreter_arch` is never `"arm64"`).
                let exclude = |l: &str| l.is_empty() || !is_value(field, l);
                self.string_rule_or_opaque(e, var, (op, literal, side), profile, &exclude)
            }
            FieldType::Version | FieldType::VersionOrString => {
                let var = self.version_var(field)?;
                if literal.is_empty() {
                    let absent = self.version_set(var, &VersionSet::absent())?;
                    return match op {
                        O::Equal => Ok(absent),
                        O::NotEqual => Ok(!absent),
                        _ => self.opaque(e, profile),
                    };
                }
                let op2 = match side {
                    Side::FieldLeft => Some(op),
                    Side::LiteralLeft => mirror(op),
                };
                match op2.and_then(|o| specifier(o, literal)) {
                    Some(spec) if op2 != Some(O::ExactEqual) && !continues_operator(literal) => {
                        let mut set = version_field_set(field, &spec);
                        if op2 == Some(O::NotEqual) {
                            set = set.union(&VersionSet::absent());
                        }
                        self.version_set(var, &set)
                    }
                    _ => self.opaque(e, profile),
                }
            }
        }
    }

    // ----- environments -----

    /// The value `env` gives a variable: `Ok(None)` when the field is Unknown or missing.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Evaluation`] when pep508 cannot evaluate an opaque comparison.
    pub(crate) fn env_value(&self, var: Var, env: &Environment) -> Result<Option<Value>, Error> {
        let Some(meta) = self.meta(var) else {
            return Err(Error::new(ErrorKind::UnknownVariable));
        };
        let string_of = |f: Field| -> Option<Option<String>> {
            match env.get(f) {
                Some(EnvValue::String(s)) => Some(Some(s.to_string())),
                Some(EnvValue::Absent) => Some(Some(String::new())),
                Some(EnvValue::Set(_)) => Some(None),
                Some(EnvValue::Unknown) | None => None,
            }
        };
        Ok(match meta {
            VarMeta::Version { field } => {
                string_of(*field).map(|s| match s.and_then(|s| s.parse::<Version>().ok()) {
                    Some(v) => Value::Version(v),
                    None => Value::Absent,
                })
            }
            VarMeta::Text { field } | VarMeta::Str { field } => {
                string_of(*field).map(|s| Value::String(s.unwrap_or_default()))
            }
            VarMeta::Member { field, literal } => match env.get(*field) {
                Some(EnvValue::Set(items)) => Some(Value::Bool(
                    items.iter().any(|i| member_literal(*field, i) == **literal),
                )),
                Some(EnvValue::Absent | EnvValue::String(_)) => Some(Value::Bool(false)),
                None if matches!(field, Field::Extras | Field::DependencyGroups) => {
                    Some(Value::Bool(false))
                }
                Some(EnvValue::Unknown) | None => None,
            },
            VarMeta::Extra { name } => Some(Value::Bool(env.extras().any(|x| x == &**name))),
            VarMeta::Opaque { expr, profile } => {
                // The evaluator's three-valued answer: unknown where the fields it reads are
                // Unknown or missing, which are not always the ones written (under `uv`,
                // `platform_system != "Linux"` reads `sys_platform`). A profile that refuses
                // to evaluate with a field missing (`packaging`) makes the comparison unknown
                // too, as for the other variables.
                let unknown = |v: &MarkerValue| match v {
                    MarkerValue::Field(Field::Extra | Field::Extras | Field::DependencyGroups)
                    | MarkerValue::Literal(_) => false,
                    MarkerValue::Field(f) => {
                        matches!(env.get(*f), Some(EnvValue::Unknown) | None)
                    }
                };
                match expr.evaluate(env, *profile) {
                    Ok(r) => match r.truth {
                        Truth::True => Some(Value::Bool(true)),
                        Truth::False => Some(Value::Bool(false)),
                        Truth::Unknown => None,
                    },
                    Err(_) if unknown(expr.lhs()) || unknown(expr.rhs()) => None,
                    Err(e) => {
                        return Err(Error::new(ErrorKind::Evaluation {
                            message: e.to_string(),
                        }));
                    }
                }
            }
        })
    }

    /// The value of `m` in `env`, reading each variable as the translation defines it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::UnknownField`] when `m` depends on a field that `env` leaves Unknown or
    /// missing (see [`residual`](Self::residual)); [`ErrorKind::Evaluation`] when pep508
    /// cannot evaluate an opaque comparison in `env`.
    ///
    /// ```
    /// use markerspec_algebra::{Context, Theory};
    /// use markerspec_pep508::{Environment, Field, MarkerTree};
    ///
    /// let mut ctx = Context::new();
    /// let t: MarkerTree = "python_version >= '3.13' and sys_platform == 'linux'".parse().unwrap();
    /// let m = ctx.from_marker(&t, &Theory::none())?;
    /// let env = Environment::new()
    ///     .with_unchecked(Field::PythonFullVersion, "3.13.0rc1")
    ///     .with_unchecked(Field::PythonVersion, "3.13")
    ///     .with_unchecked(Field::SysPlatform, "linux");
    /// assert!(ctx.evaluate_env(m, &env)?);
    /// # Ok::<(), markerspec_algebra::Error>(())
    /// ```
    pub fn evaluate_env(&self, m: Marker, env: &Environment) -> Result<bool, Error> {
        let support = self.support(m)?;
        let mut values = Vec::with_capacity(support.len());
        for var in support {
            match self.env_value(var, env)? {
                Some(v) => values.push((var, v)),
                None => {
                    return Err(Error::new(ErrorKind::UnknownField {
                        field: self.field_of(var).map_or("", Field::name).to_owned(),
                    }));
                }
            }
        }
        self.evaluate(m, |var| {
            values
                .iter()
                .find(|(v, _)| *v == var)
                .map_or(Value::Bool(false), |(_, x)| x.clone())
        })
    }

    /// The field a variable reads.
    pub(crate) fn field_of(&self, var: Var) -> Option<Field> {
        match self.meta(var)? {
            VarMeta::Version { field }
            | VarMeta::Text { field }
            | VarMeta::Str { field }
            | VarMeta::Member { field, .. } => Some(*field),
            VarMeta::Extra { .. } => Some(Field::Extra),
            VarMeta::Opaque { expr, .. } => expr.field(),
        }
    }

    /// `m` with every field that `env` knows (Known or Absent) replaced by its value: a marker
    /// over the fields `env` leaves Unknown or missing only (`true` or `false` when those do
    /// not matter). `extra` is known: the environment's requested extras. A known
    /// `python_version` beside an unknown `python_full_version` leaves the full versions it
    /// allows (`python_version` is read through `python_full_version`).
    ///
    /// # Errors
    ///
    /// As [`evaluate_env`](Self::evaluate_env), without [`ErrorKind::UnknownField`].
    ///
    /// ```
    /// use markerspec_algebra::{Context, Theory};
    /// use markerspec_pep508::{Dialect, EnvValue, Environment, Field, MarkerTree, ParseOptions};
    ///
    /// let mut ctx = Context::new();
    /// let opts = ParseOptions::default().dialect(Dialect::Extended);
    /// let t = MarkerTree::parse_with("os_name == 'nt' or cuda_version >= '12'", &opts, &mut Vec::new()).unwrap();
    /// let m = ctx.from_marker(&t, &Theory::none())?;
    /// let mut env = Environment::new().with_unchecked(Field::OsName, "posix");
    /// env.set(Field::CudaVersion, EnvValue::Unknown).unwrap();
    /// let r = ctx.residual(m, &env)?;
    /// assert_eq!(ctx.to_marker_string(r)?, r#"cuda_version >= "12""#);
    /// # Ok::<(), markerspec_algebra::Error>(())
    /// ```
    pub fn residual(&mut self, m: Marker, env: &Environment) -> Result<Marker, Error> {
        let mut cube = Marker::TRUE;
        for var in self.support(m)? {
            if let Some(value) = self.env_value(var, env)? {
                let eq = self.equals(var, &value)?;
                cube = self.conj(cube, eq)?;
            } else if let Some(known) = self.full_versions_of_python_version(var, env)? {
                // `python_version` is read through `python_full_version`: a known
                // `python_version` beside an unknown full version still says which full
                // versions are left (`4.0`: the 4.0 releases and their pre-releases).
                cube = self.conj(cube, known)?;
            }
        }
        self.restrict(m, cube)
    }

    /// For `python_full_version`'s version variable, when `env` leaves that field Unknown or
    /// missing but gives a `python_version` that is a version: the full versions whose first two
    /// release numbers it is (the preimage the translation reads `python_version ==` through).
    fn full_versions_of_python_version(
        &mut self,
        var: Var,
        env: &Environment,
    ) -> Result<Option<Marker>, Error> {
        if !matches!(
            self.meta(var),
            Some(VarMeta::Version {
                field: Field::PythonFullVersion
            })
        ) {
            return Ok(None);
        }
        let Some(EnvValue::String(short)) = env.get(Field::PythonVersion) else {
            return Ok(None);
        };
        let Ok(v) = short.trim().parse::<Version>() else {
            return Ok(None);
        };
        // A value no full version has (`3.12.1`, three numbers) leaves the environment outside
        // the model (SPEC §21.2): nothing is assumed from it.
        let Some(set) = format!("=={v}")
            .parse::<VersionSpecifier>()
            .ok()
            .and_then(|spec| VersionSet::python_version_preimage(&spec))
            .filter(|set| !set.is_empty())
        else {
            return Ok(None);
        };
        self.version_set(var, &set).map(Some)
    }

    /// `exists field. m`: true where some value of `field` makes `m` true (every variable that
    /// reads the field is quantified). Dropping `extra` soundly:
    /// `(platform_machine == 'x86_64' and extra == 'b') or extra == 'a'` without extras is
    /// `true`, not `platform_machine == 'x86_64'` (uv #14805).
    ///
    /// # Errors
    ///
    /// Past the limits.
    ///
    /// ```
    /// use markerspec_algebra::{Context, Theory};
    /// use markerspec_pep508::{Field, MarkerTree};
    ///
    /// let mut ctx = Context::new();
    /// let t: MarkerTree = "(platform_machine == 'x86_64' and extra == 'b') or extra == 'a'".parse().unwrap();
    /// let m = ctx.from_marker(&t, &Theory::none())?;
    /// let any = ctx.exists_field(m, Field::Extra)?;
    /// assert!(any.is_true());
    /// let all = ctx.forall_field(m, Field::Extra)?;
    /// assert!(all.is_false()); // with no extra requested, nothing applies
    /// let t2: MarkerTree = "(platform_machine == 'x86_64' and extra == 'b') or (sys_platform == 'linux' and extra == 'a')".parse().unwrap();
    /// let m2 = ctx.from_marker(&t2, &Theory::none())?;
    /// let e2 = ctx.exists_field(m2, Field::Extra)?;
    /// assert_eq!(ctx.to_marker_string(e2)?, r#"sys_platform == "linux" or platform_machine == "x86_64""#);
    /// # Ok::<(), markerspec_algebra::Error>(())
    /// ```
    pub fn exists_field(&mut self, m: Marker, field: Field) -> Result<Marker, Error> {
        let mut acc = m;
        for var in self.support(m)? {
            if self.field_of(var) == Some(field) {
                acc = self.exists(acc, var)?;
            }
        }
        Ok(acc)
    }

    /// `forall field. m`: true where every value of `field` makes `m` true.
    ///
    /// # Errors
    ///
    /// Past the limits.
    ///
    /// See the example on [`Context::translate`].
    pub fn forall_field(&mut self, m: Marker, field: Field) -> Result<Marker, Error> {
        Ok(!self.exists_field(!m, field)?)
    }

    /// A complete environment in which `m` holds, or `None` when `m` is unsatisfiable: a
    /// witness made into an environment with
    /// [`witness_environment`](Self::witness_environment). Deterministic, and as plausible as
    /// `m` allows:
    ///
    /// - inside the `platform` theory's rules when `m` holds somewhere there (whatever the
    ///   context's theory), so that the environment keeps the cross-field invariants an
    ///   environment document must keep (SPEC §4.4: `"cuda" in gpu_backends` with a
    ///   `cuda_version`, one C library, one member of each `sys_abi_features` group) and reads
    ///   like a real one (`sys_platform == "win32"` with `os_name == "nt"`);
    /// - with valid versions for the standard version fields when `m` allows them;
    /// - then, variable by variable in the context's order, the value of the default
    ///   environment ([`default_environment`]: CPython 3.12.0 on x86-64 Linux, no extras,
    ///   every extended field Absent) wherever `m` can still hold with it, else a value of
    ///   a satisfiable edge, for a version the interval nearest the default and a plain
    ///   release in it near its bounds (`python_version < "3"` gives `2`,
    ///   `python_version >= "3.13" or python_version < "3.8"` gives `3.13`; SPEC §21.5);
    ///   where that gives no environment (a default value that
    ///   an opaque comparison contradicts), the same without the defaults of the fields
    ///   opaque comparisons read, then [`solve`](Self::solve)'s witness alone, first inside
    ///   the `platform` rules, then without them.
    ///
    /// # Errors
    ///
    /// As [`witness_environment`](Self::witness_environment); past the limits.
    ///
    /// ```
    /// use markerspec_algebra::{Context, Theory};
    /// use markerspec_pep508::MarkerTree;
    ///
    /// let mut ctx = Context::new();
    /// let t: MarkerTree = "python_full_version != '3.12.*' and sys_platform == 'darwin'".parse().unwrap();
    /// let m = ctx.from_marker(&t, &Theory::none())?;
    /// let env = ctx.solve_environment(m)?.expect("satisfiable");
    /// assert!(t.evaluate(&env).unwrap());
    /// # Ok::<(), markerspec_algebra::Error>(())
    /// ```
    pub fn solve_environment(&mut self, m: Marker) -> Result<Option<Environment>, Error> {
        if m.is_false() {
            return Ok(None);
        }
        let rules = self.theory_constraint(&Theory::platform())?;
        // Most witnesses keep the rules with the defaults alone: found on `m`, then checked
        // against the rules, without building `m and rules` (the same witness the walk below
        // finds there: every choice of this walk is open to that one).
        let default = default_environment_ref();
        let plain = self.prefer_versions(m)?;
        let prefer = |var: Var| self.env_value(var, default).ok().flatten();
        if let Some(w) = self.solve_near(plain, prefer)? {
            if let Ok(env) = self.witness_environment(plain, &w) {
                if self.holds_in(rules, &env) {
                    return Ok(Some(env));
                }
            }
        }
        let inside = self.conj(m, rules)?;
        let mut last = None;
        let targets = if inside == m || inside.is_false() {
            vec![m]
        } else {
            vec![inside, m]
        };
        for target in targets {
            let target = self.prefer_versions(target)?;
            // The fields an opaque comparison reads: a default value kept for one of them can
            // contradict that comparison, decided later in the walk (`sys_platform` kept at
            // `linux` where `"linux" in sys_platform` is false).
            let mut opaque: Vec<Field> = Vec::new();
            for var in self.support(target)? {
                if let Some(VarMeta::Opaque { expr, .. }) = self.meta(var) {
                    opaque.extend(expr.field());
                }
            }
            let keeps_default = |var: Var, all: bool| {
                let free = all || self.field_of(var).is_none_or(|f| !opaque.contains(&f));
                free.then(|| self.env_value(var, default).ok().flatten())
                    .flatten()
            };
            // Every default where the walk can keep it; then all but the opaque comparisons'
            // fields; then the first witness in edge order; then (a rule of `platform` can
            // contradict a comparison of another profile, `platform_system` as uv reads it)
            // the same without the rules.
            for attempt in 0..3 {
                let w = match attempt {
                    0 => self.solve_near(target, |v| keeps_default(v, true))?,
                    1 if !opaque.is_empty() => {
                        self.solve_near(target, |v| keeps_default(v, false))?
                    }
                    1 => continue,
                    _ => self.solve(target)?,
                };
                let Some(w) = w else { continue };
                match self.witness_environment(target, &w) {
                    Err(e) if e.code() == "unverified-witness" => last = Some(e),
                    r => return r.map(Some),
                }
            }
        }
        match last {
            Some(e) => Err(e),
            None => Ok(None),
        }
    }

    /// Whether `m` holds in `env`, reading only the variables on the path `env` takes (no
    /// support walk, unlike [`evaluate_env`](Self::evaluate_env)); `false` where a field it
    /// reads is Unknown or missing in `env`.
    fn holds_in(&self, m: Marker, env: &Environment) -> bool {
        let unknown = std::cell::Cell::new(false);
        let value = |var: Var| match self.env_value(var, env) {
            Ok(Some(v)) => v,
            _ => {
                unknown.set(true);
                Value::Bool(false)
            }
        };
        self.evaluate(m, value).unwrap_or(false) && !unknown.get()
    }

    /// `m` narrowed, field by field, to valid versions for the standard version fields where
    /// it holds on some (an environment document cannot hold anything else there).
    fn prefer_versions(&mut self, m: Marker) -> Result<Marker, Error> {
        let mut target = m;
        for var in self.support(m)? {
            if let Some(VarMeta::Version { field }) = self.meta(var) {
                if !field.is_extended() {
                    let versions = self.version_set(var, &VersionSet::versions())?;
                    let narrowed = self.conj(target, versions)?;
                    if !narrowed.is_false() {
                        target = narrowed;
                    }
                }
            }
        }
        Ok(target)
    }

    /// A complete environment in which the witness's values hold: each field from the
    /// witness's variables (a version, a string, set members, requested extras), every other
    /// standard field from a fixed default (CPython 3.12.0 on x86-64 Linux), and every other
    /// extended field Absent, except where SPEC §4.4's invariants tie it to one the witness
    /// sets (a listed GPU backend gets its stack's version, a variant property its feature,
    /// namespace and label, …) and `m` still holds with it filled in; `python_version`
    /// follows `python_full_version`. Checked: `m` holds in the result.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::UnverifiedWitness`] when no environment was found in which `m` holds with
    /// these values (an opaque comparison the witness could not satisfy).
    ///
    /// See the example on [`Context::translate`].
    pub fn witness_environment(&self, m: Marker, w: &Witness) -> Result<Environment, Error> {
        let mut env = default_environment();
        let mut sets: Vec<(Field, Vec<Box<str>>)> = Vec::new();
        let mut extras: Vec<String> = Vec::new();
        let mut full_version: Option<Option<Version>> = None;
        for (var, value) in w.iter() {
            let Some(meta) = self.meta(var) else { continue };
            match (meta, value) {
                (VarMeta::Version { field }, Value::Version(v)) => {
                    // An extended field's values are release-only (SPEC §4.3); its sets are
                    // unions of release blocks, so the release is in the same set.
                    let v = if field.is_extended() {
                        // A compute capability is written `major.minor` (SPEC §8.8).
                        let two = matches!(
                            field,
                            Field::CudaComputeCapability | Field::CudaComputeCapabilityMax
                        );
                        let mut release = v.release().to_vec();
                        if two && release.len() < 2 {
                            release.resize(2, 0);
                        }
                        &Version::new(release)
                    } else {
                        v
                    };
                    env = env.with_unchecked(*field, v.to_string());
                    if *field == Field::PythonFullVersion {
                        full_version = Some(Some(v.clone()));
                    }
                }
                (VarMeta::Version { field }, Value::Absent) => {
                    if field.is_extended() {
                        let _ = env.set(*field, EnvValue::Absent);
                    } else {
                        env = env.with_unchecked(*field, "not-a-version");
                        if *field == Field::PythonFullVersion {
                            full_version = Some(None);
                        }
                    }
                }
                (VarMeta::Text { field }, Value::String(s)) => {
                    let f = if *field == Field::PythonVersion {
                        Field::PythonFullVersion
                    } else {
                        *field
                    };
                    env = env.with_unchecked(f, s.clone());
                    if *field == Field::PythonVersion {
                        env = env.with_unchecked(Field::PythonVersion, s.clone());
                    }
                }
                (VarMeta::Str { field }, Value::String(s)) => {
                    if s.is_empty() && field.is_extended() {
                        let _ = env.set(*field, EnvValue::Absent);
                    } else {
                        env = env.with_unchecked(*field, s.clone());
                    }
                }
                (VarMeta::Member { field, literal }, Value::Bool(true)) => {
                    match sets.iter_mut().find(|(f, _)| f == field) {
                        Some((_, items)) => items.push(literal.clone()),
                        None => sets.push((*field, vec![literal.clone()])),
                    }
                }
                (VarMeta::Extra { name }, Value::Bool(true)) => extras.push(name.to_string()),
                _ => {}
            }
        }
        if full_version == Some(None) {
            // No version: `python_version` reads the same text (unless the witness set its own).
            let has_own = w.iter().any(|(var, _)| {
                matches!(
                    self.meta(var),
                    Some(VarMeta::Text {
                        field: Field::PythonVersion
                    })
                )
            });
            if !has_own {
                if let Some(EnvValue::String(s)) = env.get(Field::PythonFullVersion).cloned() {
                    env = env.with_unchecked(Field::PythonVersion, s.to_string());
                }
            }
        }
        if let Some(Some(v)) = &full_version {
            env = env.with_unchecked(Field::PythonVersion, python_version_of(v));
        }
        for (field, items) in sets {
            let _ = env.set(field, EnvValue::Set(items));
        }
        env = env.with_extras(extras);
        if let Some(env) = self.keeping(m, env.clone()) {
            return Ok(env);
        }
        // Opaque comparisons: for each, in order, a value built from its literal that gives it
        // the witness's value, keeping the opaque comparisons of the same field satisfied.
        // Only values the field can hold (`is_value`): a document's `interpreter_arch` of
        // `XARM` reads back as `xarm`.
        let wanted: Vec<(Var, bool)> = w
            .iter()
            .filter_map(|(var, value)| match (self.meta(var), value) {
                (Some(VarMeta::Opaque { .. }), Value::Bool(b)) => Some((var, *b)),
                _ => None,
            })
            .collect();
        let python = |f: Option<Field>| match f {
            Some(Field::PythonVersion) => Some(Field::PythonFullVersion),
            f => f,
        };
        let holds = |ctx: &Context, env: &Environment, field: Field| {
            wanted.iter().all(|(v, b)| {
                python(ctx.field_of(*v)) != Some(field)
                    || ctx.env_value(*v, env).ok().flatten() == Some(Value::Bool(*b))
            })
        };
        // The field an opaque comparison reads (not a set field or `extra`) and its literal.
        let target = |var: Var| -> Option<(Field, &str)> {
            let Some(VarMeta::Opaque { expr, .. }) = self.meta(var) else {
                return None;
            };
            let field = python(expr.field())?;
            let literal = expr.lhs().as_literal().or(expr.rhs().as_literal())?;
            (field.field_type() != FieldType::Set && field != Field::Extra)
                .then_some((field, literal))
        };
        let with_value = |env: &Environment, field: Field, value: &str| {
            let trial = env.clone().with_unchecked(field, value);
            if field == Field::PythonFullVersion {
                trial.with_unchecked(Field::PythonVersion, python_version_text(value))
            } else {
                trial
            }
        };
        for (var, _) in &wanted {
            let Some((field, literal)) = target(*var) else {
                continue;
            };
            if holds(self, &env, field) {
                continue;
            }
            for candidate in opaque_candidates(literal)
                .into_iter()
                .filter(|c| is_value(field, c) && spelt_as_printed(field, c))
            {
                let trial = with_value(&env, field, &candidate);
                if holds(self, &trial, field) {
                    env = trial;
                    break;
                }
            }
        }
        if let Some(env) = self.keeping(m, env.clone()) {
            return Ok(env);
        }
        // A value that satisfies a field's opaque comparisons can break its other comparisons
        // (`"arm" in platform_machine and platform_machine != "arm"`: the literal itself,
        // tried first, is `!=`'s exception). The opaque comparisons' fields again, each with
        // the candidates that satisfy its opaque comparisons, every combination in turn (up
        // to `MAX_TRIALS`) until `m` holds.
        const MAX_TRIALS: usize = 256;
        let mut fields: Vec<(Field, Vec<String>)> = Vec::new();
        for (var, _) in &wanted {
            let Some((field, literal)) = target(*var) else {
                continue;
            };
            let fitting: Vec<String> = opaque_candidates(literal)
                .into_iter()
                .filter(|c| {
                    is_value(field, c)
                        && spelt_as_printed(field, c)
                        && holds(self, &with_value(&env, field, c), field)
                })
                .collect();
            match fields.iter_mut().find(|(f, _)| *f == field) {
                // A field read by two opaque comparisons: the candidates of both.
                Some((_, values)) => values.extend(fitting),
                None => fields.push((field, fitting)),
            }
        }
        let mut pick = vec![0usize; fields.len()];
        for _ in 0..MAX_TRIALS {
            let mut trial = env.clone();
            for ((field, values), &k) in fields.iter().zip(&pick) {
                if let Some(value) = values.get(k) {
                    trial = with_value(&trial, *field, value);
                }
            }
            if let Some(found) = self.keeping(m, trial) {
                return Ok(found);
            }
            // The next combination, the last field fastest.
            let mut carry = true;
            for (k, (_, values)) in pick.iter_mut().zip(&fields).rev() {
                *k += 1;
                if *k < values.len() {
                    carry = false;
                    break;
                }
                *k = 0;
            }
            if carry {
                break;
            }
        }
        Err(Error::new(ErrorKind::UnverifiedWitness))
    }

    /// `env` completed to keep SPEC §4.4's invariants ([`complete_invariants`]) when `m`
    /// still holds there, else `env` itself when `m` holds there; `None` when it does not.
    /// With a free-threaded CPython ABI tag, the completions that also add `free-threading`
    /// come first, then the same without it (the marker may rule it out), so that the other
    /// fields are filled in either way.
    fn keeping(&self, m: Marker, env: Environment) -> Option<Environment> {
        // With every extended field Absent (a witness of standard fields) every invariant
        // holds already.
        let extended = Field::ALL.iter().any(|&f| {
            f.is_extended()
                && match env.get(f) {
                    Some(EnvValue::String(s)) => !s.is_empty(),
                    Some(EnvValue::Set(items)) => !items.is_empty(),
                    _ => false,
                }
        });
        let free_threaded = match env.get(Field::PythonAbiTag) {
            Some(EnvValue::String(tag)) => crate::theory::cpython_abi_tag(tag) == Some(true),
            _ => false,
        };
        let tries: &[(usize, bool)] = match (extended, free_threaded) {
            (false, _) => &[],
            (true, false) => &[(0, false), (1, false)],
            (true, true) => &[(0, true), (1, true), (0, false), (1, false)],
        };
        for &(alternative, threading) in tries {
            let completed = complete_invariants(&env, alternative, threading);
            if self.evaluate_env(m, &completed).unwrap_or(false) {
                return Some(completed);
            }
        }
        self.evaluate_env(m, &env).unwrap_or(false).then_some(env)
    }
}

/// `env` with the values an environment document must have beside those a witness sets:
/// SPEC §4.4's invariants I1 to I4 and I6, filled in where the witness left a field Absent or
/// empty (a witness sets the fields its marker reads, and leaves the others at the default
/// environment's Absent): the stack's version for a listed GPU backend and the backend for a
/// given version (I1, I3), consistent compute capabilities (I2), the variant features,
/// namespaces and label its properties imply, and a property for a feature or namespace
/// without one (I4), both cuDNN fields (I6), and with `threading` `free-threading` for a
/// free-threaded CPython ABI tag (`platform`'s `abi-tag-threading` rule), unless
/// `sys_abi_features` holds `gil-enabled`. A value filled in may be one the marker reads
/// after all (a member literal it names): the caller keeps the completion only where the
/// marker still holds, and tries a second set of filler values (`alternative` 1) when the
/// first (0) changes it. I5 and I7 are left alone: a witness breaks them only where its marker
/// asks for both sides.
fn complete_invariants(env: &Environment, alternative: usize, threading: bool) -> Environment {
    let pick = |[first, second]: [&'static str; 2]| if alternative == 0 { first } else { second };
    let mut env = env.clone();
    let present = |env: &Environment, f: Field| match env.get(f) {
        Some(EnvValue::String(s)) => !s.is_empty(),
        Some(EnvValue::Set(items)) => !items.is_empty(),
        _ => false,
    };
    let members = |env: &Environment, f: Field| -> Vec<Box<str>> {
        match env.get(f) {
            Some(EnvValue::Set(items)) => items.clone(),
            _ => Vec::new(),
        }
    };
    let add = |env: &mut Environment, f: Field, item: &str| {
        let mut items = members(env, f);
        if !items.iter().any(|x| &**x == item) {
            items.push(item.into());
            let _ = env.set(f, EnvValue::Set(items));
        }
    };
    let fill = |env: &mut Environment, f: Field, value: &str| {
        if !present(env, f) {
            let _ = env.set(f, EnvValue::String(value.into()));
        }
    };
    // I4: features and namespaces as the properties imply them, each feature and namespace
    // with a property, and a label when there are properties.
    let mut properties = members(&env, Field::VariantProperties);
    for f in members(&env, Field::VariantFeatures) {
        if !properties
            .iter()
            .any(|p| p.starts_with(&format!("{f} :: ")[..]))
        {
            properties.push(format!("{f} :: {}", pick(["1", "2"])).into());
        }
    }
    for n in members(&env, Field::VariantNamespaces) {
        if !properties
            .iter()
            .any(|p| p.starts_with(&format!("{n} :: ")[..]))
        {
            properties.push(format!("{n} :: {} :: 1", pick(["x", "y"])).into());
        }
    }
    if !properties.is_empty() {
        let _ = env.set(Field::VariantProperties, EnvValue::Set(properties.clone()));
        for p in &properties {
            let parts: Vec<&str> = p.split(" :: ").collect();
            if let [n, f, _] = parts.as_slice() {
                add(&mut env, Field::VariantFeatures, &format!("{n} :: {f}"));
                add(&mut env, Field::VariantNamespaces, n);
            }
        }
        let label = matches!(env.get(Field::VariantLabel), Some(EnvValue::String(s)) if !s.is_empty() && &**s != "null");
        if !label {
            let label = pick(["variant", "variant2"]);
            let _ = env.set(Field::VariantLabel, EnvValue::String(label.into()));
        }
    }
    // I2: the set holds the lowest and highest capability, which are its minimum and maximum.
    let mut caps: Vec<Version> = members(&env, Field::CudaComputeCapabilities)
        .iter()
        .filter_map(|c| c.parse().ok())
        .collect();
    for f in [
        Field::CudaComputeCapability,
        Field::CudaComputeCapabilityMax,
    ] {
        if let Some(EnvValue::String(s)) = env.get(f) {
            if let Ok(v) = s.parse::<Version>() {
                caps.push(v);
            }
        }
    }
    caps.sort();
    caps.dedup();
    if let (Some(lo), Some(hi)) = (caps.first(), caps.last()) {
        let (lo, hi) = (lo.to_string(), hi.to_string());
        let mut items = members(&env, Field::CudaComputeCapabilities);
        for c in [&lo, &hi] {
            if !items
                .iter()
                .any(|x| x.parse::<Version>().ok() == c.parse().ok())
            {
                items.push(c.as_str().into());
            }
        }
        let _ = env.set(Field::CudaComputeCapabilities, EnvValue::Set(items));
        let _ = env.set(Field::CudaComputeCapability, EnvValue::String(lo.into()));
        let _ = env.set(Field::CudaComputeCapabilityMax, EnvValue::String(hi.into()));
        add(&mut env, Field::GpuBackends, "cuda");
    }
    // I1 and I3: a backend is listed exactly when its stack is there.
    if present(&env, Field::CudaVersion) {
        add(&mut env, Field::GpuBackends, "cuda");
    }
    if present(&env, Field::RocmGpuArchs) {
        add(&mut env, Field::GpuBackends, "rocm");
    }
    let backends = members(&env, Field::GpuBackends);
    if backends.iter().any(|b| &**b == "cuda") {
        fill(&mut env, Field::CudaVersion, pick(["12.0", "11.8"]));
    }
    if backends.iter().any(|b| &**b == "rocm") && !present(&env, Field::RocmGpuArchs) {
        add(&mut env, Field::RocmGpuArchs, pick(["gfx90a", "gfx942"]));
    }
    // I6: cuDNN and the CUDA version it was built for, together.
    if present(&env, Field::CudnnVersion) || present(&env, Field::CudnnCudaVersion) {
        fill(&mut env, Field::CudnnVersion, pick(["9.0", "8.9"]));
        fill(&mut env, Field::CudnnCudaVersion, pick(["12.0", "11.8"]));
    }
    // The `abi-tag-threading` rule (SPEC §21.3) for a tag the witness set without a rule to
    // follow (a tag named only inside a substring test, `'cp313t' in python_abi_tag`): a
    // free-threaded build's tag with `free-threading`, unless the features say otherwise.
    let free_threaded = match env.get(Field::PythonAbiTag) {
        Some(EnvValue::String(tag)) => crate::theory::cpython_abi_tag(tag),
        _ => None,
    };
    if threading && free_threaded == Some(true) {
        let features = members(&env, Field::SysAbiFeatures);
        if !features.iter().any(|f| &**f == "gil-enabled") {
            add(&mut env, Field::SysAbiFeatures, "free-threading");
        }
    }
    env
}

/// Values to try for a field compared with `literal` by an opaque comparison: the literal, the
/// literal inside a longer string, parts of it, and versions around it.
/// Whether a standard version field's value `s` is inside the model as text (SPEC §21.2): not
/// a version, or a version spelt as it prints. A version spelt otherwise (`15.15-dev6+ubuntu`
/// for `15.15.dev6+ubuntu`) is the same value to a version comparison but another text to a
/// comparison as text, so a witness that an opaque comparison (`===`) would give it could
/// break the marker's other comparisons of the field: such a candidate is not offered.
fn spelt_as_printed(field: Field, s: &str) -> bool {
    if field.is_extended()
        || !matches!(
            field.field_type(),
            FieldType::Version | FieldType::VersionOrString
        )
    {
        return true;
    }
    s.parse::<Version>().map_or(true, |v| v.to_string() == s)
}

fn opaque_candidates(literal: &str) -> Vec<String> {
    let mut out = vec![
        literal.to_owned(),
        format!("{literal}x"),
        format!("x{literal}"),
        String::from("other"),
    ];
    out.extend(literal.split_whitespace().map(str::to_owned));
    let bare = strip(literal).trim_start_matches(['=', '!', '<', '>', '~']);
    let bare = bare.strip_suffix(".*").unwrap_or(bare);
    if let Ok(v) = bare.parse::<Version>() {
        let r: Vec<u64> = v.release().to_vec();
        let text = |r: &[u64]| r.iter().map(u64::to_string).collect::<Vec<_>>().join(".");
        out.push(text(&r));
        let mut up = r.clone();
        up.push(1);
        out.push(text(&up));
        if let Some((last, head)) = r.split_last() {
            // `checked_add`: a release number may be `u64::MAX`.
            if let Some(n) = last.checked_add(1) {
                let mut next = head.to_vec();
                next.push(n);
                out.push(text(&next));
            }
            if *last > 0 {
                let mut prev = head.to_vec();
                prev.push(last - 1);
                out.push(text(&prev));
            }
        }
        out.push("0".into());
    }
    out.dedup();
    out
}

/// The `python_version` of a `python_full_version` text ([`python_version_of`]), or the text
/// itself when it is no version.
fn python_version_text(full: &str) -> String {
    match full.parse::<Version>() {
        Ok(v) => python_version_of(&v),
        Err(_) => full.to_owned(),
    }
}

/// The `python_version` of a full version, as the model reads it: its first two release
/// components, the epoch kept (`1!2.3`: `python_version == "1!2.*"` is read on it).
fn python_version_of(v: &Version) -> String {
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

/// Whether a text is outside the text variable's domain: a version, or a version wildcard.
fn not_a_text_value(l: &str) -> bool {
    l.parse::<Version>().is_ok()
        || l.strip_suffix(".*")
            .is_some_and(|p| p.parse::<Version>().is_ok())
}

/// Whether `l` is numbers joined by dots (`3.12`), with or without a trailing `.*`: text
/// that is a version exactly when it parses as a specifier's version.
fn plain_release(l: &str) -> bool {
    let release = l.strip_suffix(".*").unwrap_or(l);
    !release.is_empty()
        && release
            .split('.')
            .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Translates a marker as the parser reads it ([`Context::parse_marker`]), conjoining each
/// chain as `translate_all` does. After the first error nothing more is translated: the error
/// is kept in `failed` and every value from then on is a placeholder (`false`) that
/// `parse_marker` never returns. Values are plain markers, not results, so that the parser's
/// chains hold and move eight bytes per operand with no drop glue.
struct Translator<'c> {
    ctx: &'c mut Context,
    profile: Profile,
    failed: Option<Error>,
}

impl Translator<'_> {
    /// The conjunction of `operands` (of their negations when `negate`), reordered in place.
    fn conjoin(&mut self, operands: &mut [Marker], negate: bool) -> Marker {
        if self.failed.is_some() {
            return Marker::FALSE;
        }
        if negate {
            for o in operands.iter_mut() {
                *o = !*o;
            }
        }
        let r = self.ctx.and_all(operands);
        self.note(r)
    }

    /// The marker of `r`, remembering an error (and giving the placeholder for it).
    fn note(&mut self, r: Result<Marker, Error>) -> Marker {
        match r {
            Ok(m) => m,
            Err(e) => {
                if self.failed.is_none() {
                    self.failed = Some(e);
                }
                Marker::FALSE
            }
        }
    }
}

impl MarkerBuilder for Translator<'_> {
    type Value = Marker;

    fn comparison(&mut self, expr: &MarkerExpression) -> Marker {
        if self.failed.is_some() {
            return Marker::FALSE;
        }
        let r = self.ctx.translate_expression(expr, self.profile);
        self.note(r)
    }

    fn constant(&mut self, value: bool) -> Marker {
        if value { Marker::TRUE } else { Marker::FALSE }
    }

    fn and(&mut self, operands: &mut [Marker]) -> Marker {
        self.conjoin(operands, false)
    }

    fn or(&mut self, operands: &mut [Marker]) -> Marker {
        !self.conjoin(operands, true)
    }
}

/// `field op literal` (field on the left) as `spec-2026` reads it, for a standard version
/// field (`FieldType::Version` or `VersionOrString`) and a literal that reads as a version
/// or a version wildcard: the set of the field's version variable where it holds. The text
/// variable plays no part: no text value reads as a version, so the string rule is false on
/// every text, except for `!=`, which holds on every text, i.e. on the absent value of the
/// version variable. `None` for any other comparison (its translation also needs the text
/// variable, or an opaque atom).
///
/// The translation (`standard_spec`) and the printer's search for a literal's spelling both
/// read comparisons through this one function.
pub(crate) fn spec_version_set(field: Field, op: O, literal: &str) -> Option<VersionSet> {
    if field.is_extended()
        || !matches!(
            field.field_type(),
            FieldType::Version | FieldType::VersionOrString
        )
        || continues_operator(literal)
        // (A plain release, the usual literal, is a version when `specifier` reads one: no
        // need to parse it twice.)
        || !(plain_release(literal) || not_a_text_value(literal))
    {
        return None;
    }
    let spec = specifier(op, literal)?;
    let set = version_field_set(field, &spec);
    Some(if op == O::NotEqual {
        set.with_absent()
    } else {
        set
    })
}

/// [`spec_version_set`] of a literal that is the text of `version` (its `Display`, with `.*`
/// after it when `wildcard`), read from the version itself: the same set, without parsing the
/// text again (the printer's candidates are versions it has already built). `None` where the
/// text would make no specifier with `op` (a local label with an ordering operator, a
/// wildcard with one, `~=` with one release number) and for the comparisons
/// `spec_version_set` reads no set for.
pub(crate) fn version_comparison_set(
    field: Field,
    op: O,
    version: &Version,
    wildcard: bool,
) -> Option<VersionSet> {
    use markerspec_pep440::Operator as P;
    if field.is_extended()
        || !matches!(
            field.field_type(),
            FieldType::Version | FieldType::VersionOrString
        )
    {
        return None;
    }
    let equality = matches!(op, O::Equal | O::NotEqual);
    if (wildcard || !version.local().is_empty()) && !equality {
        return None;
    }
    if wildcard
        && (version.pre().is_some()
            || version.post().is_some()
            || version.dev().is_some()
            || !version.local().is_empty())
    {
        return None;
    }
    let p = match (pep440_operator(op)?, wildcard) {
        (P::Equal, true) => P::EqualStar,
        (P::NotEqual, true) => P::NotEqualStar,
        // (`~=` needs two release numbers.)
        (P::TildeEqual, _) if version.release().len() < 2 => return None,
        (p, _) => p,
    };
    let set = version_field_set_of(field, p, version);
    Some(if op == O::NotEqual {
        set.with_absent()
    } else {
        set
    })
}

/// The set of a version field's values satisfying `spec` (never ⊥): `python_version` as a
/// set of `python_full_version`s; extended fields moved onto release blocks.
fn version_field_set(field: Field, spec: &VersionSpecifier) -> VersionSet {
    version_field_set_of(field, spec.operator(), spec.version())
}

/// [`version_field_set`] of the specifier `op version`.
fn version_field_set_of(
    field: Field,
    op: markerspec_pep440::Operator,
    version: &Version,
) -> VersionSet {
    let set = if field == Field::PythonVersion {
        VersionSet::python_version_preimage_of(op, version)
    } else {
        VersionSet::from_comparison(op, version)
    }
    .unwrap_or_default();
    if is_extended_version(field) {
        set.release_only()
    } else {
        set
    }
}

/// The fixed environment a witness starts from: CPython 3.12.0 on x86-64 Linux, no extras,
/// every extended field Absent.
///
/// ```
/// use markerspec_pep508::{EnvValue, Field};
///
/// let env = markerspec_algebra::default_environment();
/// assert_eq!(env.get(Field::PythonFullVersion), Some(&EnvValue::String("3.12.0".into())));
/// assert_eq!(env.get(Field::CudaVersion), Some(&EnvValue::Absent));
/// assert_eq!(env.extras().count(), 0);
/// ```
#[must_use]
pub fn default_environment() -> Environment {
    default_environment_ref().clone()
}

/// [`default_environment`], built once (each witness starts from it), borrowed.
fn default_environment_ref() -> &'static Environment {
    static DEFAULT: std::sync::LazyLock<Environment> =
        std::sync::LazyLock::new(build_default_environment);
    &DEFAULT
}

fn build_default_environment() -> Environment {
    let mut env = Environment::new()
        .with_unchecked(Field::OsName, "posix")
        .with_unchecked(Field::SysPlatform, "linux")
        .with_unchecked(Field::PlatformMachine, "x86_64")
        .with_unchecked(Field::PlatformPythonImplementation, "CPython")
        .with_unchecked(Field::PlatformRelease, "6.8.0")
        .with_unchecked(Field::PlatformSystem, "Linux")
        .with_unchecked(Field::PlatformVersion, "#1 SMP")
        .with_unchecked(Field::PythonVersion, "3.12")
        .with_unchecked(Field::PythonFullVersion, "3.12.0")
        .with_unchecked(Field::ImplementationName, "cpython")
        .with_unchecked(Field::ImplementationVersion, "3.12.0");
    for f in Field::ALL {
        if f.is_extended() {
            let _ = env.set(*f, EnvValue::Absent);
        }
    }
    env
}

/// A comparison and the profile it was read under: the key of the context's translation cache.
#[derive(Clone, Debug)]
pub(crate) struct ExpressionKey {
    lhs: MarkerValue,
    op: O,
    rhs: MarkerValue,
    profile: Profile,
}

#[cfg(test)]
mod tests {

    /// `plain_release` says which literals are numbers joined by dots (with or without `.*`):
    /// for those `spec_version_set` skips the check that the text is a version.
    #[test]
    fn plain_releases_are_numbers_joined_by_dots() {
        for l in ["3", "3.12", "3.12.0", "10.0.19045", "3.12.*", "0"] {
            assert!(super::plain_release(l), "{l}");
        }
        for l in [
            "",
            ".*",
            "3.",
            ".3",
            "3..1",
            "3.*.1",
            "3.12a1",
            " 3.12",
            "3.12 ",
            "v3.12",
            "3.x",
            "1!3.12",
            "3.12+local",
            "3.12.**",
        ] {
            assert!(!super::plain_release(l), "{l}");
        }
    }
    use super::push_quoted;

    /// The `python_version` a witness writes for a full version is the one the model reads
    /// (`VersionSet::python_version_preimage`), epoch included: a witness's full version with
    /// an epoch, written with a `python_version` that dropped it, did not satisfy its cell
    /// (found by the `algebra_laws` fuzz target).
    #[test]
    fn witness_python_version_is_the_models() -> Result<(), markerspec_pep440::Error> {
        use crate::{Point, VersionSet};
        use markerspec_pep440::Version;
        assert_eq!(super::python_version_text("3!3.1.18.post2"), "3!3.1");
        assert_eq!(super::python_version_text("3.12.0rc1"), "3.12");
        assert_eq!(super::python_version_text("dev"), "dev");
        for full in [
            "3.1.18",
            "3!3.1.18",
            "1!2",
            "3.12.0rc1",
            "2!0.0.1+local",
            "3.8.post1",
        ] {
            let v: Version = full.parse()?;
            let written: Version = super::python_version_of(&v).parse()?;
            for spec in [
                ">=3.8", "<3.8", "==3.1", "==3!3.1", ">2!0", "==1!2.0", "!=3.12",
            ] {
                let set = VersionSet::python_version_preimage(&spec.parse()?);
                let modelled = set.is_some_and(|s| s.contains(&Point::Version(v.clone())));
                let read = spec
                    .parse::<markerspec_pep440::VersionSpecifier>()?
                    .contains(&written);
                assert_eq!(modelled, read, "{full} against {spec}");
            }
        }
        Ok(())
    }

    #[test]
    fn push_quoted_writes_what_debug_writes() {
        for s in [
            "",
            "gpu",
            "extra-7-nemo-rl-automodel",
            "a b",
            "it's",
            "say \"hi\"",
            "back\\slash",
            "tab\there",
            "new\nline",
            "café",
            "\u{7f}",
            "zero\u{200b}width",
        ] {
            let mut out = String::new();
            push_quoted(&mut out, s);
            assert_eq!(out, format!("{s:?}"), "{s:?}");
        }
    }

    /// A version literal's comparison is one set of the version variable
    /// (`spec_version_set`): the same marker as the general translation, the version set
    /// or'ed with the text variable's string rule, built here the long way.
    #[test]
    fn version_literals_translate_as_the_general_rule_does()
    -> Result<(), Box<dyn std::error::Error>> {
        use markerspec_pep508::{
            Field, MarkerExpression, MarkerOperator as O, MarkerValue, Profile,
        };

        use super::{Side, spec_version_set, specifier, version_field_set};
        use crate::Context;

        let mut ctx = Context::new();
        let mut shortcut = 0;
        for field in [
            Field::PythonVersion,
            Field::PythonFullVersion,
            Field::ImplementationVersion,
            Field::PlatformRelease,
        ] {
            for op in [
                O::Equal,
                O::NotEqual,
                O::LessThan,
                O::LessThanEqual,
                O::GreaterThan,
                O::GreaterThanEqual,
                O::TildeEqual,
            ] {
                for literal in [
                    "3.9",
                    "3.9.*",
                    "3.13.0rc1",
                    "3.12.1.post2",
                    "1!2.0",
                    "3.9+local",
                    "5.15.0-generic",
                    "3",
                    "3.*",
                    " 3.9",
                    "3.9 ",
                ] {
                    let e = MarkerExpression::new(
                        MarkerValue::Field(field),
                        op,
                        MarkerValue::Literal(literal.into()),
                    );
                    let got = ctx.translate_expression(&e, Profile::Spec2026)?;
                    let Some(set) = spec_version_set(field, op, literal) else {
                        continue;
                    };
                    shortcut += 1;
                    let spec = specifier(op, literal).ok_or("a specifier")?;
                    let v = ctx.version_var(field)?;
                    let on_versions = ctx.version_set(v, &version_field_set(field, &spec))?;
                    let fallback =
                        ctx.text_fallback(field, op, literal, Side::FieldLeft, Profile::Spec2026)?;
                    let long_way = ctx.or(on_versions, fallback)?;
                    assert_eq!(got, long_way, "{e}");
                    assert_eq!(ctx.version_set(v, &set)?, long_way, "{e}");
                }
            }
        }
        // Most of the grid takes the shortcut; `5.15.0-generic` and `~=` on one number do not.
        assert!(shortcut > 150, "{shortcut}");
        // Nor does a string field, or an extended version field (translated by its own rule).
        for field in [Field::SysPlatform, Field::CudaVersion, Field::Extra] {
            for literal in ["3.9", "3.9.*"] {
                assert_eq!(
                    spec_version_set(field, O::Equal, literal),
                    None,
                    "{field:?}"
                );
            }
        }
        Ok(())
    }

    /// A field with an opaque comparison and another comparison that the opaque one's first
    /// candidate value breaks: `"arm" in platform_machine` holds on `arm`, the exception of
    /// `!= "arm"`. The witness takes the next candidate (`armx`) rather than failing with
    /// `unverified-witness`, which it did when each candidate was checked against the field's
    /// opaque comparisons alone.
    #[test]
    fn a_witness_satisfies_an_opaque_comparison_and_the_field_s_other_ones()
    -> Result<(), Box<dyn std::error::Error>> {
        use crate::{Context, Theory};
        use markerspec_pep508::{Dialect, EnvValue, Field, MarkerTree, ParseOptions};
        let opts = ParseOptions::default().dialect(Dialect::Extended);
        for (text, field) in [
            (
                "'arm' in platform_machine and platform_machine != 'arm'",
                Field::PlatformMachine,
            ),
            (
                "'linux' in sys_platform and sys_platform not in 'linux'",
                Field::SysPlatform,
            ),
            (
                "'arm' in interpreter_arch and interpreter_arch != 'arm'",
                Field::InterpreterArch,
            ),
        ] {
            let mut ctx = Context::new();
            let tree = MarkerTree::parse_with(text, &opts, &mut Vec::new())?;
            let m = ctx.from_marker(&tree, &Theory::none())?;
            let env = ctx.solve_environment(m)?.ok_or("unsatisfiable")?;
            assert!(tree.evaluate(&env)?, "{text}: {env:?}");
            let Some(EnvValue::String(value)) = env.get(field) else {
                return Err(format!("{text}: no value for {field}").into());
            };
            assert!(
                value.contains("arm") || value.contains("linux"),
                "{text}: {value}"
            );
        }
        // Two fields that each need a later candidate (found by a review: the fields were
        // tried one at a time, each from the first witness).
        let text = "'arm' in platform_machine and 'linux' in sys_platform and \
                    sys_platform != 'linux' and platform_machine != 'arm'";
        let mut ctx = Context::new();
        let tree = MarkerTree::parse_with(text, &opts, &mut Vec::new())?;
        let m = ctx.from_marker(&tree, &Theory::none())?;
        let env = ctx.solve_environment(m)?.ok_or("unsatisfiable")?;
        assert!(tree.evaluate(&env)?, "{text}: {env:?}");
        // A candidate the field cannot hold is never the witness (an `interpreter_arch` of
        // `XARM` reads back as `xarm`, where the marker is false): no witness, rather than a
        // wrong one (found by the same review).
        for text in [
            "'XARM' in interpreter_arch and interpreter_arch != 'XARM'",
            "'XARM' in interpreter_arch",
        ] {
            let tree = MarkerTree::parse_with(text, &opts, &mut Vec::new())?;
            let m = ctx.from_marker(&tree, &Theory::none())?;
            match ctx.solve_environment(m) {
                Err(e) => assert_eq!(e.code(), "unverified-witness", "{text}"),
                Ok(Some(env)) => {
                    let arch = match env.get(Field::InterpreterArch) {
                        Some(EnvValue::String(s)) => s.to_string(),
                        other => format!("{other:?}"),
                    };
                    let read = markerspec_pep508::Environment::new()
                        .with(Field::InterpreterArch, &arch)?;
                    assert!(tree.evaluate(&read)?, "{text}: a wrong witness {env:?}");
                }
                Ok(None) => {}
            }
        }
        // A version spelt otherwise than it prints is outside the model as text: `===`'s
        // literal `15.15-dev6+ubuntu` is the version `15.15.dev6+ubuntu` to the model, but the
        // comparison as text (`<=` takes no local version, so `>=` with the literal on the left
        // is text equality, SPEC §5.1) holds only on `15.15.dev6+ubuntu`. No witness, rather
        // than one where the marker is false (found by `algebra_realistic`). A literal spelt as
        // it prints still gives one.
        let text = "'15.15.dev6+ubuntu' >= python_full_version and \
                    '15.15-dev6+ubuntu' === python_full_version";
        let tree = MarkerTree::parse_with(text, &opts, &mut Vec::new())?;
        let m = ctx.from_marker(&tree, &Theory::none())?;
        match ctx.solve_environment(m) {
            Err(e) => assert_eq!(e.code(), "unverified-witness", "{text}"),
            Ok(Some(env)) => assert!(tree.evaluate(&env)?, "{text}: a wrong witness {env:?}"),
            Ok(None) => {}
        }
        for text in [
            "python_full_version === '3.12' and python_full_version >= '3.12'",
            "'15.15.dev6+ubuntu' >= python_full_version and \
             '15.15.dev6+ubuntu' === python_full_version",
        ] {
            let tree = MarkerTree::parse_with(text, &opts, &mut Vec::new())?;
            let m = ctx.from_marker(&tree, &Theory::none())?;
            let env = ctx.solve_environment(m)?.ok_or("unsatisfiable")?;
            assert!(tree.evaluate(&env)?, "{text}: {env:?}");
        }
        Ok(())
    }

    /// Witness environments stay near the default environment and inside the `platform`
    /// rules where the marker allows, whatever the context's theory; where the marker needs
    /// an environment outside the rules, it gets one.
    #[test]
    fn witnesses_prefer_the_default_and_the_platform_rules()
    -> Result<(), Box<dyn std::error::Error>> {
        use crate::{Context, Theory};
        use markerspec_pep508::{EnvValue, Field, MarkerTree};
        let get = |env: &markerspec_pep508::Environment, f: Field| match env.get(f) {
            Some(EnvValue::String(s)) => s.to_string(),
            other => format!("{other:?}"),
        };
        for theory in [Theory::none(), Theory::platform()] {
            let mut ctx = Context::new();
            let tree: MarkerTree = "sys_platform == 'win32' and extra == 'cli'".parse()?;
            let m = ctx.from_marker(&tree, &theory)?;
            let env = ctx.solve_environment(m)?.ok_or("unsatisfiable")?;
            assert_eq!(get(&env, Field::OsName), "nt", "{}", theory.name());
            assert_eq!(get(&env, Field::PlatformSystem), "Windows");
            assert_eq!(get(&env, Field::PythonFullVersion), "3.12.0");
            assert_eq!(get(&env, Field::PlatformMachine), "x86_64");
            assert_eq!(env.extras().collect::<Vec<_>>(), ["cli"]);
            // `neither` lies inside the context's theory.
            let b: MarkerTree = "sys_platform == 'linux'".parse()?;
            let b = ctx.from_marker(&b, &theory)?;
            let [_, _, _, neither] = ctx.cells(m, b)?;
            let env = ctx.solve_environment(neither)?.ok_or("unsatisfiable")?;
            let care = ctx.theory_constraint(&theory)?;
            assert!(ctx.evaluate_env(care, &env)?, "{}: {env:?}", theory.name());
        }
        // A default the walk can keep is kept (the first edges would give `3.9` and another
        // platform); one an opaque comparison contradicts is given up for that field alone.
        for (text, theory, field, value) in [
            (
                "python_full_version >= '3.9'",
                Theory::none(),
                Field::PythonFullVersion,
                "3.12.0",
            ),
            (
                "sys_platform != 'darwin'",
                Theory::none(),
                Field::SysPlatform,
                "linux",
            ),
            (
                "'linux' not in sys_platform and python_full_version >= '3.9'",
                Theory::platform(),
                Field::PythonFullVersion,
                "3.12.0",
            ),
        ] {
            let mut ctx = Context::new();
            let tree: MarkerTree = text.parse()?;
            let m = ctx.from_marker(&tree, &theory)?;
            let env = ctx.solve_environment(m)?.ok_or("unsatisfiable")?;
            assert_eq!(get(&env, field), value, "{text}: {env:?}");
            assert!(tree.evaluate(&env)?, "{text}: {env:?}");
        }
        // Outside the rules only: still a witness.
        let mut ctx = Context::new();
        let tree: MarkerTree = "sys_platform == 'win32' and os_name == 'posix'".parse()?;
        let m = ctx.from_marker(&tree, &Theory::none())?;
        let env = ctx.solve_environment(m)?.ok_or("unsatisfiable")?;
        assert_eq!(get(&env, Field::OsName), "posix");
        Ok(())
    }

    /// The invariants of SPEC §4.4 that [`complete_invariants`](super::complete_invariants)
    /// fills in, as one test per environment: the names of those broken.
    fn broken(env: &markerspec_pep508::Environment) -> Vec<&'static str> {
        use markerspec_pep508::{EnvValue, Field};
        let text = |f: Field| match env.get(f) {
            Some(EnvValue::String(s)) => s.to_string(),
            _ => String::new(),
        };
        let set = |f: Field| match env.get(f) {
            Some(EnvValue::Set(items)) => items.iter().map(ToString::to_string).collect(),
            _ => Vec::<String>::new(),
        };
        let backends = set(Field::GpuBackends);
        let listed = |b: &str| backends.iter().any(|x| x == b);
        let mut out = Vec::new();
        if listed("cuda") == text(Field::CudaVersion).is_empty() {
            out.push("I1");
        }
        let caps = set(Field::CudaComputeCapabilities);
        let (lo, hi) = (
            text(Field::CudaComputeCapability),
            text(Field::CudaComputeCapabilityMax),
        );
        let two = |s: &str| s.split('.').count() == 2;
        let mut order: Vec<markerspec_pep440::Version> =
            caps.iter().filter_map(|c| c.parse().ok()).collect();
        order.sort();
        let (min, max) = (
            order.first().map(ToString::to_string).unwrap_or_default(),
            order.last().map(ToString::to_string).unwrap_or_default(),
        );
        if caps.is_empty() != lo.is_empty()
            || caps.is_empty() != hi.is_empty()
            || (!caps.is_empty() && !listed("cuda"))
            || !caps.iter().all(|c| two(c))
            || !(lo.is_empty() || two(&lo) && caps.contains(&lo))
            || !(hi.is_empty() || two(&hi) && caps.contains(&hi))
            || lo != min
            || hi != max
        {
            out.push("I2");
        }
        if listed("rocm") == set(Field::RocmGpuArchs).is_empty() {
            out.push("I3");
        }
        let properties = set(Field::VariantProperties);
        let mut features: Vec<String> = properties
            .iter()
            .filter_map(|p| p.rsplit_once(" :: ").map(|(f, _)| f.to_owned()))
            .collect();
        let mut namespaces: Vec<String> = properties
            .iter()
            .filter_map(|p| p.split_once(" :: ").map(|(n, _)| n.to_owned()))
            .collect();
        for v in [&mut features, &mut namespaces] {
            v.sort();
            v.dedup();
        }
        let mut given = (set(Field::VariantFeatures), set(Field::VariantNamespaces));
        given.0.sort();
        given.1.sort();
        let label = text(Field::VariantLabel);
        if given != (features, namespaces)
            || (!properties.is_empty() && (label.is_empty() || label == "null"))
        {
            out.push("I4");
        }
        if text(Field::CudnnVersion).is_empty() != text(Field::CudnnCudaVersion).is_empty() {
            out.push("I6");
        }
        out
    }

    /// A witness of an extended marker has the values SPEC §4.4 ties to the ones its marker
    /// reads, and still satisfies the marker (a filler that the marker names is replaced by the
    /// second choice, or left out).
    #[test]
    fn witnesses_keep_the_cross_field_invariants() -> Result<(), Box<dyn std::error::Error>> {
        use crate::{Context, Theory};
        use markerspec_pep508::{Dialect, MarkerTree, ParseOptions};
        let opts = ParseOptions::default().dialect(Dialect::Extended);
        for (text, broken_after) in [
            (r#""cuda" in gpu_backends"#, &[][..]),
            (r#"cuda_version >= "12""#, &[]),
            (r#""rocm" in gpu_backends"#, &[]),
            (r#""gfx90a" in rocm_gpu_archs"#, &[]),
            (
                r#""gfx90a" not in rocm_gpu_archs and "rocm" in gpu_backends"#,
                &[],
            ),
            (
                r#""gfx90a" not in rocm_gpu_archs and "gfx942" not in rocm_gpu_archs and "rocm" in gpu_backends"#,
                &["I3"],
            ),
            (r#"cudnn_version >= "9""#, &[]),
            (r#"cudnn_cuda_version < "12""#, &[]),
            (r#""nvidia :: cuda :: 12" in variant_properties"#, &[]),
            (r#""nvidia :: cuda" in variant_features"#, &[]),
            (
                r#""nvidia" in variant_namespaces and variant_label == "cu12""#,
                &[],
            ),
            (
                r#""nvidia :: x :: 1" not in variant_properties and "nvidia" in variant_namespaces"#,
                &[],
            ),
            (r#"cuda_compute_capability >= "8.0""#, &[]),
            (
                r#"cuda_compute_capability_max < "9" and cuda_compute_capability_max != """#,
                &[],
            ),
            (
                r#""9.0" in cuda_compute_capabilities and "8.6" in cuda_compute_capabilities"#,
                &[],
            ),
            (
                r#""9.0" in cuda_compute_capabilities and cuda_compute_capability == "8.0""#,
                &[],
            ),
            // The marker asks for a broken invariant: the witness breaks it.
            (
                r#""cuda" not in gpu_backends and cuda_version >= "12""#,
                &["I1"],
            ),
        ] {
            let mut ctx = Context::new();
            let tree = MarkerTree::parse_with(text, &opts, &mut Vec::new())?;
            let m = ctx.from_marker(&tree, &Theory::none())?;
            let env = ctx.solve_environment(m)?.ok_or("unsatisfiable")?;
            assert!(tree.evaluate(&env)?, "{text}: {env:?}");
            assert_eq!(broken(&env), broken_after, "{text}: {env:?}");
        }
        // The first filler values come first; the second only where the marker names the first.
        let mut ctx = Context::new();
        for (text, arch) in [
            (r#""rocm" in gpu_backends"#, "gfx90a"),
            (
                r#""gfx90a" not in rocm_gpu_archs and "rocm" in gpu_backends"#,
                "gfx942",
            ),
        ] {
            let tree = MarkerTree::parse_with(text, &opts, &mut Vec::new())?;
            let m = ctx.from_marker(&tree, &Theory::none())?;
            let env = ctx.solve_environment(m)?.ok_or("unsatisfiable")?;
            assert_eq!(
                env.get(markerspec_pep508::Field::RocmGpuArchs),
                Some(&markerspec_pep508::EnvValue::Set(vec![arch.into()])),
                "{text}"
            );
        }
        Ok(())
    }

    /// A witness whose ABI tag is a free-threaded CPython build's lists `free-threading`, also
    /// when the marker names the tag only inside a substring test (no rule instantiated), and
    /// keeps the marker's own word where it asks otherwise.
    #[test]
    fn witnesses_with_a_free_threaded_tag_list_free_threading()
    -> Result<(), Box<dyn std::error::Error>> {
        use crate::{Context, Theory};
        use markerspec_pep508::{Dialect, EnvValue, Field, MarkerTree, ParseOptions};
        let opts = ParseOptions::default().dialect(Dialect::Extended);
        for (text, tag, features) in [
            (
                r#""cp313t" in python_abi_tag"#,
                "cp313t",
                &["free-threading"][..],
            ),
            (
                r#"python_abi_tag == "cp314t""#,
                "cp314t",
                &["free-threading"],
            ),
            (r#""cp313" in python_abi_tag"#, "cp313", &[]),
            (
                r#""cp313td" in python_abi_tag"#,
                "cp313td",
                &["free-threading"],
            ),
            // Not a CPython tag: nothing follows from it.
            (r#""pp73t" in python_abi_tag"#, "pp73t", &[]),
            (
                r#""cp313t" in python_abi_tag and "gil-enabled" in sys_abi_features"#,
                "cp313t",
                &["gil-enabled"],
            ),
        ] {
            for theory in [Theory::none(), Theory::platform()] {
                let mut ctx = Context::new();
                let tree = MarkerTree::parse_with(text, &opts, &mut Vec::new())?;
                let m = ctx.from_marker(&tree, &theory)?;
                let env = ctx.solve_environment(m)?.ok_or("unsatisfiable")?;
                assert!(tree.evaluate(&env)?, "{text}: {env:?}");
                assert_eq!(
                    env.get(Field::PythonAbiTag),
                    Some(&EnvValue::String(tag.into())),
                    "{text}"
                );
                let got: Vec<&str> = match env.get(Field::SysAbiFeatures) {
                    Some(EnvValue::Set(items)) => items.iter().map(|f| &**f).collect(),
                    // The default environment's: Absent, no feature.
                    Some(EnvValue::Absent) => Vec::new(),
                    other => return Err(format!("{text}: sys_abi_features {other:?}").into()),
                };
                assert_eq!(got, features, "{text}");
                // The same from `solve`'s witness made into an environment directly (no check
                // against the platform rules there): `gil-enabled` is not joined by
                // `free-threading`, which would break I7.
                let w = ctx.solve(m)?.ok_or("unsatisfiable")?;
                let direct = ctx.witness_environment(m, &w)?;
                let got: Vec<&str> = match direct.get(Field::SysAbiFeatures) {
                    Some(EnvValue::Set(items)) => items.iter().map(|f| &**f).collect(),
                    _ => Vec::new(),
                };
                assert!(
                    !(got.contains(&"gil-enabled") && got.contains(&"free-threading")),
                    "{text}: {got:?}"
                );
            }
        }
        // A marker that rules `free-threading` out keeps the other fill-ins (I6 here).
        let text = r#""cp313t" in python_abi_tag and "free-threading" not in sys_abi_features and cudnn_version >= "9""#;
        let tree = MarkerTree::parse_with(text, &opts, &mut Vec::new())?;
        let mut ctx = Context::new();
        let m = ctx.from_marker(&tree, &Theory::none())?;
        let env = ctx.solve_environment(m)?.ok_or("unsatisfiable")?;
        assert!(tree.evaluate(&env)?, "{text}: {env:?}");
        assert!(
            matches!(env.get(Field::CudnnCudaVersion), Some(EnvValue::String(s)) if !s.is_empty()),
            "{text}: {env:?}"
        );
        // The rule itself covers a free-threaded debug build's tag.
        let text = r#"python_abi_tag == "cp313td" and "free-threading" not in sys_abi_features"#;
        let tree = MarkerTree::parse_with(text, &opts, &mut Vec::new())?;
        let mut ctx = Context::new();
        assert!(
            ctx.from_marker(&tree, &Theory::platform())?.is_false(),
            "{text}"
        );
        Ok(())
    }

    #[test]
    fn cpython_abi_tags_are_cp_two_digits_or_more_and_their_flags_in_order() {
        use crate::theory::cpython_abi_tag;
        for (tag, want) in [
            ("cp313t", Some(true)),
            ("cp313td", Some(true)),
            ("cp27", Some(false)),
            ("cp313", Some(false)),
            ("cp313d", Some(false)),
            ("cp37m", Some(false)),
            ("cp37dm", Some(false)),
            ("cp27mu", Some(false)),
            ("cp3", None),
            ("cp3t", None),
            ("cptt", None),
            ("cp", None),
            ("cp31x", None),
            ("pp73", None),
            ("abi3", None),
            ("cp313tt", None),
            ("cp313dt", None),
            ("cp313md", None),
            ("cp313t3", None),
        ] {
            assert_eq!(cpython_abi_tag(tag), want, "{tag}");
        }
    }
}
