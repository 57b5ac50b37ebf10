//! A marker as users hold it: its syntax tree ([`crate::syntax`]), the form the evaluator reads
//! ([`crate::lower`]), and the dialect and profile it was read in.

use std::fmt;
use std::hash::{Hash, Hasher};

use crate::field::{Dialect, Field};
use crate::lower::Lowered;
use crate::operator::MarkerValue;
use crate::options::Profile;
use crate::syntax::{MarkerExpression, MarkerNode};

/// A marker: comparisons joined by `and` and `or`, with the dialect and profile it was read in.
///
/// Trees are kept flat: an `and` never directly holds another `and`, an `or` never another
/// `or`, and neither holds fewer than two children (the [`MarkerNode`] children cannot be built
/// outside this crate). A marker that always holds or never holds is a constant,
/// [`MarkerTree::TRUE`] or [`MarkerTree::FALSE`], which prints as `true` or `false` and reads
/// back as itself (under the `spec-2026` and `uv` profiles; `packaging`, which never produces
/// one, rejects the words as packaging does). Redundant parentheses in the input leave no
/// trace, except under the `packaging` profile, which keeps each parenthesised group of two or
/// more comparisons as written ([`Children::is_group`](crate::Children::is_group)) to print it
/// as packaging does. Equality is structural (so `a or b` and `b or a` differ, and under
/// `packaging` so do `(a and b) or c` and `a and b or c`, as their printed forms do in
/// packaging, whose equality compares them) and, like hashing, ignores spans, the dialect and
/// the profile.
///
/// A tree evaluates under the profile it was parsed with ([`MarkerTree::profile`]): a marker
/// parsed under `packaging` follows packaging's rules in [`MarkerTree::evaluate`].
///
/// The canonical display writes one space around operators, `"` quotes unless the value holds
/// one, and parentheses only around an `or` inside an `and` (and, under the `packaging`
/// profile, around each kept group that is not the whole marker, as packaging 26.4 prints):
///
/// ```
/// use markerspec_pep508::MarkerTree;
/// let m: MarkerTree = "(python_version>='3.8' and (os_name=='nt'))or extra=='x'".parse().unwrap();
/// assert_eq!(m.to_string(), r#"python_version >= "3.8" and os_name == "nt" or extra == "x""#);
/// assert_eq!(MarkerTree::TRUE.to_string(), "true");
/// assert_eq!("true".parse::<MarkerTree>().unwrap(), MarkerTree::TRUE);
///
/// use markerspec_pep508::{ParseOptions, Profile};
/// let packaging = ParseOptions::default().profile(Profile::Packaging);
/// let m = MarkerTree::parse_with(
///     "(python_version>='3.8' and (os_name=='nt'))or extra=='x'",
///     &packaging,
///     &mut |_| {},
/// )
/// .unwrap();
/// assert_eq!(m.to_string(), r#"(python_version >= "3.8" and os_name == "nt") or extra == "x""#);
/// ```
///
/// Reading a tree, and combining trees:
///
/// ```
/// use markerspec_pep508::{Dialect, Field, MarkerNode, MarkerTree, ParseOptions, Profile};
///
/// let opts = ParseOptions::default().dialect(Dialect::Extended).profile(Profile::Uv);
/// let m = MarkerTree::parse_with("cuda_version >= '12' and os_name == 'posix'", &opts, &mut Vec::new())?;
/// assert!(matches!(m.node(), MarkerNode::And(children) if children.len() == 2));
/// assert_eq!((m.dialect(), m.profile()), (Dialect::Extended, Profile::Uv));
/// let fields: Vec<_> = m.expressions().iter().map(|e| e.field()).collect();
/// assert_eq!(fields, [Some(Field::CudaVersion), Some(Field::OsName)]);
///
/// let windows: MarkerTree = "os_name == 'nt'".parse()?;
/// let either = m.or(windows.clone());
/// assert!(matches!(either.node(), MarkerNode::Or(_)));
/// assert_eq!(windows.clone().or(MarkerTree::TRUE), MarkerTree::TRUE);
/// assert!(windows.clone().or(MarkerTree::TRUE).is_true());
/// assert!(windows.and(MarkerTree::FALSE).is_false());
/// # Ok::<(), markerspec_pep508::Error>(())
/// ```
#[derive(Clone)]
pub struct MarkerTree {
    /// The syntax tree, plain data.
    node: MarkerNode,
    /// What the evaluator computes ahead for each comparison, lowered when the marker is built
    /// (parsed, combined or made from a comparison), or [`Lowered::Deferred`] when it was
    /// parsed without preparing its evaluation; the evaluator reads it beside `node`.
    lowered: Lowered,
    dialect: Dialect,
    profile: Profile,
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
        MarkerTree::new(MarkerNode::Expression(e), dialect, Profile::Spec2026)
    }
}

impl MarkerTree {
    /// The marker that always holds, in the `pep508` dialect and `spec-2026` profile.
    pub const TRUE: MarkerTree = MarkerTree {
        node: MarkerNode::True,
        lowered: Lowered::True,
        dialect: Dialect::Pep508,
        profile: Profile::Spec2026,
    };

    /// The marker that never holds, in the `pep508` dialect and `spec-2026` profile.
    pub const FALSE: MarkerTree = MarkerTree {
        node: MarkerNode::False,
        lowered: Lowered::False,
        dialect: Dialect::Pep508,
        profile: Profile::Spec2026,
    };

    /// The marker of `node`, lowered for the evaluator.
    pub(crate) fn new(node: MarkerNode, dialect: Dialect, profile: Profile) -> MarkerTree {
        MarkerTree {
            lowered: Lowered::of(&node),
            node,
            dialect,
            profile,
        }
    }

    /// The marker of `node`, lowered only by the evaluator, comparison by comparison as it
    /// reads them ([`ParseOptions::prepare_evaluation`](crate::ParseOptions) off).
    pub(crate) fn deferred(node: MarkerNode, dialect: Dialect, profile: Profile) -> MarkerTree {
        MarkerTree {
            lowered: Lowered::Deferred,
            node,
            dialect,
            profile,
        }
    }

    /// The tree as the evaluator reads it.
    #[inline]
    pub(crate) fn lowered(&self) -> &Lowered {
        &self.lowered
    }

    /// Whether the marker carries its evaluation form (each quoted version read as a
    /// specifier, each comparison's shortcut found), complete and of the syntax tree's shape,
    /// so that evaluating it computes nothing ahead again. Parsing prepares it unless
    /// [`ParseOptions::prepare_evaluation`](crate::ParseOptions::prepare_evaluation) is off;
    /// [`MarkerTree::and`], [`MarkerTree::or`], [`MarkerTree::children`] and
    /// [`MarkerTree::without_groups`] keep a prepared marker prepared (`and`/`or` when both
    /// sides are, or when a constant decides). Prepared or not, a marker evaluates alike.
    ///
    /// ```
    /// use markerspec_pep508::{MarkerTree, ParseOptions};
    /// let text = "os_name == 'nt' and python_version >= '3.9'";
    /// let m: MarkerTree = text.parse().unwrap();
    /// assert!(m.is_prepared());
    /// let lazy = ParseOptions::default().prepare_evaluation(false);
    /// let n = MarkerTree::parse_with(text, &lazy, &mut Vec::new()).unwrap();
    /// assert!(!n.is_prepared());
    /// assert_eq!(m, n);
    /// ```
    pub fn is_prepared(&self) -> bool {
        self.lowered.fits(&self.node)
    }

    /// The tree's shape.
    ///
    /// See the second example on [`MarkerTree`].
    pub fn node(&self) -> &MarkerNode {
        &self.node
    }

    /// The dialect the marker was parsed in (for a built tree: `extended` when it reads an
    /// extended field).
    ///
    /// See the second example on [`MarkerTree`].
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The profile the marker was parsed with, and evaluates under.
    ///
    /// See the second example on [`MarkerTree`].
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// Whether this is [`MarkerTree::TRUE`]'s shape (always holds).
    ///
    /// See the second example on [`MarkerTree`].
    pub fn is_true(&self) -> bool {
        self.node == MarkerNode::True
    }

    /// Whether this is [`MarkerTree::FALSE`]'s shape (never holds).
    ///
    /// See the second example on [`MarkerTree`].
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
    ///
    /// See the second example on [`MarkerTree`].
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
        let (node, how) = self
            .node
            .combine(other.node, and, self.profile.rules().keep_groups);
        MarkerTree {
            node,
            lowered: self.lowered.combine(other.lowered, and, how),
            dialect,
            profile: self.profile,
        }
    }

    /// The same marker without the parenthesised groups the `packaging` profile keeps (each
    /// spliced into a parent of its kind): the tree the other profiles read from the same text,
    /// which prints without redundant parentheses. Other trees are returned unchanged.
    ///
    /// ```
    /// use markerspec_pep508::{MarkerTree, ParseOptions, Profile};
    /// let opts = ParseOptions::default().profile(Profile::Packaging);
    /// let m = MarkerTree::parse_with("(os_name == 'nt' and extra == 'a') and extra == 'b'", &opts, &mut |_| {})?;
    /// let flat: MarkerTree = "os_name == 'nt' and extra == 'a' and extra == 'b'".parse()?;
    /// assert_eq!(m.without_groups(), flat);
    /// assert_eq!(m.without_groups().profile(), Profile::Packaging);
    /// # Ok::<(), markerspec_pep508::Error>(())
    /// ```
    #[must_use]
    pub fn without_groups(&self) -> MarkerTree {
        let node = self.node.without_groups();
        // Splicing groups changes the shape, so a prepared tree is lowered again.
        let lowered = match self.lowered {
            Lowered::Deferred => Lowered::Deferred,
            _ => Lowered::of(&node),
        };
        MarkerTree {
            node,
            lowered,
            dialect: self.dialect,
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
            MarkerNode::And(c) | MarkerNode::Or(c) => {
                let lowered = self.lowered.children();
                c.iter()
                    .enumerate()
                    .map(|(i, node)| MarkerTree {
                        // A child on its own is the whole marker, which is no group.
                        node: {
                            let mut node = node.clone();
                            node.unmark_group();
                            node
                        },
                        lowered: lowered.get(i).cloned().unwrap_or(Lowered::Deferred),
                        dialect: self.dialect,
                        profile: self.profile,
                    })
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// Every comparison in the tree, left to right.
    ///
    /// See the second example on [`MarkerTree`].
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
        self.write_to(f)
    }
}

impl MarkerTree {
    /// Writes the marker as [`Display`](fmt::Display) does, into any [`fmt::Write`] (a
    /// `String`, a byte buffer's writer) without going through a [`fmt::Formatter`], which
    /// costs a dynamic call per piece.
    ///
    /// ```
    /// use markerspec_pep508::MarkerTree;
    ///
    /// let m: MarkerTree = "os_name=='nt' and (python_version<'3.9' or extra=='x')".parse()?;
    /// let mut s = String::new();
    /// m.write_to(&mut s).unwrap();
    /// assert_eq!(s, m.to_string());
    /// # Ok::<(), markerspec_pep508::Error>(())
    /// ```
    pub fn write_to<W: fmt::Write>(&self, f: &mut W) -> fmt::Result {
        self.node.write_to(f)
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
