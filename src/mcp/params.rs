//! Owns the input side of the MCP tools: every parameter is declared once, as
//! a [`Param`], and that one declaration yields both the `inputSchema` the
//! client sees (plain `string`/`integer`/`boolean`/`array` with `minimum`,
//! `maximum`, `default`, `enum`; no `format`, no `["integer","null"]`) and the
//! validation of the arguments a call brings. So a limit in the schema can
//! never drift from the limit the server enforces.
//!
//! Validation is lenient where models are sloppy (a number sent as `"20"`, a
//! single string where a list is expected, `null` for "not given") and strict
//! where a mistake would silently change the answer (unknown argument names,
//! out-of-range numbers, unknown enum values): those become a [`UserError`]
//! that names the argument and says what is accepted.

use std::collections::HashMap;

use rmcp::model::JsonObject;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::error::UserError;

/// The type and limits of one parameter.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// A string of at most `max_chars` characters; required strings must not
    /// be blank.
    Str {
        max_chars: usize,
    },
    Bool {
        default: bool,
    },
    /// An integer in `min..=max`; `default` applies when it is not given.
    Int {
        min: i64,
        max: i64,
        default: Option<i64>,
    },
    /// One of `values`.
    Enum {
        values: &'static [&'static str],
        default: Option<&'static str>,
    },
    /// A list of at most `max_items` strings.
    StrList {
        max_items: usize,
        max_chars: usize,
    },
    /// A number in `min..=max` (no default: absent means "not used").
    Number {
        min: f64,
        max: f64,
    },
    /// A batch of 1 to `max_items` strings, each answered on its own: blank
    /// or over-long items are kept so that the tool can report each one as
    /// that item's error instead of failing the whole call.
    Batch {
        max_items: usize,
        max_chars: usize,
    },
}

/// One declared parameter of a tool.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    pub name: &'static str,
    pub kind: Kind,
    pub required: bool,
    pub description: &'static str,
    /// Extra advice when the value is rejected (e.g. what to use instead).
    pub hint: Option<&'static str>,
    /// An example value (a JSON list) shown when a list is rejected.
    pub example: Option<&'static str>,
}

impl Param {
    pub const fn new(name: &'static str, kind: Kind, description: &'static str) -> Param {
        Param {
            name,
            kind,
            required: false,
            description,
            hint: None,
            example: None,
        }
    }

    pub const fn required(mut self) -> Param {
        self.required = true;
        self
    }

    pub const fn hint(mut self, hint: &'static str) -> Param {
        self.hint = Some(hint);
        self
    }

    pub const fn example(mut self, example: &'static str) -> Param {
        self.example = Some(example);
        self
    }
}

/// The JSON Schema (`type: object`) of a tool's parameters.
pub fn input_schema(params: &[Param]) -> JsonObject {
    let mut props = serde_json::Map::new();
    for p in params {
        let mut s = match p.kind {
            Kind::Str { max_chars } => {
                let mut s = json!({"type": "string", "maxLength": max_chars});
                if p.required {
                    s["minLength"] = json!(1);
                }
                s
            }
            Kind::Bool { default } => json!({"type": "boolean", "default": default}),
            Kind::Int { min, max, default } => {
                let mut s = json!({"type": "integer", "minimum": min, "maximum": max});
                if let Some(d) = default {
                    s["default"] = json!(d);
                }
                s
            }
            Kind::Enum { values, default } => {
                let mut s = json!({"type": "string", "enum": values});
                if let Some(d) = default {
                    s["default"] = json!(d);
                }
                s
            }
            Kind::StrList {
                max_items,
                max_chars,
            } => json!({
                "type": "array",
                "items": {"type": "string", "maxLength": max_chars},
                "maxItems": max_items,
            }),
            Kind::Number { min, max } => {
                json!({"type": "number", "minimum": min, "maximum": max})
            }
            Kind::Batch {
                max_items,
                max_chars,
            } => json!({
                "type": "array",
                "items": {"type": "string", "maxLength": max_chars},
                "minItems": 1,
                "maxItems": max_items,
            }),
        };
        s["description"] = json!(p.description);
        props.insert(p.name.to_string(), s);
    }
    let required: Vec<&str> = params
        .iter()
        .filter(|p| p.required)
        .map(|p| p.name)
        .collect();
    let mut schema = JsonObject::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    schema
}

/// Validated arguments of one call, with defaults applied.
#[derive(Debug, Default)]
pub struct Args {
    values: HashMap<&'static str, Value>,
}

fn bad(p: &Param, message: String, hint: String) -> UserError {
    UserError::new(message).hint(p.hint.map(str::to_string).unwrap_or(hint))
}

/// A list parameter's items; a single string counts as a list of one.
/// `example` is a JSON list shown in the hint.
fn list_items(p: &Param, v: &Value, example: &str) -> Result<Vec<Value>, UserError> {
    match v {
        Value::Array(a) => Ok(a.clone()),
        Value::String(s) => Ok(vec![Value::String(s.clone())]),
        other => Err(bad(
            p,
            format!(
                "`{}` must be a list of strings, not {}",
                p.name,
                type_name(other)
            ),
            format!("e.g. \"{}\": {example}", p.name),
        )),
    }
}

/// An integer parameter's maximum this large stands for "no limit".
const UNBOUNDED: i64 = 100_000_000;

fn coerce_int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9e15)
                .map(|f| f as i64)
        }),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn coerce_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
    .filter(|f: &f64| f.is_finite())
}

fn coerce_bool(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "1" => Some(true),
            "false" | "no" | "0" => Some(false),
            _ => None,
        },
        Value::Number(n) => n.as_i64().and_then(|i| match i {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }),
        _ => None,
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Args {
    /// Checks `raw` against `params`.
    pub fn parse(params: &[Param], raw: Option<&JsonObject>) -> Result<Args, UserError> {
        let empty = JsonObject::new();
        let raw = raw.unwrap_or(&empty);
        for key in raw.keys() {
            if !params.iter().any(|p| p.name == key) {
                let accepted: Vec<&str> = params.iter().map(|p| p.name).collect();
                let hint = if accepted.is_empty() {
                    "this tool takes no arguments".to_string()
                } else {
                    format!("accepted arguments: {}", accepted.join(", "))
                };
                return Err(UserError::new(format!("unknown argument `{key}`")).hint(hint));
            }
        }
        let mut values = HashMap::new();
        for p in params {
            let given = raw.get(p.name).filter(|v| !v.is_null());
            let Some(v) = given else {
                if p.required {
                    return Err(bad(
                        p,
                        format!("missing required argument `{}`", p.name),
                        format!("`{}`: {}", p.name, p.description),
                    ));
                }
                match p.kind {
                    Kind::Bool { default } => {
                        values.insert(p.name, Value::Bool(default));
                    }
                    Kind::Int {
                        default: Some(d), ..
                    } => {
                        values.insert(p.name, json!(d));
                    }
                    Kind::Enum {
                        default: Some(d), ..
                    } => {
                        values.insert(p.name, json!(d));
                    }
                    _ => {}
                }
                continue;
            };
            let value = match p.kind {
                Kind::Str { max_chars } => {
                    let s = match v {
                        Value::String(s) => s.clone(),
                        Value::Number(n) => n.to_string(),
                        other => {
                            return Err(bad(
                                p,
                                format!("`{}` must be a string, not {}", p.name, type_name(other)),
                                format!("`{}`: {}", p.name, p.description),
                            ));
                        }
                    };
                    if p.required && s.trim().is_empty() {
                        return Err(bad(
                            p,
                            format!("`{}` is empty", p.name),
                            format!("`{}`: {}", p.name, p.description),
                        ));
                    }
                    let n = s.chars().count();
                    if n > max_chars {
                        return Err(bad(
                            p,
                            format!(
                                "`{}` is too long: {n} characters, the limit is {max_chars}",
                                p.name
                            ),
                            "give a shorter, more specific value".into(),
                        ));
                    }
                    Value::String(s)
                }
                Kind::Bool { .. } => match coerce_bool(v) {
                    Some(b) => Value::Bool(b),
                    None => {
                        return Err(bad(
                            p,
                            format!("`{}` must be true or false, not {v}", p.name),
                            format!("`{}`: {}", p.name, p.description),
                        ));
                    }
                },
                Kind::Int { min, max, default } => {
                    let Some(i) = coerce_int(v) else {
                        return Err(bad(
                            p,
                            format!("`{}` must be an integer, not {v}", p.name),
                            format!("use a whole number from {min} to {max}"),
                        ));
                    };
                    if i < min || i > max {
                        let dflt = default
                            .map(|d| format!(" (default {d})"))
                            .unwrap_or_default();
                        // A bound no file or list reaches (a line number's)
                        // is no advice: `1 to 100000000` said nothing.
                        if i < min && max >= UNBOUNDED {
                            return Err(bad(
                                p,
                                format!("`{}` must be at least {min}, got {i}", p.name),
                                format!("use a value of {min} or more{dflt}"),
                            ));
                        }
                        return Err(bad(
                            p,
                            format!("`{}` must be between {min} and {max}, got {i}", p.name),
                            format!("use a value from {min} to {max}{dflt}"),
                        ));
                    }
                    json!(i)
                }
                Kind::Enum {
                    values: allowed, ..
                } => {
                    let s = match v {
                        Value::String(s) => s.trim().to_ascii_lowercase(),
                        other => other.to_string(),
                    };
                    if !allowed.contains(&s.as_str()) {
                        return Err(bad(
                            p,
                            format!("unknown `{}` value `{}`", p.name, s),
                            format!("use one of: {}", allowed.join(", ")),
                        ));
                    }
                    Value::String(s)
                }
                Kind::StrList {
                    max_items,
                    max_chars,
                } => {
                    let example = p.example.unwrap_or("[\"src/**\", \"*.py\"]");
                    let items = list_items(p, v, example)?;
                    if items.len() > max_items {
                        return Err(bad(
                            p,
                            format!(
                                "`{}` has {} items, the limit is {max_items}",
                                p.name,
                                items.len()
                            ),
                            "give fewer, broader values".into(),
                        ));
                    }
                    let mut out = Vec::with_capacity(items.len());
                    for item in items {
                        match item {
                            Value::String(s) if s.chars().count() <= max_chars => {
                                if !s.trim().is_empty() {
                                    out.push(Value::String(s));
                                }
                            }
                            Value::String(_) => {
                                return Err(bad(
                                    p,
                                    format!(
                                        "an item of `{}` is longer than {max_chars} characters",
                                        p.name
                                    ),
                                    "give shorter values".into(),
                                ));
                            }
                            other => {
                                return Err(bad(
                                    p,
                                    format!(
                                        "`{}` must hold strings only, found {}",
                                        p.name,
                                        type_name(&other)
                                    ),
                                    format!("e.g. \"{}\": {example}", p.name),
                                ));
                            }
                        }
                    }
                    Value::Array(out)
                }
                Kind::Number { min, max } => {
                    let Some(f) = coerce_number(v) else {
                        return Err(bad(
                            p,
                            format!("`{}` must be a number, not {v}", p.name),
                            format!("use a number from {min} to {max}"),
                        ));
                    };
                    if f < min || f > max {
                        return Err(bad(
                            p,
                            format!("`{}` must be between {min} and {max}, got {f}", p.name),
                            format!("use a value from {min} to {max}, or leave it out"),
                        ));
                    }
                    json!(f)
                }
                Kind::Batch { max_items, .. } => {
                    // Item length is checked per item by the tool (see `Kind::Batch`).
                    let items = list_items(p, v, "[\"parse config\", \"retry backoff\"]")?;
                    if items.is_empty() {
                        return Err(bad(
                            p,
                            format!("`{}` is empty", p.name),
                            format!("give 1 to {max_items} items"),
                        ));
                    }
                    if items.len() > max_items {
                        return Err(bad(
                            p,
                            format!(
                                "`{}` has {} items, the limit is {max_items}",
                                p.name,
                                items.len()
                            ),
                            format!(
                                "send at most {max_items} per call and the rest in another call"
                            ),
                        ));
                    }
                    if let Some(other) = items.iter().find(|i| !i.is_string()) {
                        return Err(bad(
                            p,
                            format!(
                                "`{}` must hold strings only, found {}",
                                p.name,
                                type_name(other)
                            ),
                            format!("e.g. \"{}\": [\"parse config\", \"retry backoff\"]", p.name),
                        ));
                    }
                    Value::Array(items)
                }
            };
            values.insert(p.name, value);
        }
        Ok(Args { values })
    }

    /// The arguments as the tool's typed argument struct `T`: the
    /// validated values (defaults applied, absent optional ones left out)
    /// deserialized into it. `T` is expected to have one field per declared
    /// parameter, named like it, and `#[serde(deny_unknown_fields)]`; a
    /// mismatch is a bug of the server (the catalogue's tests check it), not
    /// of the call.
    pub fn into_typed<T: DeserializeOwned>(self) -> anyhow::Result<T> {
        let map: serde_json::Map<String, Value> = self
            .values
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        serde_json::from_value(Value::Object(map)).map_err(|e| {
            anyhow::anyhow!(
                "the validated arguments do not fit `{}`: {e}",
                std::any::type_name::<T>()
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARAMS: &[Param] = &[
        Param::new("name", Kind::Str { max_chars: 10 }, "a name").required(),
        Param::new(
            "limit",
            Kind::Int {
                min: 1,
                max: 100,
                default: Some(20),
            },
            "at most",
        ),
        Param::new(
            "line",
            Kind::Int {
                min: 1,
                max: UNBOUNDED,
                default: None,
            },
            "a line",
        ),
        Param::new("exact", Kind::Bool { default: false }, "exact"),
        Param::new(
            "mode",
            Kind::Enum {
                values: &["a", "b"],
                default: Some("a"),
            },
            "mode",
        ),
        Param::new(
            "glob",
            Kind::StrList {
                max_items: 3,
                max_chars: 20,
            },
            "globs",
        ),
        Param::new("threshold", Kind::Number { min: 0.0, max: 1.0 }, "cut-off"),
        Param::new(
            "queries",
            Kind::Batch {
                max_items: 3,
                max_chars: 5,
            },
            "several",
        ),
    ];

    fn obj(v: Value) -> JsonObject {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn schema_is_plain() {
        let s = Value::Object(input_schema(PARAMS));
        assert_eq!(
            s["properties"]["limit"],
            json!({"type": "integer", "minimum": 1, "maximum": 100, "default": 20, "description": "at most"})
        );
        assert_eq!(s["required"], json!(["name"]));
        assert_eq!(s["additionalProperties"], json!(false));
        assert!(!s.to_string().contains("format"));
        assert_eq!(
            s["properties"]["threshold"],
            json!({"type": "number", "minimum": 0.0, "maximum": 1.0, "description": "cut-off"})
        );
        assert_eq!(s["properties"]["queries"]["minItems"], 1);
        assert_eq!(s["properties"]["queries"]["maxItems"], 3);
    }

    /// The typed arguments of `PARAMS`.
    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Typed {
        name: String,
        limit: usize,
        exact: bool,
        mode: String,
        glob: Option<Vec<String>>,
        threshold: Option<f64>,
        queries: Option<Vec<String>>,
    }

    fn typed(raw: Value) -> Typed {
        Args::parse(PARAMS, Some(&obj(raw)))
            .expect("valid")
            .into_typed()
            .expect("typed")
    }

    #[test]
    fn defaults_and_coercion() {
        let a = typed(json!({"name": "x", "limit": "30", "glob": "*.rs", "exact": null}));
        assert_eq!(a.name, "x");
        assert_eq!(a.limit, 30);
        assert!(!a.exact);
        assert_eq!(a.mode, "a");
        assert_eq!(a.glob, Some(vec!["*.rs".to_string()]));
        assert_eq!(a.threshold, None);
        assert_eq!(a.queries, None);
        let a = typed(
            json!({"name": "x", "threshold": "0.25", "queries": ["ok", " ", "far too long"]}),
        );
        assert_eq!(a.limit, 20);
        assert_eq!(a.threshold, Some(0.25));
        // Blank and over-long items are kept: the tool reports each on its own.
        assert_eq!(
            a.queries,
            Some(vec!["ok".into(), " ".into(), "far too long".into()])
        );
    }

    #[test]
    fn typed_arguments_must_match_the_params() {
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Misspelt {
            name: String,
            limt: usize,
            exact: bool,
            mode: String,
            glob: Option<Vec<String>>,
            threshold: Option<f64>,
            queries: Option<Vec<String>>,
        }
        let err = Args::parse(PARAMS, Some(&obj(json!({"name": "x"}))))
            .expect("valid")
            .into_typed::<Misspelt>()
            .expect_err("a misspelt field must not become 0");
        assert!(err.to_string().contains("unknown field `limit`"), "{err}");
    }

    #[test]
    fn rejects_with_hints() {
        let cases = [
            (json!({}), "missing required argument `name`"),
            (json!({"name": "  "}), "`name` is empty"),
            (
                json!({"name": "x", "limit": 0}),
                "`limit` must be between 1 and 100, got 0",
            ),
            (
                json!({"name": "x", "limit": 1e12}),
                "`limit` must be between 1 and 100",
            ),
            (
                json!({"name": "x", "mode": "c"}),
                "unknown `mode` value `c`",
            ),
            (json!({"name": "x", "limti": 3}), "unknown argument `limti`"),
            (
                json!({"name": "x", "glob": [1]}),
                "`glob` must hold strings only",
            ),
            (
                json!({"name": "x", "threshold": 1.5}),
                "`threshold` must be between 0 and 1, got 1.5",
            ),
            (
                json!({"name": "x", "threshold": "high"}),
                "`threshold` must be a number",
            ),
            (
                json!({"name": "x", "line": 0}),
                "`line` must be at least 1, got 0",
            ),
            (json!({"name": "x", "queries": []}), "`queries` is empty"),
            (
                json!({"name": "x", "queries": ["a", "b", "c", "d"]}),
                "`queries` has 4 items, the limit is 3",
            ),
            (
                json!({"name": "x", "queries": ["a", 2]}),
                "`queries` must hold strings only",
            ),
        ];
        for (raw, want) in cases {
            let err = Args::parse(PARAMS, Some(&obj(raw.clone()))).expect_err(&raw.to_string());
            assert!(err.message.contains(want), "{raw}: {}", err.message);
            assert!(err.hint.is_some(), "{raw}: no hint");
        }
    }
}
