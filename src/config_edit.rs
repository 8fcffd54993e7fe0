//! Owns `config set` and `config unset`: one key of the user's
//! (`$REPO_SEARCH_HOME/config.toml`) or the project's
//! (`.repo_search/config.toml`) config file changed in place — every other
//! line, comment and blank kept — after the value is checked against the
//! key's type and range, and the whole edited file against the same parser
//! that reads it. The file is replaced atomically (a temp file renamed over
//! it, user-only, never through a symlink), so a refused or failed edit
//! leaves it as it was. Reading resolved values (`config get`) is
//! `Settings`' provenance; this module only edits.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use crate::error::{ErrorCode, UserError};

/// Which file a key is set in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// `$REPO_SEARCH_HOME/config.toml`: every project of this user.
    User,
    /// `.repo_search/config.toml`: this project.
    Project,
}

/// A key's value type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Type {
    Bool,
    /// A whole number at least `min`.
    Count {
        min: u64,
    },
    Text,
    /// Comma-separated globs.
    Globs,
    Provider,
}

/// Every key of the config files, its type, and whether the user's file
/// takes it (the user's file has `redact` and `[embed]` only).
const KEYS: &[(&str, Type, bool)] = &[
    ("redact", Type::Bool, true),
    ("index.max_file_size", Type::Count { min: 1 }, false),
    ("index.exclude", Type::Globs, false),
    ("index.hidden", Type::Bool, false),
    ("index.no_ignore", Type::Bool, false),
    ("index.no_require_git", Type::Bool, false),
    ("index.update_before_answer", Type::Bool, false),
    ("embed.provider", Type::Provider, true),
    ("embed.model_dir", Type::Text, true),
    ("embed.fast", Type::Bool, true),
    ("embed.fast_model_dir", Type::Text, true),
    ("embed.base_url", Type::Text, true),
    ("embed.model", Type::Text, true),
    ("embed.api_key_env", Type::Text, true),
    ("embed.batch_size", Type::Count { min: 1 }, true),
    ("embed.offline", Type::Bool, true),
];

/// The keys `scope`'s file takes.
pub fn keys(scope: Scope) -> Vec<&'static str> {
    KEYS.iter()
        .filter(|(_, _, user)| scope == Scope::Project || *user)
        .map(|(k, _, _)| *k)
        .collect()
}

/// What an edit did.
#[derive(Debug, Clone, Serialize)]
pub struct Edit {
    pub scope: Scope,
    pub file: String,
    pub key: String,
    /// The value as written (TOML), `None` after `unset`.
    pub value: Option<String>,
    /// Whether the file changed (`unset` of a key it did not set: no).
    pub changed: bool,
}

/// The file of `scope` for the project at `root`.
pub fn file_of(scope: Scope, root: &Path) -> PathBuf {
    match scope {
        Scope::User => crate::settings::user_config_path(),
        Scope::Project => crate::store::config_path(root),
    }
}

fn key_type(key: &str, scope: Scope) -> Result<Type> {
    match KEYS.iter().find(|(k, _, _)| *k == key) {
        Some((_, _, false)) if scope == Scope::User => Err(UserError::new(format!(
            "`{key}` is a project setting; the user's config does not take it"
        ))
        .hint("set it without --user, in the project's .repo_search/config.toml")
        .into()),
        Some((_, t, _)) => Ok(*t),
        None => Err(UserError::new(format!("unknown config key `{key}`"))
            .hint(format!("the keys are: {}", keys(scope).join(", ")))
            .into()),
    }
}

/// `value` as a TOML literal for a key of type `t`.
fn literal(key: &str, t: Type, value: &str) -> Result<String> {
    let bad = |why: &str, hint: &str| -> anyhow::Error {
        UserError::new(format!("`{value}` is not a valid `{key}`: {why}"))
            .hint(hint.to_string())
            .into()
    };
    let v = value.trim();
    Ok(match t {
        Type::Bool => match v.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "1" => "true".into(),
            "false" | "no" | "off" | "0" => "false".into(),
            _ => return Err(bad("it takes true or false", "give true or false")),
        },
        Type::Count { min } => match v.replace('_', "").parse::<i128>() {
            Ok(n) if n >= i128::from(min) && u64::try_from(n).is_ok() => n.to_string(),
            Ok(n) if n >= i128::from(min) => {
                return Err(bad("it is too large", "give a smaller number"));
            }
            Ok(_) => {
                return Err(bad(
                    &format!("it must be at least {min}"),
                    "give a larger number",
                ));
            }
            Err(_) => return Err(bad("it takes a whole number", "e.g. 4194304 (bytes) or 16")),
        },
        Type::Provider => match crate::settings::EmbedProvider::parse(v) {
            Some(p) => quote(p.name()),
            None => {
                return Err(bad(
                    "unknown embedding provider",
                    "use one of: embedded, openai, ollama, none",
                ));
            }
        },
        Type::Text => {
            if v.is_empty() {
                return Err(bad(
                    "it is empty",
                    "give a value, or `config unset` the key",
                ));
            }
            quote(v)
        }
        Type::Globs => {
            // Comma-separated globs, or a TOML/JSON array of strings as the
            // file itself writes it (`["vendor/**", "*.min.js"]`).
            let globs: Vec<String> = if v.trim_start().starts_with('[') {
                match toml::from_str::<GlobList>(&format!("v = {v}")) {
                    Ok(list) => list.v,
                    Err(_) => {
                        return Err(bad(
                            "it is not an array of strings",
                            r#"e.g. ["vendor/**", "*.min.js"], or comma-separated: vendor/**,*.min.js"#,
                        ));
                    }
                }
            } else {
                v.split(',').map(str::to_string).collect()
            };
            let globs: Vec<String> = globs
                .iter()
                .map(|g| g.trim())
                .filter(|g| !g.is_empty())
                .map(quote)
                .collect();
            format!("[{}]", globs.join(", "))
        }
    })
}

/// A glob list given as an array (`config set index.exclude '[...]'`).
#[derive(serde::Deserialize)]
struct GlobList {
    v: Vec<String>,
}

/// A TOML basic string.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The section and the bare key of a dotted key (`""` for top-level keys).
fn split_key(key: &str) -> (&str, &str) {
    key.split_once('.').unwrap_or(("", key))
}

/// A `[section]` header line's name.
fn header(line: &str) -> Option<&str> {
    let t = line.trim();
    let inner = t.strip_prefix('[')?.split(']').next()?;
    (!t.starts_with("[[")).then_some(inner.trim())
}

/// Whether `line` assigns `name` (`name = …`, any spacing).
fn assigns(line: &str, name: &str) -> bool {
    let t = line.trim_start();
    t.strip_prefix(name)
        .is_some_and(|rest| rest.trim_start().starts_with('='))
}

/// `text` with `key` set to `value` (a TOML literal), or removed when
/// `None`. Returns the new text.
fn edit_text(text: &str, key: &str, value: Option<&str>) -> String {
    let (section, name) = split_key(key);
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // The span of the section's lines: after its header up to the next one
    // (top-level keys: before the first header).
    let (start, header_found) = if section.is_empty() {
        (0, true)
    } else {
        match lines.iter().position(|l| header(l) == Some(section)) {
            Some(i) => (i + 1, true),
            None => (lines.len(), false),
        }
    };
    let end = if header_found {
        lines[start..]
            .iter()
            .position(|l| header(l).is_some())
            .map_or(lines.len(), |i| start + i)
    } else {
        lines.len()
    };
    let at = (start..end).find(|&i| assigns(&lines[i], name));
    match (value, at) {
        (Some(v), Some(i)) => lines[i] = format!("{name} = {v}"),
        (Some(v), None) if header_found => {
            // After the section's last non-blank line.
            let mut i = end;
            while i > start && lines[i - 1].trim().is_empty() {
                i -= 1;
            }
            lines.insert(i, format!("{name} = {v}"));
        }
        (Some(v), None) => {
            if lines.last().is_some_and(|l| !l.trim().is_empty()) {
                lines.push(String::new());
            }
            lines.push(format!("[{section}]"));
            lines.push(format!("{name} = {v}"));
        }
        (None, Some(i)) => {
            lines.remove(i);
        }
        (None, None) => {}
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// Sets (`Some`) or removes (`None`) `key` in `scope`'s file for the
/// project at `root`.
pub fn edit(scope: Scope, root: &Path, key: &str, value: Option<&str>) -> Result<Edit> {
    let t = key_type(key, scope)?;
    let lit = value.map(|v| literal(key, t, v)).transpose()?;
    let path = file_of(scope, root);
    let dir = match scope {
        Scope::Project => crate::store::index_dir_checked(root, crate::store::DirUse::Create)?
            .with_context(|| {
                format!(
                    "cannot create `{}`",
                    crate::store::index_dir(root).display()
                )
            })?,
        Scope::User => {
            let home = crate::paths::home_dir();
            crate::paths::ensure_private_dir(&home)?;
            home
        }
    };
    let old = match crate::fs_safe::private_nofollow().read(true).open(&path) {
        Ok(mut f) => {
            use std::io::Read;
            let mut s = String::new();
            f.read_to_string(&mut s)
                .with_context(|| format!("cannot read `{}`", path.display()))?;
            s
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot open `{}`", path.display())),
    };
    let new = edit_text(&old, key, lit.as_deref());
    let changed = new != old && !(old.is_empty() && value.is_none());
    if changed {
        // The edited file must still be one the reader takes.
        crate::settings::check_config_text(scope == Scope::User, &new, &path)?;
        let tmp = dir.join(format!(".config.toml.{}.tmp", std::process::id()));
        {
            use std::io::Write;
            let mut f = crate::fs_safe::private_nofollow()
                .write(true)
                .create_new(true)
                .open(&tmp)
                .with_context(|| format!("cannot write `{}`", tmp.display()))?;
            f.write_all(new.as_bytes())?;
            f.sync_all()?;
        }
        std::fs::rename(&tmp, &path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            UserError::with_code(
                ErrorCode::Failed,
                format!("cannot replace `{}`: {e}", path.display()),
            )
        })?;
    }
    Ok(Edit {
        scope,
        file: path.display().to_string(),
        key: key.to_string(),
        value: lit,
        changed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "# my settings\nredact = true\n\n[index]\n# big files too\nmax_file_size = 100  # bytes\nexclude = [\"vendor/**\"]\n\n[embed]\nfast = false\n";

    #[test]
    fn edits_keep_every_other_line() {
        let t = edit_text(FILE, "index.max_file_size", Some("2048"));
        assert_eq!(
            t,
            FILE.replace("max_file_size = 100  # bytes", "max_file_size = 2048")
        );
        let t = edit_text(FILE, "embed.batch_size", Some("8"));
        assert!(
            t.ends_with("[embed]\nfast = false\nbatch_size = 8\n"),
            "{t}"
        );
        let t = edit_text(FILE, "index.hidden", Some("true"));
        assert!(
            t.contains("exclude = [\"vendor/**\"]\nhidden = true\n"),
            "{t}"
        );
        assert!(t.contains("# big files too"), "{t}");
        let t = edit_text(FILE, "redact", None);
        assert_eq!(t, FILE.replace("redact = true\n", ""));
        assert_eq!(edit_text(FILE, "embed.model", None), FILE);
        let t = edit_text("", "embed.fast", Some("true"));
        assert_eq!(t, "[embed]\nfast = true\n");
        let t = edit_text("[embed]\nfast = true\n", "redact", Some("false"));
        assert_eq!(t, "redact = false\n[embed]\nfast = true\n");
    }

    #[test]
    fn values_are_typed_and_checked() {
        assert_eq!(literal("k", Type::Bool, "yes").ok(), Some("true".into()));
        assert!(literal("k", Type::Bool, "maybe").is_err());
        assert_eq!(
            literal("k", Type::Count { min: 1 }, "4_194_304").ok(),
            Some("4194304".into())
        );
        assert!(literal("k", Type::Count { min: 1 }, "0").is_err());
        assert!(literal("k", Type::Count { min: 1 }, "-3").is_err());
        assert_eq!(
            literal("k", Type::Provider, "OLLAMA").ok(),
            Some("\"ollama\"".into())
        );
        assert!(literal("k", Type::Provider, "gpt").is_err());
        assert_eq!(
            literal("k", Type::Text, "a\"b\\c").ok(),
            Some("\"a\\\"b\\\\c\"".into())
        );
        assert_eq!(
            literal("k", Type::Globs, "vendor/**, *.min.js").ok(),
            Some("[\"vendor/**\", \"*.min.js\"]".into())
        );
        assert!(key_type("index.hidden", Scope::User).is_err());
        assert!(key_type("embed.nope", Scope::Project).is_err());
    }
}
