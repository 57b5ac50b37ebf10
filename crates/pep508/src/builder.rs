//! [`MarkerBuilder`]: a marker's own value, built while it is read, with no syntax tree.

use crate::syntax::{MarkerExpression, MarkerNode};

/// What a marker becomes, built while the marker is read: a decision diagram, a count, a
/// value in some environment. [`MarkerTree::parse_into`](crate::MarkerTree::parse_into) calls
/// it for each comparison as the parser reads and checks it, then for each `and` and `or`
/// chain, without building the syntax tree, and
/// [`MarkerTree::build_into`](crate::MarkerTree::build_into) calls it on a tree already
/// parsed. Both give the value the tree has: nested chains of one kind may arrive spliced or
/// not, and parentheses kept as groups by the `packaging` profile arrive as chains.
///
/// ```
/// use markerspec_pep508::{MarkerBuilder, MarkerExpression, MarkerTree, ParseOptions};
///
/// /// The number of comparisons a marker needs at least to hold.
/// struct Needed;
/// impl MarkerBuilder for Needed {
///     type Value = usize;
///     fn comparison(&mut self, _: &MarkerExpression) -> usize { 1 }
///     fn constant(&mut self, _: bool) -> usize { 0 }
///     fn and(&mut self, operands: &mut [usize]) -> usize { operands.iter().sum() }
///     fn or(&mut self, operands: &mut [usize]) -> usize {
///         operands.iter().copied().min().unwrap_or(0)
///     }
/// }
///
/// let text = "os_name == 'nt' and (extra == 'a' or extra == 'b' and python_version >= '3.9')";
/// let opts = ParseOptions::default();
/// let streamed = MarkerTree::parse_into(text, &opts, &mut Vec::new(), &mut Needed)?;
/// assert_eq!(streamed, 2);
/// let tree = MarkerTree::parse_with(text, &opts, &mut Vec::new())?;
/// assert_eq!(tree.build_into(&mut Needed), streamed);
/// # Ok::<(), markerspec_pep508::Error>(())
/// ```
pub trait MarkerBuilder {
    /// A marker's value, or the value of part of one.
    type Value;
    /// A comparison, read and checked (under the profile the marker is read with).
    fn comparison(&mut self, expr: &MarkerExpression) -> Self::Value;
    /// The constant `true` or `false`: the whole marker `true` or `false`, or (`true`) a
    /// marker whose every comparison the `uv` profile drops.
    fn constant(&mut self, value: bool) -> Self::Value;
    /// The conjunction of an `and` chain's operands (two or more), in the order read.
    fn and(&mut self, operands: &mut [Self::Value]) -> Self::Value;
    /// The disjunction of an `or` chain's operands (two or more), in the order read.
    fn or(&mut self, operands: &mut [Self::Value]) -> Self::Value;
}

/// The value of `node` built with `b`.
pub(crate) fn build_node<B: MarkerBuilder + ?Sized>(node: &MarkerNode, b: &mut B) -> B::Value {
    match node {
        MarkerNode::True => b.constant(true),
        MarkerNode::False => b.constant(false),
        MarkerNode::Expression(e) => b.comparison(e),
        MarkerNode::And(children) | MarkerNode::Or(children) => {
            let mut values: Vec<B::Value> = children.iter().map(|c| build_node(c, b)).collect();
            if matches!(node, MarkerNode::And(_)) {
                b.and(&mut values)
            } else {
                b.or(&mut values)
            }
        }
    }
}
