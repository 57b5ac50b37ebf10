//! The command line's JSON: the `--json` syntax tree of `markerspec parse`, the answers of
//! `eval --json`, and environment documents read strictly.

use markerspec_pep508::{
    Children, Environment, Error, Evaluation, MarkerNode, MarkerTree, MarkerValue, Requirement,
    Truth, VersionOrUrl,
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
        MarkerNode::And(c) => chain("and", c),
        MarkerNode::Or(c) => chain("or", c),
    }
}

/// An `and` / `or` and its children, with `"group": true` for a parenthesised group the
/// `packaging` profile keeps (and prints in parentheses).
fn chain(word: &str, children: &Children) -> Value {
    let mut out = serde_json::Map::new();
    out.insert(word.into(), children.iter().map(node).collect());
    if children.is_group() {
        out.insert("group".into(), json!(true));
    }
    Value::Object(out)
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

/// Reads an environment document (SPEC §11) as `--env` takes it, with
/// [`markerspec_env::EnvironmentDocument`]: a duplicate key is an error, a value of the wrong
/// JSON type names the field and the type expected, values follow the rules of `--set` and the
/// `MARKERSPEC_<FIELD>` overrides (except that a standard version field may hold text that is no
/// PEP 440 version, with the warning `text-version-value`), and `extra` (a string or a list of
/// strings) requests extras.
/// A key that names no field is ignored with the warning `unknown-environment-key` (with a
/// did-you-mean when a field's name is close), so that documents of a later specification
/// version load; the warnings are returned for the caller to print.
pub fn environment_document(text: &str) -> Result<(Environment, Vec<String>), String> {
    let doc = markerspec_env::EnvironmentDocument::parse(text)?;
    let warnings = doc
        .warnings()
        .iter()
        .map(|w| match w {
            markerspec_env::DocumentWarning::UnknownKey(key) => {
                match crate::envs::close_field(key) {
                    Some(name) => format!("{w} (did you mean `{name}`?)"),
                    None => w.to_string(),
                }
            }
            _ => w.to_string(),
        })
        .collect();
    Ok((doc.to_environment(), warnings))
}

#[cfg(test)]
mod tests {
    use super::*;
    use markerspec_pep508::{EnvValue, Field};

    #[test]
    fn environment_documents() {
        let (env, warnings) = environment_document(
            "\u{feff}{\"python_version\": \"3.12\", \"cuda_version\": \"\", \"extra\": [\"Test\"], \"python_versoin\": \"3\"}",
        )
        .unwrap();
        assert_eq!(
            env.get(Field::PythonVersion),
            Some(&EnvValue::String("3.12".into()))
        );
        assert_eq!(env.get(Field::CudaVersion), Some(&EnvValue::Absent));
        assert_eq!(env.extras().collect::<Vec<_>>(), ["test"]);
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].starts_with("unknown-environment-key: `python_versoin`")
                && warnings[0].ends_with("(did you mean `python_version`?)"),
            "{warnings:?}"
        );
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
            (r#"{"cuda_version": "abc"}"#, "not a PEP 440 version"),
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
