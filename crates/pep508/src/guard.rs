//! The warning `unguarded-absent` (`spec/SPEC.md` §5.1): `!=`, `<` or `<=` on an extended
//! `Version` field whose value on the absent value is not decided elsewhere in the marker.
//!
//! A comparison is *guarded* when an enclosing `and` (at any depth) has another operand that is
//! false on the absent value — a positive comparison on the field, `field != ""`, or a presence
//! test that implies the field by the invariants of §4.4 — or when an enclosing `or` has the
//! operand `field == ""`. This is the syntactic minimum the specification asks for.

use crate::compare::mirror;
use crate::error::WarningKind;
use crate::field::{Field, FieldType};
use crate::operator::{MarkerOperator, MarkerValue};
use crate::span::Span;
use crate::syntax::{MarkerExpression, MarkerNode};

/// Reports every unguarded comparison of `node`, in the order they were written.
pub(crate) fn check(node: &MarkerNode, warn: &mut dyn FnMut(WarningKind, Span)) {
    // Depth-first without recursion: each frame is a chain and the index of the child being
    // visited, so the frames are the comparison's enclosing `and`s and `or`s.
    let mut frames: Vec<(&[MarkerNode], bool, usize)> = Vec::new();
    let mut visit = |e: &MarkerExpression, frames: &[(&[MarkerNode], bool, usize)]| {
        let Some((field, op)) = candidate(e) else {
            return;
        };
        let guarded = frames.iter().any(|(children, is_and, at)| {
            children.iter().enumerate().any(|(i, c)| {
                let MarkerNode::Expression(other) = c else {
                    return false;
                };
                i != *at
                    && if *is_and {
                        false_on_absent(other, field)
                    } else {
                        is_absence_test(other, field)
                    }
            })
        });
        if !guarded {
            warn(WarningKind::UnguardedAbsent { field, op }, e.span);
        }
    };
    match node {
        MarkerNode::Expression(e) => return visit(e, &frames),
        MarkerNode::And(c) => frames.push((c, true, 0)),
        MarkerNode::Or(c) => frames.push((c, false, 0)),
        MarkerNode::True | MarkerNode::False => return,
    }
    while let Some(&(children, _, at)) = frames.last() {
        let Some(child) = children.get(at) else {
            frames.pop();
            if let Some(parent) = frames.last_mut() {
                parent.2 += 1;
            }
            continue;
        };
        match child {
            MarkerNode::Expression(e) => {
                visit(e, &frames);
                if let Some(top) = frames.last_mut() {
                    top.2 += 1;
                }
            }
            MarkerNode::And(c) => frames.push((c, true, 0)),
            MarkerNode::Or(c) => frames.push((c, false, 0)),
            MarkerNode::True | MarkerNode::False => {
                if let Some(top) = frames.last_mut() {
                    top.2 += 1;
                }
            }
        }
    }
}

/// The field and the operator with the field on the left, when the comparison is on an
/// extended `Version` field with a non-empty literal.
fn oriented(e: &MarkerExpression) -> Option<(Field, MarkerOperator, &str)> {
    let (field, op, literal) = match (&e.lhs, &e.rhs) {
        (MarkerValue::Field(f), MarkerValue::Literal(l)) => (*f, e.op, l.as_str()),
        (MarkerValue::Literal(l), MarkerValue::Field(f)) => (*f, mirror(e.op)?, l.as_str()),
        _ => return None,
    };
    (field.is_extended() && field.field_type() == FieldType::Version)
        .then_some((field, op, literal))
}

/// A comparison that warrants the warning: `!=`, `<` or `<=` with a non-empty literal.
fn candidate(e: &MarkerExpression) -> Option<(Field, MarkerOperator)> {
    let (field, op, literal) = oriented(e)?;
    (!literal.is_empty()
        && matches!(
            op,
            MarkerOperator::NotEqual | MarkerOperator::LessThan | MarkerOperator::LessThanEqual
        ))
    .then_some((field, op))
}

/// Fields that are Absent exactly when `f` is, by the invariants of `spec/SPEC.md` §4.4 (I2:
/// the two compute-capability scalars; I6: cuDNN and the CUDA version it was built for).
fn same_absence(f: Field, g: Field) -> bool {
    use Field as F;
    f == g
        || matches!(
            (f, g),
            (F::CudaComputeCapability, F::CudaComputeCapabilityMax)
                | (F::CudaComputeCapabilityMax, F::CudaComputeCapability)
                | (F::CudnnVersion, F::CudnnCudaVersion)
                | (F::CudnnCudaVersion, F::CudnnVersion)
        )
}

/// Whether `other` is false when `field` is absent: a positive comparison on it (or on a field
/// absent with it), `field != ""`, `"cuda" in gpu_backends` for `cuda_version` (I1), or a
/// member of `cuda_compute_capabilities` for the compute-capability scalars (I2).
fn false_on_absent(other: &MarkerExpression, field: Field) -> bool {
    if let (MarkerValue::Literal(l), MarkerOperator::In, MarkerValue::Field(set)) =
        (&other.lhs, other.op, &other.rhs)
    {
        return match set {
            Field::GpuBackends => field == Field::CudaVersion && l.as_str() == "cuda",
            Field::CudaComputeCapabilities => same_absence(field, Field::CudaComputeCapability),
            _ => false,
        };
    }
    let Some((g, op, literal)) = oriented(other) else {
        return false;
    };
    same_absence(field, g)
        && if literal.is_empty() {
            op == MarkerOperator::NotEqual
        } else {
            op != MarkerOperator::NotEqual
        }
}

/// Whether `other` is `field == ""` (or the same test on a field absent with it).
fn is_absence_test(other: &MarkerExpression, field: Field) -> bool {
    oriented(other).is_some_and(|(g, op, l)| {
        same_absence(field, g) && op == MarkerOperator::Equal && l.is_empty()
    })
}
