//! The `--json` syntax tree of `markerspec parse`.

use markerspec_pep508::{MarkerNode, MarkerTree, MarkerValue, Requirement, VersionOrUrl};
use serde_json::{Value, json};

/// What was parsed.
pub enum Input<'a> {
    /// A marker on its own.
    Marker(&'a MarkerTree),
    /// A requirement line.
    Requirement(&'a Requirement),
}

/// The JSON document for a parsed input.
pub fn parsed(input: &Input<'_>) -> Value {
    match input {
        Input::Marker(m) => json!({
            "kind": "marker",
            "canonical": m.to_string(),
            "marker": marker(m),
        }),
        Input::Requirement(r) => {
            let (specifiers, url) = match r.version_or_url() {
                Some(VersionOrUrl::Specifiers(s)) => (
                    s.iter().map(|s| Value::String(s.to_string())).collect(),
                    Value::Null,
                ),
                Some(VersionOrUrl::Url(u)) => (Vec::new(), Value::String(u.to_string())),
                None => (Vec::new(), Value::Null),
            };
            json!({
                "kind": "requirement",
                "canonical": r.to_string(),
                "name": r.name().as_str(),
                "normalized_name": r.name().normalized(),
                "extras": r.extras().iter().map(|e| e.as_str()).collect::<Vec<_>>(),
                "specifiers": specifiers,
                "url": url,
                "marker": r.marker().map_or(Value::Null, marker),
            })
        }
    }
}

fn value(v: &MarkerValue) -> Value {
    match v {
        MarkerValue::Field(f) => json!({"variable": f.name()}),
        MarkerValue::Literal(s) => json!({"string": &**s}),
    }
}

/// A marker tree as nested `and`/`or`/`compare` nodes with byte spans.
pub fn marker(m: &MarkerTree) -> Value {
    node(m.node())
}

/// One node; the constants are JSON's `true` and `false`.
fn node(n: &MarkerNode) -> Value {
    match n {
        MarkerNode::True => json!(true),
        MarkerNode::False => json!(false),
        MarkerNode::Expression(e) => json!({
            "compare": {
                "lhs": value(e.lhs()),
                "op": e.operator().as_str(),
                "rhs": value(e.rhs()),
            },
            "span": [e.span().start, e.span().end],
        }),
        MarkerNode::And(c) => json!({"and": c.iter().map(node).collect::<Vec<_>>()}),
        MarkerNode::Or(c) => json!({"or": c.iter().map(node).collect::<Vec<_>>()}),
    }
}
