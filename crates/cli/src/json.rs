//! The command line's JSON: the `--json` syntax tree of `markerspec parse`, the answers of
//! `eval --json`, and environment documents read strictly.

use markerspec_pep508::{
    EnvValue, Environment, Error, Evaluation, Field, FieldType, MarkerNode, MarkerTree,
    MarkerValue, Requirement, Truth, VersionOrUrl,
};
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

/// The answers of `eval --json` for one input: per environment, the result and the fields that
/// made it unknown; or the parse error.
pub fn answers(
    input: &str,
    envs: &[crate::envs::NamedEnv],
    answers: Result<&[Result<Evaluation, Error>], &Error>,
) -> Value {
    let error = |e: &Error| json!({"code": e.code(), "message": e.message()});
    match answers {
        Err(e) => json!({"input": input, "error": error(e)}),
        Ok(a) => {
            let results: Vec<Value> = envs
                .iter()
                .zip(a)
                .map(|(env, r)| match r {
                    Ok(ev) => json!({
                        "environment": env.name,
                        "result": match ev.truth {
                            Truth::True => "true",
                            Truth::False => "false",
                            Truth::Unknown => "unknown",
                        },
                        "unknown": ev.unknown.iter().map(|f| f.name()).collect::<Vec<_>>(),
                    }),
                    Err(e) => {
                        json!({"environment": env.name, "result": "error", "error": error(e)})
                    }
                })
                .collect();
            json!({"input": input, "results": results})
        }
    }
}

/// Reads an environment document (SPEC §11) as `--env` takes it.
///
/// Stricter than reading it as any JSON: a duplicate key is an error, a value of the wrong
/// JSON type names the field and the type expected, an unknown key gets a did-you-mean, and
/// values follow the rules of `--set` and the `MARKERSPEC_<FIELD>` overrides. `extra` (a
/// string or a list of strings) requests extras.
pub fn environment_document(text: &str) -> Result<Environment, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Document(entries) = serde_json::from_str(text).map_err(|e| {
        let message = e.to_string();
        if message.contains("invalid type") && e.line() == 1 && e.column() <= 2 {
            "expected a JSON object of field name → value".to_owned()
        } else {
            message
        }
    })?;
    let mut env = Environment::new();
    let mut extras = Vec::new();
    for (key, value) in entries {
        let field =
            Field::from_canonical_name(&key).ok_or_else(|| crate::envs::unknown_field(&key))?;
        let kind = |v: &Value| match v {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "a list",
            Value::Object(_) => "an object",
        };
        let strings = |items: &[Value], what: &str| {
            items
                .iter()
                .map(|i| match i {
                    Value::String(s) => Ok(s.as_str().into()),
                    other => Err(format!(
                        "`{key}` must be {what}, found a list holding {}",
                        kind(other)
                    )),
                })
                .collect::<Result<Vec<Box<str>>, String>>()
        };
        if field == Field::Extra {
            match &value {
                Value::Null => {}
                Value::String(s) if s.is_empty() => {}
                Value::String(s) => extras.push(s.clone()),
                Value::Array(items) => extras.extend(
                    strings(items, "a string or a list of strings")?
                        .into_iter()
                        .map(String::from),
                ),
                other => {
                    return Err(format!(
                        "`extra` must be a string or a list of strings, found {}",
                        kind(other)
                    ));
                }
            }
            continue;
        }
        let is_set = field.field_type() == FieldType::Set;
        let value = match value {
            Value::Null => EnvValue::Unknown,
            Value::String(s) if !is_set => {
                if s.is_empty() && field.is_extended() {
                    EnvValue::Absent
                } else {
                    EnvValue::String(s.into())
                }
            }
            Value::Array(items) if is_set => {
                let items = strings(&items, "a list of strings")?;
                if items.is_empty() && field.is_extended() {
                    EnvValue::Absent
                } else {
                    EnvValue::Set(items)
                }
            }
            other => {
                let expected = if is_set {
                    "a list of strings"
                } else {
                    "a string"
                };
                return Err(format!(
                    "`{key}` must be {expected} (or null for Unknown), found {}",
                    kind(&other)
                ));
            }
        };
        let value = crate::envs::check_value(field, value).map_err(|e| format!("`{key}`: {e}"))?;
        env.set(field, value).map_err(|e| e.to_string())?;
    }
    Ok(env.with_extras(extras))
}

/// A JSON object's entries in order, refusing duplicate keys.
struct Document(Vec<(String, Value)>);

impl<'de> serde::Deserialize<'de> for Document {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Document;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object of field name → value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Document, A::Error> {
                let mut entries: Vec<(String, Value)> = Vec::new();
                let mut seen = std::collections::HashSet::new();
                while let Some(key) = map.next_key::<String>()? {
                    if !seen.insert(key.clone()) {
                        return Err(serde::de::Error::custom(format!("duplicate key `{key}`")));
                    }
                    let value: Value = map.next_value()?;
                    entries.push((key, value));
                }
                Ok(Document(entries))
            }
        }
        d.deserialize_map(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_documents() {
        let env = environment_document(
            "\u{feff}{\"python_version\": \"3.12\", \"cuda_version\": \"\", \"extra\": [\"Test\"]}",
        )
        .unwrap();
        assert_eq!(
            env.get(Field::PythonVersion),
            Some(&EnvValue::String("3.12".into()))
        );
        assert_eq!(env.get(Field::CudaVersion), Some(&EnvValue::Absent));
        assert_eq!(env.extras().collect::<Vec<_>>(), ["test"]);
        for (doc, needle) in [
            (
                r#"{"python_version": "3.12", "python_version": "3.13"}"#,
                "duplicate key `python_version`",
            ),
            (
                r#"{"python_version": 3.12}"#,
                "`python_version` must be a string (or null for Unknown), found a number",
            ),
            (
                r#"{"gpu_backends": "cuda"}"#,
                "`gpu_backends` must be a list of strings",
            ),
            (r#"{"gpu_backends": [1]}"#, "found a list holding a number"),
            (
                r#"{"python_versoin": "3"}"#,
                "did you mean `python_version`",
            ),
            (r#"{"python_version": "abc"}"#, "not a PEP 440 version"),
            (r#"{"cuda_version": "twelve"}"#, "`cuda_version`"),
            ("[1]", "expected a JSON object"),
            ("", "EOF"),
        ] {
            let e = environment_document(doc).unwrap_err();
            assert!(e.contains(needle), "{doc}: {e}");
            assert!(!e.contains("untagged"), "{e}");
        }
    }
}
