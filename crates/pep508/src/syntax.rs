//! The syntax tree of a marker: comparisons joined by `and` and `or`, plain data built only
//! through constructors that keep it flat, with a canonical display. What the evaluator
//! computes ahead from it lives in its lowered form ([`crate::lower`]), not here.

use std::fmt;
use std::hash::{Hash, Hasher};

use crate::field::Field;
use crate::operator::{MarkerOperator, MarkerValue};
use crate::span::Span;

/// One comparison, `lhs op rhs`.
///
/// Equality and hashing ignore the span.
///
/// ```
/// use markerspec_pep508::{Field, MarkerExpression, MarkerOperator, MarkerTree, MarkerValue, SmallStr};
///
/// let m: MarkerTree = r#"python_version >= "3.10" and os_name == "posix""#.parse()?;
/// let first = m.expressions()[0];
/// assert_eq!(first.field(), Some(Field::PythonVersion));
/// assert_eq!(first.operator(), MarkerOperator::GreaterThanEqual);
/// assert_eq!(first.rhs().as_literal(), Some("3.10"));
/// assert_eq!(first.to_string(), r#"python_version >= "3.10""#);
/// assert_eq!(first.lhs().as_field(), Some(Field::PythonVersion));
/// assert_eq!(first.span().range(), 0..24);
///
/// // Built in code: no span.
/// let built = MarkerExpression::new(
///     MarkerValue::Field(Field::OsName),
///     MarkerOperator::Equal,
///     MarkerValue::Literal(SmallStr::new("nt")),
/// );
/// assert_eq!(built.to_string(), r#"os_name == "nt""#);
/// assert!(built.span().range().is_empty());
/// assert_eq!(MarkerTree::from(built), "os_name == 'nt'".parse()?);
/// # Ok::<(), markerspec_pep508::Error>(())
/// ```
#[derive(Clone)]
pub struct MarkerExpression {
    pub(crate) lhs: MarkerValue,
    pub(crate) op: MarkerOperator,
    pub(crate) rhs: MarkerValue,
    pub(crate) span: Span,
}

impl MarkerExpression {
    /// A comparison. Prefer parsing; this constructor exists for building trees in code.
    ///
    /// See the example on [`MarkerExpression`].
    pub fn new(lhs: MarkerValue, op: MarkerOperator, rhs: MarkerValue) -> MarkerExpression {
        MarkerExpression {
            lhs,
            op,
            rhs,
            span: Span::default(),
        }
    }

    /// The left side.
    ///
    /// See the example on [`MarkerExpression`].
    pub fn lhs(&self) -> &MarkerValue {
        &self.lhs
    }

    /// The operator.
    ///
    /// See the example on [`MarkerExpression`].
    pub fn operator(&self) -> MarkerOperator {
        self.op
    }

    /// The right side.
    ///
    /// See the example on [`MarkerExpression`].
    pub fn rhs(&self) -> &MarkerValue {
        &self.rhs
    }

    /// Where the comparison was in the parsed text (empty for built trees).
    ///
    /// See the example on [`MarkerExpression`].
    pub fn span(&self) -> Span {
        self.span
    }

    /// The field this comparison reads: the left variable, else the right one.
    ///
    /// See the example on [`MarkerExpression`].
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

/// The shape of a [`MarkerTree`](crate::MarkerTree): a constant, one comparison, or an `and` /
/// `or` of at least two children. Read it with [`MarkerTree::node`](crate::MarkerTree::node):
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
    pub(crate) fn combine(self, other: MarkerNode, and: bool) -> MarkerNode {
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
