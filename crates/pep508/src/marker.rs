//! The marker tree: comparisons joined by `and` and `or`, built only through constructors that
//! keep it flat, with a canonical display.

use std::fmt;
use std::hash::{Hash, Hasher};

use markerspec_pep440::VersionSpecifier;

use crate::compare::{Fast, precompile};
use crate::field::{Dialect, Field};
use crate::operator::{MarkerOperator, MarkerValue};
use crate::options::Profile;
use crate::span::Span;

/// One comparison, `lhs op rhs`.
///
/// Equality and hashing ignore the span.
///
/// ```
/// use markerspec_pep508::{Field, MarkerOperator, MarkerTree};
///
/// let m: MarkerTree = r#"python_version >= "3.10" and os_name == "posix""#.parse()?;
/// let first = m.expressions()[0];
/// assert_eq!(first.field(), Some(Field::PythonVersion));
/// assert_eq!(first.operator(), MarkerOperator::GreaterThanEqual);
/// assert_eq!(first.rhs().as_literal(), Some("3.10"));
/// assert_eq!(first.to_string(), r#"python_version >= "3.10""#);
/// # Ok::<(), markerspec_pep508::Error>(())
/// ```
#[derive(Clone)]
pub struct MarkerExpression {
    pub(crate) lhs: MarkerValue,
    pub(crate) op: MarkerOperator,
    pub(crate) rhs: MarkerValue,
    pub(crate) span: Span,
    /// For `version_field OP "literal"`: the literal read as a PEP 440 specifier, when it is one.
    pub(crate) spec: Option<Box<VersionSpecifier>>,
    /// The shape of the comparison, for the evaluator's shortcuts.
    pub(crate) fast: Fast,
}

impl MarkerExpression {
    /// A comparison. Prefer parsing; this constructor exists for building trees in code.
    pub fn new(lhs: MarkerValue, op: MarkerOperator, rhs: MarkerValue) -> MarkerExpression {
        let mut e = MarkerExpression {
            lhs,
            op,
            rhs,
            span: Span::default(),
            spec: None,
            fast: Fast::General,
        };
        e.spec = precompile(&e.lhs, e.op, &e.rhs);
        e.fast = Fast::of(&e.lhs, e.op, &e.rhs, e.spec.is_some());
        e
    }

    /// The left side.
    pub fn lhs(&self) -> &MarkerValue {
        &self.lhs
    }

    /// The operator.
    pub fn operator(&self) -> MarkerOperator {
        self.op
    }

    /// The right side.
    pub fn rhs(&self) -> &MarkerValue {
        &self.rhs
    }

    /// Where the comparison was in the parsed text (empty for built trees).
    pub fn span(&self) -> Span {
        self.span
    }

    /// The field this comparison reads: the left variable, else the right one.
    pub fn field(&self) -> Option<Field> {
        self.lhs.as_field().or(self.rhs.as_field())
    }

    /// Whether either side is an extended field (they behave the same in every profile).
    pub(crate) fn has_extended_field(&self) -> bool {
        [&self.lhs, &self.rhs]
            .iter()
            .any(|v| v.as_field().is_some_and(Field::is_extended))
    }
}

impl PartialEq for MarkerExpression {
    fn eq(&self, other: &Self) -> bool {
        self.lhs == other.lhs && self.op == other.op && self.rhs == other.rhs
    }
}
impl Eq for MarkerExpression {}
impl Hash for MarkerExpression {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.lhs.hash(state);
        self.op.hash(state);
        self.rhs.hash(state);
    }
}

impl fmt::Debug for MarkerExpression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MarkerExpression({self})")
    }
}

impl fmt::Display for MarkerExpression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Piece by piece rather than through `write!`: printing is most of `parse -`'s time.
        fmt::Display::fmt(&self.lhs, f)?;
        f.write_str(" ")?;
        f.write_str(self.op.as_str())?;
        f.write_str(" ")?;
        fmt::Display::fmt(&self.rhs, f)
    }
}

/// A marker: comparisons joined by `and` and `or`, with the dialect and profile it was read in.
///
/// Trees are kept flat: an `and` never directly holds another `and`, an `or` never another
/// `or`, and neither holds fewer than two children (the [`MarkerNode`] children cannot be built
/// outside this crate). A marker that always holds or never holds is a constant,
/// [`MarkerTree::TRUE`] or [`MarkerTree::FALSE`], which prints as `true` or `false` and reads
/// back as itself (under the `spec-2026` and `uv` profiles; `packaging`, which never produces
/// one, rejects the words as packaging does). Redundant parentheses in the input leave no trace. Equality is structural
/// (so `a or b` and `b or a` differ) and, like hashing, ignores spans, the dialect and the
/// profile.
///
/// A tree evaluates under the profile it was parsed with ([`MarkerTree::profile`]): a marker
/// parsed under `packaging` follows packaging's rules in [`MarkerTree::evaluate`].
///
/// The canonical display writes one space around operators, `"` quotes unless the value holds
/// one, and parentheses only around an `or` inside an `and`:
///
/// ```
/// use markerspec_pep508::MarkerTree;
/// let m: MarkerTree = "(python_version>='3.8' and (os_name=='nt'))or extra=='x'".parse().unwrap();
/// assert_eq!(m.to_string(), r#"python_version >= "3.8" and os_name == "nt" or extra == "x""#);
/// assert_eq!(MarkerTree::TRUE.to_string(), "true");
/// assert_eq!("true".parse::<MarkerTree>().unwrap(), MarkerTree::TRUE);
/// ```
#[derive(Clone)]
pub struct MarkerTree {
    node: MarkerNode,
    dialect: Dialect,
    profile: Profile,
}

/// The shape of a [`MarkerTree`]: a constant, one comparison, or an `and` / `or` of at least
/// two children. Read it with [`MarkerTree::node`]:
///
/// ```
/// use markerspec_pep508::{MarkerNode, MarkerTree};
/// let m: MarkerTree = "os_name == 'nt' or os_name == 'posix'".parse().unwrap();
/// let MarkerNode::Or(children) = m.node() else { panic!() };
/// assert_eq!(children.len(), 2);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum MarkerNode {
    /// Always holds.
    True,
    /// Never holds.
    False,
    /// A single comparison.
    Expression(MarkerExpression),
    /// All children hold.
    And(Children),
    /// At least one child holds.
    Or(Children),
}

/// The children of an `and` or `or`: at least two, none of the same kind as their parent,
/// none a constant. Dereferences to a slice.
///
/// ```
/// use markerspec_pep508::{MarkerNode, MarkerTree};
///
/// let m: MarkerTree = "os_name == 'nt' and (sys_platform == 'win32' and extra == 'a')".parse()?;
/// let MarkerNode::And(children) = m.node() else { panic!("an `and`") };
/// assert_eq!(children.len(), 3); // nested `and`s are one chain
/// assert!(children.iter().all(|c| matches!(c, MarkerNode::Expression(_))));
/// # Ok::<(), markerspec_pep508::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Children(Vec<MarkerNode>);

impl std::ops::Deref for Children {
    type Target = [MarkerNode];
    fn deref(&self) -> &[MarkerNode] {
        &self.0
    }
}

impl Children {
    /// The children, to splice them into another chain.
    pub(crate) fn into_vec(self) -> Vec<MarkerNode> {
        self.0
    }
}

impl MarkerNode {
    /// `and` of parser-built children (at least two, flat).
    pub(crate) fn and_of(children: Vec<MarkerNode>) -> MarkerNode {
        MarkerNode::And(Children(children))
    }

    /// `or` of parser-built children (at least two, flat).
    pub(crate) fn or_of(children: Vec<MarkerNode>) -> MarkerNode {
        MarkerNode::Or(Children(children))
    }

    /// `a and b` (or `a or b`), kept flat, with constants folded away.
    fn combine(self, other: MarkerNode, and: bool) -> MarkerNode {
        let (unit, zero) = if and {
            (MarkerNode::True, MarkerNode::False)
        } else {
            (MarkerNode::False, MarkerNode::True)
        };
        if self == zero || other == zero {
            return zero;
        }
        if self == unit {
            return other;
        }
        if other == unit {
            return self;
        }
        let mut children = Vec::new();
        for t in [self, other] {
            match (t, and) {
                (MarkerNode::And(c), true) | (MarkerNode::Or(c), false) => children.extend(c.0),
                (t, _) => children.push(t),
            }
        }
        if and {
            MarkerNode::and_of(children)
        } else {
            MarkerNode::or_of(children)
        }
    }

    fn fmt_inner(&self, f: &mut fmt::Formatter<'_>, in_and: bool) -> fmt::Result {
        match self {
            MarkerNode::True => f.write_str("true"),
            MarkerNode::False => f.write_str("false"),
            MarkerNode::Expression(e) => fmt::Display::fmt(e, f),
            MarkerNode::And(children) => {
                for (i, c) in children.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" and ")?;
                    }
                    c.fmt_inner(f, true)?;
                }
                Ok(())
            }
            MarkerNode::Or(children) => {
                if in_and {
                    f.write_str("(")?;
                }
                for (i, c) in children.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" or ")?;
                    }
                    c.fmt_inner(f, false)?;
                }
                if in_and {
                    f.write_str(")")?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for MarkerNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_inner(f, false)
    }
}

impl fmt::Debug for MarkerNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MarkerNode({self})")
    }
}

impl PartialEq for MarkerTree {
    fn eq(&self, other: &Self) -> bool {
        self.node == other.node
    }
}
impl Eq for MarkerTree {}
impl Hash for MarkerTree {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.node.hash(state);
    }
}

impl From<MarkerExpression> for MarkerTree {
    /// The marker of one comparison, in the `spec-2026` profile and the dialect its field
    /// needs.
    fn from(e: MarkerExpression) -> MarkerTree {
        let dialect = if e.has_extended_field() {
            Dialect::Extended
        } else {
            Dialect::Pep508
        };
        MarkerTree {
            node: MarkerNode::Expression(e),
            dialect,
            profile: Profile::Spec2026,
        }
    }
}

impl MarkerTree {
    /// The marker that always holds, in the `pep508` dialect and `spec-2026` profile.
    pub const TRUE: MarkerTree = MarkerTree {
        node: MarkerNode::True,
        dialect: Dialect::Pep508,
        profile: Profile::Spec2026,
    };

    /// The marker that never holds, in the `pep508` dialect and `spec-2026` profile.
    pub const FALSE: MarkerTree = MarkerTree {
        node: MarkerNode::False,
        dialect: Dialect::Pep508,
        profile: Profile::Spec2026,
    };

    pub(crate) fn new(node: MarkerNode, dialect: Dialect, profile: Profile) -> MarkerTree {
        MarkerTree {
            node,
            dialect,
            profile,
        }
    }

    /// The tree's shape.
    pub fn node(&self) -> &MarkerNode {
        &self.node
    }

    /// The dialect the marker was parsed in (for a built tree: `extended` when it reads an
    /// extended field).
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The profile the marker was parsed with, and evaluates under.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// Whether this is [`MarkerTree::TRUE`]'s shape (always holds).
    pub fn is_true(&self) -> bool {
        self.node == MarkerNode::True
    }

    /// Whether this is [`MarkerTree::FALSE`]'s shape (never holds).
    pub fn is_false(&self) -> bool {
        self.node == MarkerNode::False
    }

    /// `self and other`, kept flat, constants folded; the dialect is the wider of the two, the
    /// profile `self`'s.
    ///
    /// ```
    /// use markerspec_pep508::MarkerTree;
    /// let a: MarkerTree = "os_name == 'nt'".parse().unwrap();
    /// let b: MarkerTree = "python_version >= '3.9'".parse().unwrap();
    /// assert_eq!(a.clone().and(b).to_string(), r#"os_name == "nt" and python_version >= "3.9""#);
    /// assert_eq!(a.clone().and(MarkerTree::TRUE), a);
    /// ```
    #[must_use]
    pub fn and(self, other: MarkerTree) -> MarkerTree {
        self.combine(other, true)
    }

    /// `self or other`, kept flat, constants folded; the dialect is the wider of the two, the
    /// profile `self`'s.
    #[must_use]
    pub fn or(self, other: MarkerTree) -> MarkerTree {
        self.combine(other, false)
    }

    fn combine(self, other: MarkerTree, and: bool) -> MarkerTree {
        let dialect = if self.dialect == Dialect::Extended || other.dialect == Dialect::Extended {
            Dialect::Extended
        } else {
            Dialect::Pep508
        };
        MarkerTree {
            node: self.node.combine(other.node, and),
            dialect,
            profile: self.profile,
        }
    }

    /// The children of an `and` or `or` as markers of their own (with this tree's dialect and
    /// profile); empty for a comparison or a constant.
    ///
    /// ```
    /// use markerspec_pep508::MarkerTree;
    /// let m: MarkerTree = "os_name == 'nt' and (extra == 'a' or extra == 'b')".parse().unwrap();
    /// let parts: Vec<String> = m.children().iter().map(|c| c.to_string()).collect();
    /// assert_eq!(parts, [r#"os_name == "nt""#, r#"extra == "a" or extra == "b""#]);
    /// ```
    pub fn children(&self) -> Vec<MarkerTree> {
        match &self.node {
            MarkerNode::And(c) | MarkerNode::Or(c) => c
                .iter()
                .map(|n| MarkerTree::new(n.clone(), self.dialect, self.profile))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Every comparison in the tree, left to right.
    pub fn expressions(&self) -> Vec<&MarkerExpression> {
        let mut out = Vec::new();
        let mut stack = vec![&self.node];
        while let Some(t) = stack.pop() {
            match t {
                MarkerNode::Expression(e) => out.push(e),
                MarkerNode::And(c) | MarkerNode::Or(c) => stack.extend(c.iter().rev()),
                MarkerNode::True | MarkerNode::False => {}
            }
        }
        out
    }

    /// The fields the tree reads, sorted and without repeats.
    ///
    /// ```
    /// use markerspec_pep508::{Field, MarkerTree};
    /// let m: MarkerTree = "os_name == 'nt' and extra == 'gpu'".parse().unwrap();
    /// assert_eq!(m.fields(), [Field::OsName, Field::Extra]);
    /// ```
    pub fn fields(&self) -> Vec<Field> {
        let mut fields: Vec<Field> = self
            .expressions()
            .into_iter()
            .flat_map(|e| [e.lhs.as_field(), e.rhs.as_field()])
            .flatten()
            .collect();
        fields.sort();
        fields.dedup();
        fields
    }

    /// The extras the marker tests with `extra == "…"` / `!=` (normalised, sorted, without
    /// repeats): the extras under which its result may change.
    ///
    /// ```
    /// use markerspec_pep508::MarkerTree;
    /// let m: MarkerTree = "extra == 'GPU' or extra == 'test' and os_name == 'nt'".parse().unwrap();
    /// assert_eq!(m.extras(), ["gpu", "test"]);
    /// ```
    pub fn extras(&self) -> Vec<&str> {
        let mut extras: Vec<&str> = self
            .expressions()
            .into_iter()
            .filter_map(|e| match (&e.lhs, &e.rhs) {
                (MarkerValue::Field(Field::Extra), MarkerValue::Literal(l))
                | (MarkerValue::Literal(l), MarkerValue::Field(Field::Extra)) => Some(&**l),
                _ => None,
            })
            .collect();
        extras.sort_unstable();
        extras.dedup();
        extras
    }
}

impl fmt::Display for MarkerTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.node, f)
    }
}

impl fmt::Debug for MarkerTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MarkerTree({self})")
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for MarkerTree {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for MarkerTree {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}
