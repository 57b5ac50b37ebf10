//! The evaluator's form of a marker: its syntax tree lowered once, when the tree is built,
//! into comparisons that carry what their evaluation can compute ahead (the quoted version
//! read as a specifier, the shape that has a shortcut), without copying the comparisons.
//!
//! The syntax tree ([`crate::syntax`]) stays plain data, what a user reads and builds; a
//! [`MarkerTree`](crate::MarkerTree) holds both, and the evaluator walks the two side by side
//! (the comparisons are read from the syntax tree). The two have the same shape: one
//! [`Lowered`] node per [`MarkerNode`]; [`Lowered::combine`] follows what [`MarkerNode`]'s
//! `and`/`or` did ([`Joined`]) so that a combined tree is not lowered again. A tree parsed
//! without preparing its evaluation ([`ParseOptions::prepare_evaluation`](crate::ParseOptions)
//! off) is [`Lowered::Deferred`]: the evaluator lowers each comparison it reads, keeping
//! nothing.
//!
//! The invariant every [`MarkerTree`](crate::MarkerTree) keeps, and the evaluator trusts: its
//! lowered form is [`Lowered::Deferred`] (as a whole, never inside a tree) or has the syntax
//! tree's shape ([`Lowered::fits`], which
//! [`MarkerTree::is_prepared`](crate::MarkerTree::is_prepared) reports). Each way of building
//! a tree keeps it: lowering a syntax tree, combining two trees by what the syntax trees'
//! combination did, taking a child of both, and lowering again after the syntax tree changed.

use markerspec_pep440::VersionSpecifier;

use crate::compare::{continues_operator, precompile};
use crate::field::{Field, FieldType};
use crate::operator::{MarkerOperator, MarkerValue};
use crate::syntax::{Joined, MarkerExpression, MarkerNode};

/// How deep [`Lowered::of`] recurses before it continues with an explicit stack.
const RECURSION_LIMIT: usize = 32;

/// A marker as the evaluator reads it: the shape of its [`MarkerNode`], with what each
/// comparison's evaluation computes ahead. The comparisons themselves stay in the syntax tree
/// (they are not copied): the evaluator walks the two trees side by side, and reads each
/// comparison through a [`Comparison`] view of both.
#[derive(Clone)]
pub(crate) enum Lowered {
    /// Always holds.
    True,
    /// Never holds.
    False,
    /// One comparison.
    Cmp(Compiled),
    /// All children hold.
    And(Box<[Lowered]>),
    /// At least one child holds.
    Or(Box<[Lowered]>),
    /// Not lowered ([`ParseOptions::prepare_evaluation`](crate::ParseOptions) off): the
    /// evaluator lowers each comparison it reads, as it reads it.
    Deferred,
}

/// What the evaluation of one comparison computes ahead.
#[derive(Clone)]
pub(crate) struct Compiled {
    /// For a version field compared with a quoted string: the string read as a PEP 440
    /// specifier (mirrored when the field is on the right), when it is one.
    pub(crate) spec: Option<Box<VersionSpecifier>>,
    /// The shape of the comparison, for `spec-2026`'s shortcuts.
    pub(crate) fast: Fast,
}

impl Compiled {
    /// What `expr`'s evaluation computes ahead.
    pub(crate) fn new(expr: &MarkerExpression) -> Compiled {
        let spec = precompile(&expr.lhs, expr.op, &expr.rhs);
        let fast = Fast::of(&expr.lhs, expr.op, &expr.rhs, spec.is_some());
        Compiled {
            spec: spec.map(Box::new),
            fast,
        }
    }

    /// The comparison `expr` with what was computed ahead for it.
    #[inline]
    pub(crate) fn view<'a>(&'a self, expr: &'a MarkerExpression) -> Comparison<'a> {
        Comparison {
            expr,
            spec: self.spec.as_deref(),
            fast: self.fast,
        }
    }
}

/// One comparison as the evaluator reads it: the comparison as written, with what its
/// evaluation computes ahead.
#[derive(Clone, Copy)]
pub(crate) struct Comparison<'a> {
    /// The comparison as written (its operands, operator and span).
    pub(crate) expr: &'a MarkerExpression,
    /// For a version field compared with a quoted string: the string read as a PEP 440
    /// specifier (mirrored when the field is on the right), when it is one.
    pub(crate) spec: Option<&'a VersionSpecifier>,
    /// The shape of the comparison, for `spec-2026`'s shortcuts.
    pub(crate) fast: Fast,
}

impl Lowered {
    /// `node`, lowered. Shallow trees (all real markers) are lowered by recursion; a tree
    /// nested deeper than [`RECURSION_LIMIT`] levels without it, so that no tree the parser
    /// accepts (whatever its nesting limit) can overflow the stack here. (Lowering every tree
    /// with the explicit stack costs about 10% more instructions to parse the corpus.)
    pub(crate) fn of(node: &MarkerNode) -> Lowered {
        Lowered::of_within(node, RECURSION_LIMIT)
    }

    fn of_within(node: &MarkerNode, depth: usize) -> Lowered {
        let (children, and) = match node {
            MarkerNode::True => return Lowered::True,
            MarkerNode::False => return Lowered::False,
            MarkerNode::Expression(e) => return Lowered::Cmp(Compiled::new(e)),
            MarkerNode::And(c) => (c, true),
            MarkerNode::Or(c) => (c, false),
        };
        let Some(depth) = depth.checked_sub(1) else {
            return Lowered::of_deep(node);
        };
        let children = children
            .iter()
            .map(|c| Lowered::of_within(c, depth))
            .collect();
        if and {
            Lowered::And(children)
        } else {
            Lowered::Or(children)
        }
    }

    /// [`Lowered::of`] with an explicit stack.
    fn of_deep(node: &MarkerNode) -> Lowered {
        /// Work left: a node to lower, or an `and`/`or` to build from the last `n` results.
        enum Task<'a> {
            Lower(&'a MarkerNode),
            Build { and: bool, n: usize },
        }
        let mut tasks = vec![Task::Lower(node)];
        let mut done: Vec<Lowered> = Vec::new();
        while let Some(task) = tasks.pop() {
            match task {
                Task::Lower(MarkerNode::True) => done.push(Lowered::True),
                Task::Lower(MarkerNode::False) => done.push(Lowered::False),
                Task::Lower(MarkerNode::Expression(e)) => done.push(Lowered::Cmp(Compiled::new(e))),
                Task::Lower(n @ (MarkerNode::And(c) | MarkerNode::Or(c))) => {
                    let and = matches!(n, MarkerNode::And(_));
                    tasks.push(Task::Build { and, n: c.len() });
                    // Reversed, so that the children are lowered left to right.
                    tasks.extend(c.iter().rev().map(Task::Lower));
                }
                Task::Build { and, n } => {
                    let children = done
                        .split_off(done.len().saturating_sub(n))
                        .into_boxed_slice();
                    done.push(if and {
                        Lowered::And(children)
                    } else {
                        Lowered::Or(children)
                    });
                }
            }
        }
        done.pop().unwrap_or(Lowered::True)
    }

    /// Whether this is `node` lowered: the same shape throughout (one [`Lowered`] node of the
    /// same kind per [`MarkerNode`], with as many children), with no [`Lowered::Deferred`]
    /// anywhere. Walks both with an explicit stack.
    pub(crate) fn fits(&self, node: &MarkerNode) -> bool {
        let mut stack = vec![(self, node)];
        while let Some(pair) = stack.pop() {
            match pair {
                (Lowered::True, MarkerNode::True)
                | (Lowered::False, MarkerNode::False)
                | (Lowered::Cmp(_), MarkerNode::Expression(_)) => {}
                (Lowered::And(l), MarkerNode::And(c)) | (Lowered::Or(l), MarkerNode::Or(c))
                    if l.len() == c.len() =>
                {
                    stack.extend(l.iter().zip(c.iter()));
                }
                _ => return false,
            }
        }
        true
    }

    /// The children of an `and` or `or` (empty for a comparison or a constant), in the order
    /// of their [`MarkerNode`]s.
    pub(crate) fn children(&self) -> &[Lowered] {
        match self {
            Lowered::And(c) | Lowered::Or(c) => c,
            _ => &[],
        }
    }

    /// `a and b` (or `a or b`) of two lowered forms, built as [`MarkerNode::combine`] built
    /// the syntax trees' (`how`), so that the two forms keep the same shape. Deferred when
    /// either side that the result holds is.
    pub(crate) fn combine(self, other: Lowered, and: bool, how: Joined) -> Lowered {
        let spliced = match how {
            Joined::Zero if and => return Lowered::False,
            Joined::Zero => return Lowered::True,
            Joined::First => return self,
            Joined::Second => return other,
            Joined::Both { spliced } => spliced,
        };
        let mut children = Vec::new();
        for (l, splice) in [self, other].into_iter().zip(spliced) {
            match (l, splice) {
                (Lowered::Deferred, _) => return Lowered::Deferred,
                (Lowered::And(c) | Lowered::Or(c), true) => children.extend(c),
                (l, false) => children.push(l),
                // A spliced side is an `and`/`or`, and so is its lowered form; were it ever not,
                // the result is not trusted.
                (_, true) => return Lowered::Deferred,
            }
        }
        if and {
            Lowered::And(children.into_boxed_slice())
        } else {
            Lowered::Or(children.into_boxed_slice())
        }
    }
}

/// The shape of a comparison, found once when it is lowered, for which `spec-2026` has a shortcut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fast {
    /// No shortcut: the general rules.
    General,
    /// `extra == "x"` or `extra != "x"`, in either order.
    Extra {
        /// `!=`.
        negate: bool,
    },
    /// A `String` field `==` or `!=` a quoted string, in either order.
    StrEq {
        /// The field.
        field: Field,
        /// `!=`.
        negate: bool,
    },
    /// A version field on the left of an ordering or equality operator whose quoted version
    /// forms a specifier (kept in its [`Comparison`]).
    Version {
        /// The field.
        field: Field,
    },
}

impl Fast {
    /// The shape of `lhs op rhs`; `has_spec` tells whether the literal read as a specifier.
    pub(crate) fn of(
        lhs: &MarkerValue,
        op: MarkerOperator,
        rhs: &MarkerValue,
        has_spec: bool,
    ) -> Fast {
        let field = match (lhs, rhs) {
            (MarkerValue::Field(f), MarkerValue::Literal(_))
            | (MarkerValue::Literal(_), MarkerValue::Field(f)) => *f,
            _ => return Fast::General,
        };
        if let (MarkerValue::Field(f), MarkerValue::Literal(l)) = (lhs, rhs) {
            // `has_spec`: a version field whose literal reads as a specifier (so the operator
            // is no `in`); `===` compares text, which the shortcut does not.
            if has_spec && !continues_operator(l) && op != MarkerOperator::ExactEqual {
                return Fast::Version { field: *f };
            }
        }
        let negate = match op {
            MarkerOperator::Equal => false,
            MarkerOperator::NotEqual => true,
            _ => return Fast::General,
        };
        match field.field_type() {
            FieldType::Extra => Fast::Extra { negate },
            FieldType::String => Fast::StrEq { field, negate },
            _ => Fast::General,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Lowered;
    use crate::MarkerTree;

    #[test]
    fn a_lowered_form_fits_only_its_own_shape() {
        let m: MarkerTree = "os_name == 'nt' and (extra == 'a' or extra == 'b') and os_name != 'x'"
            .parse()
            .expect("a marker");
        let l = Lowered::of(m.node());
        assert!(l.fits(m.node()));
        let children = l.children().to_vec();
        assert_eq!(children.len(), 3);
        // Fewer children, another kind, a deferred child, a comparison for a chain.
        let short = Lowered::And(children[..2].to_vec().into_boxed_slice());
        let or = Lowered::Or(children.clone().into_boxed_slice());
        let mut with_deferred = children.clone();
        with_deferred[1] = Lowered::Deferred;
        let swapped = Lowered::And(
            [&children[1], &children[0], &children[2]]
                .map(Clone::clone)
                .into(),
        );
        for wrong in [
            short,
            or,
            Lowered::And(with_deferred.into_boxed_slice()),
            swapped,
            Lowered::Deferred,
            children[0].clone(),
            Lowered::True,
        ] {
            assert!(!wrong.fits(m.node()));
        }
        assert!(Lowered::True.fits(MarkerTree::TRUE.node()));
        assert!(!Lowered::False.fits(MarkerTree::TRUE.node()));
        assert!(Lowered::False.fits(MarkerTree::FALSE.node()));
    }
}
