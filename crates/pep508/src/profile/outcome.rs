//! What comparing gives: a three-valued result, or the error that says why there is none.

use crate::error::ErrorKind;
use crate::syntax::MarkerExpression;
use crate::truth::Tri;

/// A comparison's result, or why it has none. The error is boxed so that the common path
/// returns in registers.
pub(crate) type Outcome = Result<Tri, Box<ErrorKind>>;

/// `E002` for `e`, with the reason.
#[cold]
pub(crate) fn undefined(e: &MarkerExpression, reason: impl Into<String>) -> Box<ErrorKind> {
    Box::new(ErrorKind::UndefinedComparison {
        expression: e.to_string(),
        reason: reason.into(),
    })
}
