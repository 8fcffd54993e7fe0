//! Owns the plain data types shared by extraction, storage and search.
//! Does not serialize for any wire format itself (the CLI, MCP and IPC
//! layers own their JSON shapes); `Serialize` is derived only so those
//! layers can embed these values directly.

use serde::Serialize;

/// A programming or documentation language known to the indexer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Rust,
    Python,
    JavaScript,
    TypeScript,
    Tsx,
    Go,
    Java,
    C,
    Cpp,
    Ruby,
    CSharp,
    Kotlin,
    Php,
    Swift,
    Scala,
    Lua,
    /// Bash and other POSIX shells (`.sh`, `.bash`, `.zsh`, extension-less scripts by their first line).
    Bash,
    Elixir,
    Haskell,
    Zig,
    /// Objective-C (`.m`, `.mm`, and `.h` headers that declare `@interface`
    /// or `@protocol`).
    ObjC,
    /// Erlang (`.erl`, `.hrl`).
    Erlang,
    /// OCaml implementations (`.ml`) and interfaces (`.mli`, read with the
    /// grammar's interface dialect).
    OCaml,
    /// Julia (`.jl`).
    Julia,
    /// R (`.r`, `.R`).
    R,
    /// Source code without a grammar here: definitions from a per-language
    /// line heuristic where one exists (`extract::fallback`), else only
    /// line-window chunks.
    OtherCode,
    /// Markdown, reStructuredText, plain text: chunked by paragraphs.
    Docs,
}

/// Definition kinds that can hold members: a chunk header of their own
/// when they do (`extract::chunk`), and the only kinds an outline nests
/// items written on their own lines in.
pub fn is_container_kind(kind: &str) -> bool {
    matches!(
        kind,
        "class" | "struct" | "enum" | "interface" | "trait" | "impl" | "module" | "namespace"
    )
}

impl Lang {
    /// Stable lowercase name used in the index, the CLI and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::Python => "python",
            Lang::JavaScript => "javascript",
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::Go => "go",
            Lang::Java => "java",
            Lang::C => "c",
            Lang::Cpp => "cpp",
            Lang::Ruby => "ruby",
            Lang::CSharp => "csharp",
            Lang::Kotlin => "kotlin",
            Lang::Php => "php",
            Lang::Swift => "swift",
            Lang::Scala => "scala",
            Lang::Lua => "lua",
            Lang::Bash => "bash",
            Lang::Elixir => "elixir",
            Lang::Haskell => "haskell",
            Lang::Zig => "zig",
            Lang::ObjC => "objc",
            Lang::Erlang => "erlang",
            Lang::OCaml => "ocaml",
            Lang::Julia => "julia",
            Lang::R => "r",
            Lang::OtherCode => "other",
            Lang::Docs => "docs",
        }
    }

    /// Parses a name as written by [`Lang::name`], plus common aliases.
    pub fn from_name(name: &str) -> Option<Lang> {
        Some(match name.to_ascii_lowercase().as_str() {
            "rust" | "rs" => Lang::Rust,
            "python" | "py" => Lang::Python,
            "javascript" | "js" | "jsx" => Lang::JavaScript,
            "typescript" | "ts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "go" | "golang" => Lang::Go,
            "java" => Lang::Java,
            "c" => Lang::C,
            "cpp" | "c++" | "cxx" | "cc" => Lang::Cpp,
            "ruby" | "rb" => Lang::Ruby,
            "csharp" | "c#" | "cs" => Lang::CSharp,
            "kotlin" | "kt" => Lang::Kotlin,
            "php" => Lang::Php,
            "swift" => Lang::Swift,
            "scala" => Lang::Scala,
            "lua" => Lang::Lua,
            "bash" | "sh" | "shell" | "zsh" => Lang::Bash,
            "elixir" | "ex" => Lang::Elixir,
            "haskell" | "hs" => Lang::Haskell,
            "zig" => Lang::Zig,
            "objc" | "objective-c" | "objectivec" | "m" => Lang::ObjC,
            "erlang" | "erl" => Lang::Erlang,
            "ocaml" | "ml" => Lang::OCaml,
            "julia" | "jl" => Lang::Julia,
            "r" => Lang::R,
            "other" => Lang::OtherCode,
            "docs" | "markdown" | "md" | "text" => Lang::Docs,
            _ => return None,
        })
    }

    pub const ALL: [Lang; 27] = [
        Lang::Rust,
        Lang::Python,
        Lang::JavaScript,
        Lang::TypeScript,
        Lang::Tsx,
        Lang::Go,
        Lang::Java,
        Lang::C,
        Lang::Cpp,
        Lang::Ruby,
        Lang::CSharp,
        Lang::Kotlin,
        Lang::Php,
        Lang::Swift,
        Lang::Scala,
        Lang::Lua,
        Lang::Bash,
        Lang::Elixir,
        Lang::Haskell,
        Lang::Zig,
        Lang::ObjC,
        Lang::Erlang,
        Lang::OCaml,
        Lang::Julia,
        Lang::R,
        Lang::OtherCode,
        Lang::Docs,
    ];

    /// The names of the languages `keep` accepts, comma-separated, in
    /// [`Lang::ALL`] order (for hints that list the valid values).
    pub fn names_where(keep: impl Fn(Lang) -> bool) -> String {
        Lang::ALL
            .into_iter()
            .filter(|&l| keep(l))
            .map(Lang::name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// True for languages that have a tree-sitter grammar and tags query.
    pub fn has_grammar(self) -> bool {
        !matches!(self, Lang::OtherCode | Lang::Docs)
    }
}

/// A definition found in a file. Lines are 1-based and inclusive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Symbol {
    pub name: String,
    /// Normalised kind: function, method, class, struct, enum, interface,
    /// trait, module, constant, variable, type, macro, field, impl.
    pub kind: String,
    /// Name of the innermost enclosing definition (class, impl, module), if any.
    pub container: Option<String>,
    /// The first line of the definition, trimmed and bounded in length.
    pub signature: String,
    pub start_line: u32,
    pub end_line: u32,
    /// 1-based line and column of the name itself (may differ from `start_line`
    /// when decorators, attributes or doc comments open the definition).
    pub name_line: u32,
    pub name_column: u32,
}

/// A use of a name (call, type use, ...). Lines and columns are 1-based.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reference {
    pub name: String,
    /// call, type, implementation, ... as named by the grammar's tags query.
    pub kind: String,
    pub line: u32,
    pub column: u32,
    /// What the name is reached through, as written: the receiver or path
    /// before it (`self`, `this`, `session`, `Kind`, `os.path`), whitespace
    /// collapsed, at most [`MAX_QUALIFIER_BYTES`]; `None` for a bare name.
    pub qualifier: Option<String>,
    /// The symbol path of the innermost enclosing function, method or type
    /// (`Session.request`, `Config::parse`); `None` at file level.
    pub scope: Option<String>,
}

/// The longest receiver text a reference keeps (a longer one is cut at a
/// character boundary and ends in `…`).
pub const MAX_QUALIFIER_BYTES: usize = 80;

/// A symbol-aligned slice of a file, the unit of BM25 (and later vector) search.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Chunk {
    pub start_line: u32,
    pub end_line: u32,
    /// Enclosing symbol path, e.g. `Config::parse` or `views.LoginView.post`.
    pub symbol: Option<String>,
    /// Kind of the enclosing symbol, if any.
    pub kind: Option<String>,
    /// Where `text` lies in the file's decoded text (`source::decode`):
    /// byte offsets, end exclusive. The index stores these, not the text,
    /// and reads the text back from the file (`source::Sources`).
    pub start_byte: usize,
    pub end_byte: usize,
    pub text: String,
}

/// One imported name (or a whole module) as the file writes it: `from a.b
/// import c as d` is `{module: "a.b", name: "c", alias: "d", kind: "from"}`.
/// Resolution to project files happens at query time (`crate::imports`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Import {
    /// The module as written: `django.db.models`, `./util`, `crate::store`,
    /// `fmt`, `java.util.List`, `stdio.h`, `.` (Python relative).
    pub module: String,
    /// What is imported from it (`c` above, `*` for a wildcard, `default`
    /// for a JS default import), `None` for the module itself.
    pub name: Option<String>,
    pub alias: Option<String>,
    /// 1-based line of the import statement.
    pub line: u32,
    /// import, from, require, dynamic, export, use, mod, include, static.
    pub kind: &'static str,
}

/// Everything extraction learns about one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Extracted {
    pub symbols: Vec<Symbol>,
    pub refs: Vec<Reference>,
    pub chunks: Vec<Chunk>,
    pub imports: Vec<Import>,
    /// Whether a tool wrote the file: [`Generated`].
    pub generated: Generated,
}

/// Whether a tool wrote a file, as its text says (`files.generated`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Generated {
    /// Nothing says so.
    #[default]
    No = 0,
    /// Its first lines say so ("Code generated by … DO NOT EDIT.",
    /// `@generated`): [`crate::search::has_generated_marker`].
    Marked = 1,
    /// It ends with a source map's address (`//# sourceMappingURL=`):
    /// compiled from other sources of the project (TypeScript's or Babel's
    /// output beside its `src/`), [`crate::search::has_source_map_trailer`].
    Compiled = 2,
}

impl Generated {
    /// What `source` says of itself.
    pub fn of(source: &str) -> Generated {
        if crate::search::has_source_map_trailer(source) {
            Generated::Compiled
        } else if crate::search::has_generated_marker(source) {
            Generated::Marked
        } else {
            Generated::No
        }
    }

    /// The `files.generated` value.
    pub fn code(self) -> i64 {
        self as i64
    }

    /// The value read back from `files.generated` (an unknown one as
    /// [`Generated::Marked`]).
    pub fn from_code(code: i64) -> Generated {
        match code {
            0 => Generated::No,
            2 => Generated::Compiled,
            _ => Generated::Marked,
        }
    }
}
