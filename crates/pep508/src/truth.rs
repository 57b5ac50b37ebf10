//! Three-valued results: [`Truth`], the fields an unknown result depends on ([`FieldSet`]),
//! and the evaluator's packed working form of both.

use std::fmt;

use crate::field::Field;

// The evaluator packs a result in one word: the unknown fields in the low 62 bits, the truth in
// the top two. The registry must fit.
const _: () = assert!(
    Field::ALL.len() <= TRUTH_SHIFT as usize,
    "the field registry outgrew the evaluator's 62-bit field set"
);

/// A three-valued truth: the marker holds, does not hold, or cannot be decided because some
/// field's value is unknown.
///
/// ```
/// use markerspec_pep508::Truth;
///
/// assert_eq!(Truth::False.and(Truth::Unknown), Truth::False); // Kleene logic
/// assert_eq!(Truth::True.or(Truth::Unknown), Truth::True);
/// assert_eq!(Truth::True.and(Truth::Unknown), Truth::Unknown);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Truth {
    /// The marker holds.
    True,
    /// The marker does not hold.
    False,
    /// The marker's result depends on values that are unknown.
    Unknown,
}

impl Truth {
    /// Kleene conjunction.
    ///
    /// See the example on [`Truth`].
    #[must_use]
    pub fn and(self, other: Truth) -> Truth {
        match (self, other) {
            (Truth::False, _) | (_, Truth::False) => Truth::False,
            (Truth::True, Truth::True) => Truth::True,
            _ => Truth::Unknown,
        }
    }

    /// Kleene disjunction.
    ///
    /// See the example on [`Truth`].
    #[must_use]
    pub fn or(self, other: Truth) -> Truth {
        match (self, other) {
            (Truth::True, _) | (_, Truth::True) => Truth::True,
            (Truth::False, Truth::False) => Truth::False,
            _ => Truth::Unknown,
        }
    }
}

impl std::ops::Not for Truth {
    type Output = Truth;
    /// Kleene negation: Unknown stays Unknown.
    fn not(self) -> Truth {
        match self {
            Truth::True => Truth::False,
            Truth::False => Truth::True,
            Truth::Unknown => Truth::Unknown,
        }
    }
}

impl From<bool> for Truth {
    fn from(b: bool) -> Truth {
        if b { Truth::True } else { Truth::False }
    }
}

impl fmt::Display for Truth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Truth::True => "true",
            Truth::False => "false",
            Truth::Unknown => "unknown",
        })
    }
}

/// A set of fields, as a bit set over [`Field::ALL`].
///
/// ```
/// use markerspec_pep508::{Field, FieldSet};
///
/// let mut set = FieldSet::single(Field::CudaVersion);
/// set.insert(Field::GpuBackends);
/// assert!(set.contains(Field::CudaVersion));
/// assert_eq!(set.iter().count(), 2);
/// assert!(FieldSet::EMPTY.is_empty());
/// let more = set.union(FieldSet::single(Field::OsName));
/// assert_eq!(more.iter().collect::<Vec<_>>(), [Field::OsName, Field::GpuBackends, Field::CudaVersion]);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct FieldSet(pub(crate) u64);

impl FieldSet {
    /// The empty set.
    pub const EMPTY: FieldSet = FieldSet(0);

    /// A set of one field.
    ///
    /// See the example on [`FieldSet`].
    pub fn single(f: Field) -> FieldSet {
        FieldSet(1 << f.index())
    }

    /// Adds a field.
    ///
    /// See the example on [`FieldSet`].
    pub fn insert(&mut self, f: Field) {
        self.0 |= 1 << f.index();
    }

    /// Whether the field is in the set.
    ///
    /// See the example on [`FieldSet`].
    pub fn contains(self, f: Field) -> bool {
        self.0 & (1 << f.index()) != 0
    }

    /// Whether the set is empty.
    ///
    /// See the example on [`FieldSet`].
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The union of two sets.
    ///
    /// See the example on [`FieldSet`].
    #[must_use]
    pub fn union(self, other: FieldSet) -> FieldSet {
        FieldSet(self.0 | other.0)
    }

    /// The fields in registry order.
    ///
    /// See the example on [`FieldSet`].
    pub fn iter(self) -> impl Iterator<Item = Field> {
        Field::ALL
            .iter()
            .copied()
            .filter(move |f| self.contains(*f))
    }
}

impl fmt::Debug for FieldSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.iter().map(|f| f.name()))
            .finish()
    }
}

impl FromIterator<Field> for FieldSet {
    fn from_iter<I: IntoIterator<Item = Field>>(iter: I) -> FieldSet {
        let mut s = FieldSet::EMPTY;
        for f in iter {
            s.insert(f);
        }
        s
    }
}

/// The result of a three-valued evaluation: the truth, and when it is [`Truth::Unknown`], the
/// fields whose unknown values made it so.
///
/// ```
/// use markerspec_pep508::{EnvValue, Environment, Field, MarkerTree, Truth};
///
/// let m: MarkerTree = "os_name == 'posix' and platform_machine == 'x86_64'".parse()?;
/// let mut env = Environment::new().with(Field::OsName, "posix")?;
/// env.set(Field::PlatformMachine, EnvValue::Unknown).unwrap();
/// let result = m.evaluate_tristate(&env)?;
/// assert_eq!(result.truth, Truth::Unknown);
/// assert!(result.unknown.contains(Field::PlatformMachine));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Evaluation {
    /// The truth value.
    pub truth: Truth,
    /// The fields responsible for an unknown result (empty unless `truth` is Unknown).
    pub unknown: FieldSet,
}

/// The evaluator's working form of an [`Evaluation`], packed in one word so that results travel
/// in registers: the low bits are the unknown fields, the top two bits the truth.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tri(u64);

pub(crate) const TRUTH_SHIFT: u32 = 62;
pub(crate) const FIELDS_MASK: u64 = (1 << TRUTH_SHIFT) - 1;
pub(crate) const T_FALSE: u64 = 0;
pub(crate) const T_TRUE: u64 = 1 << TRUTH_SHIFT;
pub(crate) const T_UNKNOWN: u64 = 2 << TRUTH_SHIFT;

impl Tri {
    #[inline]
    pub(crate) fn known(b: bool) -> Tri {
        Tri(if b { T_TRUE } else { T_FALSE })
    }

    #[inline]
    pub(crate) fn unknown(f: Field) -> Tri {
        Tri(T_UNKNOWN | FieldSet::single(f).0)
    }

    #[inline]
    pub(crate) fn truth_bits(self) -> u64 {
        self.0 & !FIELDS_MASK
    }

    /// Kleene conjunction, keeping the unknown fields of an unknown result.
    #[inline]
    pub(crate) fn and(self, other: Tri) -> Tri {
        match (self.truth_bits(), other.truth_bits()) {
            (T_FALSE, _) | (_, T_FALSE) => Tri(T_FALSE),
            (T_TRUE, T_TRUE) => Tri(T_TRUE),
            _ => Tri(T_UNKNOWN | ((self.0 | other.0) & FIELDS_MASK)),
        }
    }

    /// Kleene disjunction, keeping the unknown fields of an unknown result.
    #[inline]
    pub(crate) fn or(self, other: Tri) -> Tri {
        match (self.truth_bits(), other.truth_bits()) {
            (T_TRUE, _) | (_, T_TRUE) => Tri(T_TRUE),
            (T_FALSE, T_FALSE) => Tri(T_FALSE),
            _ => Tri(T_UNKNOWN | ((self.0 | other.0) & FIELDS_MASK)),
        }
    }

    pub(crate) fn evaluation(self) -> Evaluation {
        let truth = match self.truth_bits() {
            T_TRUE => Truth::True,
            T_FALSE => Truth::False,
            _ => Truth::Unknown,
        };
        Evaluation {
            truth,
            unknown: if truth == Truth::Unknown {
                FieldSet(self.0 & FIELDS_MASK)
            } else {
                FieldSet::EMPTY
            },
        }
    }
}
