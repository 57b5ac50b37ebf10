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

impl MarkerExpression {
    /// Writes the comparison as `Display` does, into any [`fmt::Write`]: piece by piece rather
    /// than through `write!`, printing being most of `parse -`'s time.
    pub(crate) fn write_to<W: fmt::Write>(&self, f: &mut W) -> fmt::Result {
        self.lhs.write_to(f)?;
        f.write_str(self.op.spaced())?;
        self.rhs.write_to(f)
    }
}

impl fmt::Display for MarkerExpression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
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

/// The children of an `and` or `or`: at least two, none a constant, and none of the same kind
/// as their parent except a kept group (below). Dereferences to a slice.
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
///
/// Under the `packaging` profile a parenthesised group of two or more comparisons that is not
/// the whole marker is kept as written, as pypa/packaging keeps it: it is not spliced into a
/// parent of its kind, is marked ([`Children::is_group`]), and prints in parentheses.
///
/// ```
/// use markerspec_pep508::{MarkerNode, MarkerTree, ParseOptions, Profile};
///
/// let opts = ParseOptions::default().profile(Profile::Packaging);
/// let m = MarkerTree::parse_with(
///     "(os_name == 'nt' and extra == 'a') and extra == 'b'",
///     &opts,
///     &mut |_| {},
/// )?;
/// let MarkerNode::And(children) = m.node() else { panic!("an `and`") };
/// assert_eq!(children.len(), 2);
/// assert!(matches!(&children[0], MarkerNode::And(group) if group.is_group()));
/// assert_eq!(m.to_string(), r#"(os_name == "nt" and extra == "a") and extra == "b""#);
/// # Ok::<(), markerspec_pep508::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Children {
    nodes: Vec<MarkerNode>,
    /// A parenthesised group kept as written (only under the `packaging` profile).
    group: bool,
}

impl std::ops::Deref for Children {
    type Target = [MarkerNode];
    fn deref(&self) -> &[MarkerNode] {
        &self.nodes
    }
}

impl Children {
    /// The children, to splice them into another chain.
    pub(crate) fn into_vec(self) -> Vec<MarkerNode> {
        self.nodes
    }

    /// Whether this `and` / `or` is a parenthesised group kept as written: set only by the
    /// `packaging` profile, which prints it in parentheses as pypa/packaging does (never on
    /// the whole marker, which packaging prints without them).
    pub fn is_group(&self) -> bool {
        self.group
    }
}

/// How [`MarkerNode::combine`] built `a and b` (or `a or b`), so that the lowered form of the
/// result follows the same shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Joined {
    /// The constant that decides (`false` for `and`, `true` for `or`).
    Zero,
    /// `a` (`b` was the unit).
    First,
    /// `b` (`a` was the unit).
    Second,
    /// A new `and` / `or` of both sides; `spliced[i]` when side `i`'s children were spliced
    /// in, else the side is one child.
    Both {
        /// Which sides were spliced in.
        spliced: [bool; 2],
    },
}

/// Where a node is printed: what parentheses it needs depends on its parent.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The whole marker.
    Root,
    /// A child of an `and`.
    InAnd,
    /// A child of an `or`.
    InOr,
}

impl MarkerNode {
    /// `and` of parser-built children (at least two, flat).
    pub(crate) fn and_of(children: Vec<MarkerNode>) -> MarkerNode {
        MarkerNode::And(Children {
            nodes: children,
            group: false,
        })
    }

    /// `or` of parser-built children (at least two, flat).
    pub(crate) fn or_of(children: Vec<MarkerNode>) -> MarkerNode {
        MarkerNode::Or(Children {
            nodes: children,
            group: false,
        })
    }

    /// Marks a parenthesised `and` / `or` as a group kept as written (the `packaging`
    /// profile); a comparison or constant is unchanged.
    pub(crate) fn mark_group(&mut self) {
        if let MarkerNode::And(c) | MarkerNode::Or(c) = self {
            c.group = true;
        }
    }

    /// Clears [`MarkerNode::mark_group`]'s mark (the whole marker is no group).
    pub(crate) fn unmark_group(&mut self) {
        if let MarkerNode::And(c) | MarkerNode::Or(c) = self {
            c.group = false;
        }
    }

    /// The node with every kept group spliced into a parent of its kind: the flat tree the
    /// other profiles read from the same text.
    pub(crate) fn without_groups(&self) -> MarkerNode {
        let (children, and) = match self {
            MarkerNode::And(c) => (c, true),
            MarkerNode::Or(c) => (c, false),
            other => return other.clone(),
        };
        let mut nodes = Vec::with_capacity(children.len());
        for c in children.iter() {
            match (c.without_groups(), and) {
                (MarkerNode::And(c), true) | (MarkerNode::Or(c), false) => nodes.extend(c.nodes),
                (c, _) => nodes.push(c),
            }
        }
        if and {
            MarkerNode::and_of(nodes)
        } else {
            MarkerNode::or_of(nodes)
        }
    }

    /// Whether this is an `and` / `or` kept as a group.
    pub(crate) fn is_group(&self) -> bool {
        matches!(self, MarkerNode::And(c) | MarkerNode::Or(c) if c.group)
    }

    /// `a and b` (or `a or b`), kept flat, with constants folded away. With `keep_groups`
    /// (the `packaging` profile), as packaging's `Marker.__and__` / `__or__` join: a side
    /// whose top level uses only this operator is spliced in, any other `and` / `or` becomes
    /// a group (`a and b` or `c` is `(a and b) or c`). The [`Joined`] returned says how the
    /// result was built, for the lowered form to follow ([`crate::lower::Lowered::combine`]).
    pub(crate) fn combine(
        self,
        other: MarkerNode,
        and: bool,
        keep_groups: bool,
    ) -> (MarkerNode, Joined) {
        let (unit, zero) = if and {
            (MarkerNode::True, MarkerNode::False)
        } else {
            (MarkerNode::False, MarkerNode::True)
        };
        if self == zero || other == zero {
            return (zero, Joined::Zero);
        }
        if self == unit {
            return (other, Joined::Second);
        }
        if other == unit {
            return (self, Joined::First);
        }
        let mut children = Vec::new();
        let mut spliced = [false; 2];
        for (t, spliced) in [self, other].into_iter().zip(&mut spliced) {
            match (t, and) {
                // An `or` whose top level also holds an `and` written inline (`a and b or c`)
                // mixes operators, which packaging does not splice.
                (MarkerNode::Or(c), false)
                    if keep_groups
                        && c.iter()
                            .any(|n| matches!(n, MarkerNode::And(_)) && !n.is_group()) =>
                {
                    let mut t = MarkerNode::Or(c);
                    t.mark_group();
                    children.push(t);
                }
                (MarkerNode::And(c), true) | (MarkerNode::Or(c), false) => {
                    children.extend(c.nodes);
                    *spliced = true;
                }
                (mut t, _) => {
                    if keep_groups {
                        t.mark_group();
                    }
                    children.push(t);
                }
            }
        }
        let node = if and {
            MarkerNode::and_of(children)
        } else {
            MarkerNode::or_of(children)
        };
        (node, Joined::Both { spliced })
    }

    /// Prints the node at `place`: an `or` inside an `and` in parentheses, and a kept group
    /// (`packaging` profile) in parentheses unless it is the whole marker, as packaging's
    /// `_format_marker` prints it.
    fn fmt_at<W: fmt::Write>(&self, f: &mut W, place: Place) -> fmt::Result {
        let (children, and, inner) = match self {
            MarkerNode::True => return f.write_str("true"),
            MarkerNode::False => return f.write_str("false"),
            MarkerNode::Expression(e) => return e.write_to(f),
            MarkerNode::And(c) => (c, true, Place::InAnd),
            MarkerNode::Or(c) => (c, false, Place::InOr),
        };
        let parens = match place {
            Place::Root => false,
            Place::InAnd => matches!(self, MarkerNode::Or(_)) || children.group,
            Place::InOr => children.group,
        };
        if parens {
            f.write_str("(")?;
        }
        for (i, c) in children.iter().enumerate() {
            if i > 0 {
                // A constant per arm, so that each is copied as a constant length.
                if and {
                    f.write_str(" and ")?;
                } else {
                    f.write_str(" or ")?;
                }
            }
            c.fmt_at(f, inner)?;
        }
        if parens {
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl MarkerNode {
    /// Writes the node as `Display` does, into any [`fmt::Write`].
    pub(crate) fn write_to<W: fmt::Write>(&self, f: &mut W) -> fmt::Result {
        self.fmt_at(f, Place::Root)
    }
}

impl fmt::Display for MarkerNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

impl fmt::Debug for MarkerNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MarkerNode({self})")
    }
}
