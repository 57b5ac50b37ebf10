//! The pieces of a comparison: operators and the two kinds of operand, with their printed
//! forms.

use std::fmt;

use crate::field::Field;
use crate::small::SmallStr;

/// A comparison operator in a marker.
///
/// ```
/// use markerspec_pep508::{MarkerOperator, MarkerTree};
///
/// let m: MarkerTree = "'linux' not in sys_platform".parse()?;
/// assert_eq!(m.expressions()[0].operator(), MarkerOperator::NotIn);
/// assert_eq!(MarkerOperator::NotIn.as_str(), "not in");
/// # Ok::<(), markerspec_pep508::Error>(())
/// ```
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
    ///
    /// See the example on [`MarkerOperator`].
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

    /// [`as_str`](Self::as_str) with a space on each side, as a comparison prints it.
    pub(crate) fn spaced(self) -> &'static str {
        match self {
            MarkerOperator::Equal => " == ",
            MarkerOperator::NotEqual => " != ",
            MarkerOperator::LessThan => " < ",
            MarkerOperator::LessThanEqual => " <= ",
            MarkerOperator::GreaterThan => " > ",
            MarkerOperator::GreaterThanEqual => " >= ",
            MarkerOperator::TildeEqual => " ~= ",
            MarkerOperator::ExactEqual => " === ",
            MarkerOperator::In => " in ",
            MarkerOperator::NotIn => " not in ",
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
///
/// ```
/// use markerspec_pep508::{Field, MarkerTree, MarkerValue};
///
/// let m: MarkerTree = "'3.8' < python_version".parse()?;
/// let e = m.expressions()[0];
/// assert_eq!(e.lhs().as_literal(), Some("3.8"));
/// assert_eq!(e.rhs(), &MarkerValue::Field(Field::PythonVersion));
/// assert_eq!(e.rhs().as_field(), Some(Field::PythonVersion));
/// # Ok::<(), markerspec_pep508::Error>(())
/// ```
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
    ///
    /// See the example on [`MarkerValue`].
    pub fn as_field(&self) -> Option<Field> {
        match self {
            MarkerValue::Field(f) => Some(*f),
            MarkerValue::Literal(_) => None,
        }
    }

    /// The string, if this side is a quoted string.
    ///
    /// See the example on [`MarkerValue`].
    pub fn as_literal(&self) -> Option<&str> {
        match self {
            MarkerValue::Field(_) => None,
            MarkerValue::Literal(s) => Some(s),
        }
    }
}

impl MarkerValue {
    /// Writes the value as `Display` does, into any [`fmt::Write`].
    pub(crate) fn write_to<W: fmt::Write>(&self, f: &mut W) -> fmt::Result {
        match self {
            MarkerValue::Field(field) => f.write_str(field.name()),
            MarkerValue::Literal(s) => write_quoted(f, s),
        }
    }
}

impl fmt::Display for MarkerValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

/// [`QUOTE_CLASS`] bit: a line break or NUL (`\n`, `\r`, `\0`).
const BREAK: u8 = 1;
/// [`QUOTE_CLASS`] bit: a backslash.
const BACKSLASH: u8 = 2;
/// [`QUOTE_CLASS`] bit: a double quote.
const DOUBLE: u8 = 4;
/// [`QUOTE_CLASS`] bit: a single quote.
const SINGLE: u8 = 8;

/// For each byte, the class [`write_quoted`] looks for (0 for any other byte).
static QUOTE_CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    table[b'\n' as usize] = BREAK;
    table[b'\r' as usize] = BREAK;
    table[0] = BREAK;
    table[b'\\' as usize] = BACKSLASH;
    table[b'"' as usize] = DOUBLE;
    table[b'\'' as usize] = SINGLE;
    table
};

/// Writes a string in quotes so that it parses back to the same string: `"…"` when it has no
/// `"`, `'…'` when it has no `'`, and escapes only where plain quoting cannot represent it.
pub(crate) fn write_quoted(f: &mut impl fmt::Write, s: &str) -> fmt::Result {
    // Written as is when reading it back gives the same string (no escapes take effect).
    // One pass over the bytes finds every character that matters (all ASCII).
    // One table load per byte; the classes are bits, or-ed together.
    let mut seen = 0u8;
    for &b in s.as_bytes() {
        seen |= QUOTE_CLASS[usize::from(b)];
    }
    let (breaks, backslash, double, single) = (
        seen & BREAK != 0,
        seen & BACKSLASH != 0,
        seen & DOUBLE != 0,
        seen & SINGLE != 0,
    );
    let plain = !breaks && (!backslash || crate::string::unescape(s).is_ok_and(|u| u == s));
    if plain && !double {
        f.write_str("\"")?;
        f.write_str(s)?;
        return f.write_str("\"");
    }
    if plain && !single {
        f.write_str("'")?;
        f.write_str(s)?;
        return f.write_str("'");
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

#[cfg(test)]
mod tests {
    use super::MarkerOperator as O;

    /// A comparison prints its operator with one space on each side.
    #[test]
    fn spaced_is_the_operator_between_spaces() {
        for op in [
            O::Equal,
            O::NotEqual,
            O::LessThan,
            O::LessThanEqual,
            O::GreaterThan,
            O::GreaterThanEqual,
            O::TildeEqual,
            O::ExactEqual,
            O::In,
            O::NotIn,
        ] {
            assert_eq!(op.spaced(), format!(" {} ", op.as_str()));
        }
    }
}
