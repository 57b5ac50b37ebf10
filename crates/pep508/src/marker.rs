//! The marker tree: comparisons joined by `and` and `or`, built only through constructors that
//! keep it flat, with a canonical display.

use std::fmt;
use std::hash::{Hash, Hasher};

use markerspec_pep440::VersionSpecifier;

use crate::field::Field;
use crate::small::SmallStr;
use crate::span::Span;

/// A comparison operator in a marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum MarkerOperator {
    /// `==`
    Equal,
    /// `!=`
    NotEqual,
    /// `<`
    LessThan,
    /// `<=`
    LessThanEqual,
    /// `>`
    GreaterThan,
    /// `>=`
    GreaterThanEqual,
    /// `~=`
    TildeEqual,
    /// `===`
    ExactEqual,
    /// `in`
    In,
    /// `not in`
    NotIn,
}

impl MarkerOperator {
    /// The operator as written in canonical form.
    pub fn as_str(self) -> &'static str {
        match self {
            MarkerOperator::Equal => "==",
            MarkerOperator::NotEqual => "!=",
            MarkerOperator::LessThan => "<",
            MarkerOperator::LessThanEqual => "<=",
            MarkerOperator::GreaterThan => ">",
            MarkerOperator::GreaterThanEqual => ">=",
            MarkerOperator::TildeEqual => "~=",
            MarkerOperator::ExactEqual => "===",
            MarkerOperator::In => "in",
            MarkerOperator::NotIn => "not in",
        }
    }

    /// The PEP 440 operator with the same spelling, for the version comparisons.
    pub(crate) fn pep440(self) -> Option<markerspec_pep440::Operator> {
        use markerspec_pep440::Operator as O;
        Some(match self {
            MarkerOperator::Equal => O::Equal,
            MarkerOperator::NotEqual => O::NotEqual,
            MarkerOperator::LessThan => O::LessThan,
            MarkerOperator::LessThanEqual => O::LessThanEqual,
            MarkerOperator::GreaterThan => O::GreaterThan,
            MarkerOperator::GreaterThanEqual => O::GreaterThanEqual,
            MarkerOperator::TildeEqual => O::TildeEqual,
            MarkerOperator::ExactEqual => O::ExactEqual,
            MarkerOperator::In | MarkerOperator::NotIn => return None,
        })
    }
}

impl fmt::Display for MarkerOperator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One side of a comparison: a variable or a quoted string.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum MarkerValue {
    /// A marker variable.
    Field(Field),
    /// A quoted string, decoded.
    Literal(SmallStr),
}

impl MarkerValue {
    /// The field, if this side is a variable.
    pub fn as_field(&self) -> Option<Field> {
        match self {
            MarkerValue::Field(f) => Some(*f),
            MarkerValue::Literal(_) => None,
        }
    }

    /// The string, if this side is a quoted string.
    pub fn as_literal(&self) -> Option<&str> {
        match self {
            MarkerValue::Field(_) => None,
            MarkerValue::Literal(s) => Some(s),
        }
    }
}

impl fmt::Display for MarkerValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MarkerValue::Field(field) => f.write_str(field.name()),
            MarkerValue::Literal(s) => write_quoted(f, s),
        }
    }
}

/// Writes a string in quotes so that it parses back to the same string: `"…"` when it has no
/// `"`, `'…'` when it has no `'`, and escapes only where plain quoting cannot represent it.
pub(crate) fn write_quoted(f: &mut impl fmt::Write, s: &str) -> fmt::Result {
    // Written as is when reading it back gives the same string (no escapes take effect).
    let plain = !s.contains(['\n', '\r', '\0'])
        && (!s.contains('\\') || crate::string::unescape(s).is_ok_and(|u| u == s));
    if plain && !s.contains('"') {
        return write!(f, "\"{s}\"");
    }
    if plain && !s.contains('\'') {
        return write!(f, "'{s}'");
    }
    f.write_char('"')?;
    for c in s.chars() {
        match c {
            '\\' => f.write_str("\\\\")?,
            '"' => f.write_str("\\x22")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\0' => f.write_str("\\x00")?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}

/// One comparison, `lhs op rhs`.
///
/// Equality and hashing ignore the span.
#[derive(Clone)]
pub struct MarkerExpression {
    pub(crate) lhs: MarkerValue,
    pub(crate) op: MarkerOperator,
    pub(crate) rhs: MarkerValue,
    pub(crate) span: Span,
    /// For `version_field OP "literal"`: the literal read as a PEP 440 specifier, when it is one.
    pub(crate) spec: Option<Box<VersionSpecifier>>,
    /// The shape of the comparison, for the evaluator's shortcuts.
    pub(crate) fast: crate::compare::Fast,
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
            fast: crate::compare::Fast::General,
        };
        e.spec = crate::compare::precompile(&e);
        e.fast = crate::compare::Fast::of(&e);
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
        write!(f, "{} {} {}", self.lhs, self.op, self.rhs)
    }
}

/// A marker: comparisons joined by `and` and `or`.
///
/// Trees are kept flat: an `And` never directly holds another `And`, an `Or` never another
/// `Or`, and neither holds fewer than two children. Redundant parentheses in the input leave
/// no trace. Equality is structural (so `a or b` and `b or a` differ) and ignores spans.
///
/// The canonical display writes one space around operators, `"` quotes unless the value holds
/// one, and parentheses only around an `or` inside an `and`:
///
/// ```
/// use markerspec_pep508::MarkerTree;
/// let m: MarkerTree = "(python_version>='3.8' and (os_name=='nt'))or extra=='x'".parse().unwrap();
/// assert_eq!(m.to_string(), r#"python_version >= "3.8" and os_name == "nt" or extra == "x""#);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum MarkerTree {
    /// A single comparison.
    Expression(MarkerExpression),
    /// All children hold.
    And(Vec<MarkerTree>),
    /// At least one child holds.
    Or(Vec<MarkerTree>),
}

impl MarkerTree {
    /// `self and other`, kept flat.
    #[must_use]
    pub fn and(self, other: MarkerTree) -> MarkerTree {
        let mut children = Vec::new();
        for t in [self, other] {
            match t {
                MarkerTree::And(c) => children.extend(c),
                t => children.push(t),
            }
        }
        MarkerTree::And(children)
    }

    /// `self or other`, kept flat.
    #[must_use]
    pub fn or(self, other: MarkerTree) -> MarkerTree {
        let mut children = Vec::new();
        for t in [self, other] {
            match t {
                MarkerTree::Or(c) => children.extend(c),
                t => children.push(t),
            }
        }
        MarkerTree::Or(children)
    }

    /// Every comparison in the tree, left to right.
    pub fn expressions(&self) -> Vec<&MarkerExpression> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(t) = stack.pop() {
            match t {
                MarkerTree::Expression(e) => out.push(e),
                MarkerTree::And(c) | MarkerTree::Or(c) => stack.extend(c.iter().rev()),
            }
        }
        out
    }

    /// The fields the tree reads, sorted and without repeats.
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

    fn fmt_inner(&self, f: &mut fmt::Formatter<'_>, in_and: bool) -> fmt::Result {
        match self {
            MarkerTree::Expression(e) => fmt::Display::fmt(e, f),
            MarkerTree::And(children) => {
                for (i, c) in children.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" and ")?;
                    }
                    c.fmt_inner(f, true)?;
                }
                Ok(())
            }
            MarkerTree::Or(children) => {
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

impl fmt::Display for MarkerTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_inner(f, false)
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
