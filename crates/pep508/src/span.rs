//! Byte spans into the text that was parsed.

use std::ops::Range;

/// A byte range in the text that was parsed.
///
/// Offsets are byte offsets into the original input, `start <= end`; an empty span points
/// between two characters (for example at the end of the input).
///
/// ```
/// use markerspec_pep508::Span;
/// let s = Span::new(7, 21);
/// assert_eq!(s.range(), 7..21);
/// assert_eq!(s.shift(2), Span::new(9, 23));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Span {
    /// Offset of the first byte.
    pub start: usize,
    /// Offset one past the last byte.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end`.
    ///
    /// See the example on [`Span`].
    pub const fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The span as a `Range`.
    ///
    /// See the example on [`Span`].
    pub fn range(self) -> Range<usize> {
        self.start..self.end
    }

    /// Shifts the span right by `offset` bytes.
    ///
    /// See the example on [`Span`].
    #[must_use]
    pub fn shift(self, offset: usize) -> Span {
        Span::new(self.start + offset, self.end + offset)
    }
}

impl From<Range<usize>> for Span {
    fn from(r: Range<usize>) -> Span {
        Span::new(r.start, r.end)
    }
}
