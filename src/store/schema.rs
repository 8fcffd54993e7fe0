//! The schema of the index: tables and indexes (DDL), the version stored in
//! `PRAGMA user_version`, and the steps that create, upgrade (by rebuilding)
//! and bulk-load it.
//!
//! Schema changelog (bump [`SCHEMA_VERSION`] on every change; a mismatch
//! means a rebuild, announced, never a crash):
//! - 1: files, symbols, refs, chunks, chunks_fts (porter + unicode61,
//!   contentless with delete support), meta.
//! - 2: `chunks.embed_key` (xxh3 of path, symbol and text: what the
//!   embedding of a chunk depends on) and `embeddings(model, key, dim,
//!   vector)`, keyed by content so unchanged chunks are never re-embedded
//!   and vectors of different models never mix.
//! - 3: no table change; rows change: C#, Kotlin, PHP, Swift, Scala, Lua,
//!   Bash (also extension-less scripts named by a `#!` or Emacs mode line), Elixir, Haskell and Zig files
//!   get their own `files.lang` with symbols, references and symbol-aligned
//!   chunks, and other code in a language the line heuristic knows (Perl,
//!   R, Dart, …) gets symbols and chunks along them.
//! - 4 (development only), 5: `refs.qualifier` (the receiver or path written before the name:
//!   `self`, `session`, `Kind`) and `refs.scope` (the symbol path of the
//!   innermost enclosing function or type), what qualified references and
//!   the call graph resolve with.
//!   Also the imports table (`file_id`, `module` as written, `name`, `alias`,
//!   `line`, `kind`, and `key`: the name under which the imported file is
//!   looked up for "which files import this one", see `imports::row_key`).
//! - 6: no table change; rows change: JavaScript/TypeScript export aliases
//!   (`export { stringType as string }`) are definitions (kind `constant`)
//!   of the exported name, which call results are typed through.
//! - 7: trigram postings for index-accelerated keyword search:
//!   `ngram_docs(doc, path, size, mtime_ns, indexed_at_ns, covered)` (the
//!   file versions the postings describe; `covered = 0` for files kept out,
//!   binary, UTF-16 or too large, which keyword search always reads) and
//!   `ngram_postings(gram, docs)` (one row per trigram, the gram as rowid:
//!   ascending doc ids as LEB128 gaps, so new docs are appended; a rowid
//!   table measured 30% smaller than `WITHOUT ROWID` on Django).
//!   Later, without a version change (an index opened by a newer binary
//!   gains them, an older binary reads them right): pending doc rows
//!   (`covered = 0`, size -1: changed files a run left unmerged), the
//!   partial index `ngram_docs_uncovered`, and meta `ngram_max_size` (the
//!   coverage limit, at least 64 MiB; another one rebuilds the postings).
//! - 8: `embeddings.vector` holds int8 codes with one scale per vector
//!   (the scale as a little-endian f32, then one byte per dimension:
//!   `store::quantize`), not f32 values: 260 bytes for 256 dimensions
//!   instead of 1024. An index of schema 2 to 7 is upgraded in place
//!   ([`Store::upgrade`]): its vectors are converted, not recomputed.
//! - 9: `refs.scope` is a number, the `n` of the file's row in
//!   `ref_scopes(file_id, n, scope)` (each distinct enclosing symbol path
//!   of a file stored once: refs 25% smaller on Django). `symbols_name`
//!   is gone: exact lookups go through `symbols_name_nocase` too.
//!   `chunks_embed_key` is on `(embed_key, file_id)`: loading the vectors
//!   scans it instead of the chunks table and its text.
//! - 10: `chunks.text` is gone: a chunk is `start_byte`, `end_byte`, its
//!   byte range in the file's decoded text (`source::decode`; a chunk may
//!   be a slice of one long line), and its text is read back from the file
//!   (`source::Sources`), checked against `chunks.hash` (xxh3 of the text,
//!   as before): the index no longer holds a second copy of the source
//!   (1.2 GB of 3.0 GB on the Linux kernel). An older index's rows are
//!   rebuilt by the next index run; its vectors are kept (`embed_key` is
//!   computed from the same text, so they are found again).
//!   `symbols.signature` may be `NULL`: a macro, field, constant or
//!   variable whose signature is its name's line, trimmed (99.7% of all
//!   signatures on the kernel), is read back from that line
//!   (`source::Sources::line_signature`; 198 of 248 MiB of signatures).
//! - 11 (development only), 12: definitions and references are stored per file, not per row:
//!   `symbol_files(file_id, n, data)` and `ref_files(file_id, n, data)`
//!   hold each file's rows as one blob (`store::packed`: the file's
//!   distinct strings once, then LEB128 numbers; `n` is the row count),
//!   and names are found through `symbol_names(name COLLATE NOCASE,
//!   file_id, variant)` (`variant` numbers a file's names equal but for
//!   ASCII case) and `ref_names(name, file_id)`, both `WITHOUT ROWID`.
//!   `symbols`, `refs`, `ref_scopes` and their four indexes are gone. An
//!   older index's rows are rebuilt by the next run, its vectors kept.
//!   Vectors are `embeddings(model_id, key, vector)`, `WITHOUT ROWID`,
//!   the model named once in `models(id, name)`: no rowid, no model name
//!   per row and no second (model, key) index (the dimension is the
//!   blob's length, `store::blob_dim`); an older index's vectors are
//!   moved over by the upgrade ([`Store::upgrade`]).
//! - 13: same tables; a data table (a register map, a table of numbers:
//!   `extract::DATA_MIN_BYTES`) keeps only its head chunk, so an older
//!   index's rows are rebuilt by the next index run (its vectors kept).
//!   New vectors are stored packed, 5 bits per dimension
//!   (`store::vector_to_blob`: the scale with its sign bit set, the
//!   dimensions, the codes; 166 bytes for 256 dimensions); int8 blobs of
//!   an older index are read as they are, next to packed ones.
//! - 14: same tables; rows change: JavaScript/TypeScript private methods
//!   (`#notify() {}`) are definitions and their calls (`this.#notify()`)
//!   references, so an older index's rows are rebuilt by the next index
//!   run (its vectors kept).
//! - 15: same tables; rows change: Go method expressions
//!   (`(*Channel).recvMethod`) are references of the method, so an older
//!   index's rows are rebuilt by the next index run (its vectors kept).
//! - 16: same tables; rows change: Objective-C (`.m` but MATLAB's, `.mm`, and `.h`
//!   headers declaring an `@interface`, `@protocol` or `@class`) has its
//!   own `files.lang` (`objc`) with classes, protocols, methods,
//!   properties, message sends and `#import`s; CUDA (`.cu`, `.cuh`) is
//!   read as C++; assembly, Kconfig, Clojure, F#, PowerShell and other
//!   code without a grammar is indexed as other code (it was not indexed
//!   at all). An older index's rows are rebuilt by the next index run
//!   (its vectors kept).
//! - 17: same tables; rows change: Elixir's `defmodule Mix.Dep.Loader`
//!   is the module `Loader` in `Mix.Dep` (so the qualified name finds
//!   it), `defmacro` is a macro, and a function's chunk starts at its
//!   `@doc` heredoc; Scala operators (`def |`, `case class ~`) are
//!   definitions and a body without braces ends at its last statement.
//!   An older index's rows are rebuilt by the next index run (its
//!   vectors kept).
//! - 18: same tables; rows change: a short block of comment lines left
//!   between definitions (a section title) is part of the chunk below it,
//!   not a chunk of its own. An older index's rows are rebuilt by the next
//!   index run (its vectors kept).
//! - 19: same tables; rows change: an Elixir behaviour's `@callback` and
//!   `@macrocallback` are definitions (methods of its module). An older
//!   index's rows are rebuilt by the next index run (its vectors kept).
//! - 20: same tables; rows change: Kotlin extensions belong to the type
//!   they extend and secondary constructors are definitions; TypeScript
//!   overload signatures merge into their implementation, members of
//!   inline object types (parameters, casts) are not definitions. An
//!   older index's rows are rebuilt by the next index run (its vectors
//!   kept).
//! - 21: same tables; rows change: Vue and Svelte components are
//!   JavaScript whose `<script>` blocks are parsed (they were other code).
//!   An older index's rows are rebuilt by the next index run (its vectors
//!   kept).
//! - 22: same tables; rows change: a `/** … */` doc comment whose inner
//!   lines do not start with `*` (jsoup's Javadoc, Swift) starts its
//!   definition's chunk (the chunk started at its `*/`). An older index's
//!   rows are rebuilt by the next index run (its vectors kept).
//! - 23: same tables; rows change: C# operators, conversion operators,
//!   indexers, events and local functions are definitions; Ruby's `class
//!   A::B` is `B` in `A`; a Swift subscript is one definition named
//!   `subscript` and escaped names lose their backticks. An older index's
//!   rows are rebuilt by the next index run (its vectors kept).
//! - 24: same tables; rows change: the fields of Go's named struct types
//!   and of Rust's structs and unions are definitions. An older index's
//!   rows are rebuilt by the next index run (its vectors kept).
//! - 25: same tables; rows change: a C# or PHP file-scoped namespace
//!   (`namespace Acme.Tools;`) is the container of what follows it. An
//!   older index's rows are rebuilt by the next index run (its vectors
//!   kept).
//! - 26: same tables; rows change: a Rust `macro_rules!` gets chunks of its
//!   own, named after it. An older index's rows are rebuilt by the next
//!   index run (its vectors kept).
//! - 27: same tables; rows change: `_` (Go's `var _ I = …`) is no
//!   definition, nor is a Swift local inside a property's closure or
//!   getter. An older index's rows are rebuilt by the next index run (its
//!   vectors kept).
//! - 28: same tables; rows change: Ruby's `alias_method` and
//!   `define_method` define methods. An older index's rows are rebuilt by
//!   the next index run (its vectors kept).
//! - 29: same tables; rows change: a C `typedef struct x {…} x;` is one
//!   definition (the struct), not a struct and a type. An older index's
//!   rows are rebuilt by the next index run (its vectors kept).
//! - 30: `ngram_blocks(doc, blocks, map)`: for a file of 1 MiB or more,
//!   which of its blocks (whole lines, about 256 KiB) hold each of its
//!   trigrams (`search::ngram::block_map`), so a file that holds a
//!   query's trigrams only scattered over blocks is not read. An older
//!   index keeps its rows and vectors; its postings are rebuilt by the
//!   next index run (meta `ngram_format`).
//! - 31: same tables; rows change: Java record components and PHP
//!   promoted constructor parameters are fields of their record or class.
//!   An older index's rows are rebuilt by the next index run (its vectors
//!   kept).
//! - 32: same tables; rows change: a C, C++ or Objective-C file whose
//!   preprocessor branches leave braces unbalanced (and does not parse) is
//!   parsed with every condition true (`extract::lang_rules::first_branches`):
//!   the definitions after such a branch are found. An older index's rows
//!   are rebuilt by the next index run (its vectors kept).
//! - 33: same tables; rows change: a C# file that does not parse is read
//!   with every preprocessor condition true too (a directive inside a
//!   parameter list or an initializer cost it its namespace and class).
//!   An older index's rows are rebuilt by the next index run (its vectors
//!   kept).
//! - 34: same tables; rows change: Swift operator implementations
//!   (`static func + (…)`, `prefix func +++ (…)`) and a protocol's
//!   `associatedtype` are definitions. An older index's rows are rebuilt by
//!   the next index run (its vectors kept).
//! - 35: same tables; rows change: a Haskell file with tabs that does not
//!   parse is read again with each tab a space (tree-sitter-haskell counts
//!   a tab as one column in places and eight in others), kept when that
//!   finds more definitions. An older index's rows are rebuilt by the next
//!   index run (its vectors kept).
//! - 36: same tables; rows change: a TypeScript file that does not parse is
//!   read again with a `;` before each generic call signature on a line of
//!   its own (`extract::lang_rules::generic_call_signatures`), kept when
//!   that finds more definitions (immer's `IProduce`). An older index's
//!   rows are rebuilt by the next index run (its vectors kept).
//! - 37: same tables; rows change: a C, C++ or Objective-C file that does
//!   not parse is read again with the export macros of its classes blanked
//!   (`class GTEST_API_ AssertionException : …`:
//!   `extract::lang_rules::export_macros`), kept when that finds more
//!   definitions. An older index's rows are rebuilt by the next index run
//!   (its vectors kept).
//! - 38: same tables; rows change: Haskell data constructors are
//!   definitions (constants, in their type) and Elixir's `@type`, `@typep`
//!   and `@opaque` define types. An older index's rows are rebuilt by the
//!   next index run (its vectors kept).
//! - 39: same tables; rows change: a Kotlin file whose top-level
//!   `annotation class` or `enum class` follows annotation lines is read
//!   again with those annotations blanked
//!   (`extract::lang_rules::annotated_soft_keyword_classes`: the grammar
//!   read them as an annotated expression, with no error), kept when that
//!   finds more definitions. An older index's rows are rebuilt by the next
//!   index run (its vectors kept).
//! - 40: same tables; rows change: Rust items inside a macro call among
//!   items (`cfg_rt! { pub fn spawn… }`) are read as the call's contents
//!   (`extract::lang_rules::rust_item_macros`), kept when that finds more
//!   definitions. An older index's rows are rebuilt by the next index run
//!   (its vectors kept).
//! - 41: same tables; rows change: a JavaScript/TypeScript function
//!   assigned onto an object (`app.use = function use…`) is defined once
//!   (not also by its function expression's own name) and contained in the
//!   object (`app`; `Router.prototype.route` in `Router`). An older index's
//!   rows are rebuilt by the next index run (its vectors kept).
//! - 42: same tables; rows change: a Zig file with `const X = @This();`
//!   is the struct of its top-level functions, fields and public
//!   declarations, named after the file
//!   (`extract::tags::name_file_struct_members`: `parse` at the top of
//!   `Target/Query.zig` is the method `Query.parse`). An older index's
//!   rows are rebuilt by the next index run (its vectors kept).
//! - 43: same tables; rows change: a grammar's or lexer's path column also
//!   names its kind (`parser.y` → "grammar parser", `lexer.l` → "lexer
//!   grammar": `lang::grammar_kind_words`). An older index's rows are
//!   rebuilt by the next index run (its vectors kept).
//! - 44: `files.generated` (1 for a file whose first lines say a tool
//!   wrote it: `search::has_generated_marker`; looked up by path). An
//!   older index's rows are rebuilt by the next index run (its vectors
//!   kept).
//! - 45: same tables; rows change: a second reading of a file
//!   (`extract::lang_rules::second_reading`) that finds as many
//!   definitions as the first, with fewer error nodes in its tree, is kept (C
//!   and C++ functions whose `#ifdef`/`#else` branches each open a brace
//!   no longer run to the end of the file). An older index's rows are
//!   rebuilt by the next index run (its vectors kept).
//! - 46: same tables; rows change: a C function declared with an
//!   attribute macro before its name and a space before its parameters
//!   (`static int internal_function check_matching (…)`) is named after
//!   itself, not the macro (`extract::tags::name_after_attribute_macro`).
//!   An older index's rows are rebuilt by the next index run (its vectors
//!   kept).
//! - 47: same tables; rows change: C and C++ with attribute macros on
//!   lines of their own (`__attribute_cold__`, `__attribute_nonnull__()`)
//!   are read with those lines blanked
//!   (`extract::lang_rules::attribute_lines`). An older index's rows are
//!   rebuilt by the next index run (its vectors kept).
//! - 48: same tables; rows change: a Haskell function written as several
//!   equations, or an Elixir one as several clauses, is one definition
//!   and one chunk span (`extract::tags::merge_clauses`), not one per
//!   equation. An older index's rows are rebuilt by the next index run
//!   (its vectors kept).
//! - 49: same tables; rows change: C and C++ misread because of a
//!   project's specifier macros (`…) SPDLOG_NOEXCEPT {`, `SPDLOG_INLINE
//!   logger::logger(…) : name_(…)`, `REDISMODULE_API size_t (*f)(…)
//!   REDISMODULE_ATTR;`) are read again with them blanked
//!   (`extract::lang_rules::specifier_macros`), and no definition is named
//!   after a C type or storage keyword. An older index's rows are rebuilt
//!   by the next index run (its vectors kept).
//! - 50: same tables; rows change: a translated README or changelog whose
//!   language code is also a code extension (`CHANGES.ru`, `README.pl`)
//!   is documentation, not Ruby or Perl. An older index's rows are rebuilt
//!   by the next index run (its vectors kept).
//! - 51: same tables; rows change: code in Clojure, Emacs Lisp, Scheme,
//!   Racket, Common Lisp, Groovy, Solidity, Crystal, Elm, PowerShell, Tcl,
//!   Starlark, GraphQL and Thrift gets definitions and definition-aligned
//!   chunks from the line heuristic (`extract::fallback`), and an Elm
//!   value's signature and equation are one definition. An older index's
//!   rows are rebuilt by the next index run (its vectors kept).
//! - 52: same tables; rows change: Lisp forms named after a namespaced
//!   or slashed head (`define/contract`) are definitions, Emacs Lisp's
//!   `define-key` is not, `deftest` and Scheme's `(define (name …) …)` are
//!   functions. An older index's rows are rebuilt by the next index run
//!   (its vectors kept).
//! - 53: same tables; rows change: a licence notice in the leading
//!   comment of a file's first chunk is left out of its full-text body and
//!   of its embedding input and key (`text::indexed_text`), and a
//!   file whose "generated, do not edit" comment sits below such a notice
//!   (Kubernetes' generated Go) is `generated`. An older index's rows are rebuilt
//!   by the next index run; the first chunks of licensed files are embedded
//!   again.
//! - 54: same tables; rows change: Erlang (`.erl`, `.hrl`), OCaml (`.ml`,
//!   `.mli`), Julia (`.jl`) and R (`.r`) files are languages of their own, read by
//!   their tree-sitter grammars (definitions with their members and kinds,
//!   references, symbol-aligned chunks) instead of `other` code read by
//!   the line heuristic; Menhir and ocamlyacc grammars (`.mly`) and
//!   ocamllex lexers (`.mll`) are indexed as grammars are. An older
//!   index's rows are rebuilt by the next index run (its vectors kept).
//! - 55: same tables; rows change: the line heuristic reads Nim's `type`
//!   and `const` sections, so type aliases (`Bounds* = Slice[int]`) and
//!   constants are definitions. An older index's rows are rebuilt by the
//!   next index run (its vectors kept).
//! - 56: same tables; rows change: a path's lowercase compound components
//!   are also searched by their words (`src/lockfile.c` → `lock file`,
//!   `text::compound_parts`), and so are definitions' names (`ziplistNew`
//!   → `zip list`); a Nim type with a pragma (`Mode* {.pure.} = enum`) is
//!   an enum, object or tuple with its members' lines, as one without.
//!   An older index's rows are rebuilt by the next index run (its vectors
//!   kept).
//! - 57: same tables; rows change: a Zig `test "init" { … }` block is the
//!   definition `test "init"`, not a second `init`. An older index's rows
//!   are rebuilt by the next index run (its vectors kept).
//! - 58: same tables; rows change: an extension-less script in a language
//!   the line heuristic reads (`#!/usr/bin/perl`, `#!/usr/bin/env tclsh`,
//!   gitk's `#!/bin/sh` then `exec wish`) is other code with definitions,
//!   no longer skipped or read as shell. An older index's rows are rebuilt
//!   by the next index run (its vectors kept).
//! - 59: same tables; rows change: a Bash file the grammar misreads (a
//!   `=~` regex, an extglob group, brackets in a `${v%%…}` pattern) is read
//!   again with those blanked, and keeps the reading with more
//!   definitions. An older index's rows are rebuilt by the next index run
//!   (its vectors kept).
//! - 60: same tables; rows change: a definition site's name is never a
//!   reference, also when the definition is merged into another (Elixir's
//!   and Haskell's later clauses: `def f(x) when …` was a call of `f`),
//!   and an Elixir `@spec`'s head is no call. An older index's rows are
//!   rebuilt by the next index run (its vectors kept).
//! - 61: same tables; rows change: an Erlang remote call `m:f()` and a
//!   remote fun `fun m:f/1` keep their module as the qualifier (`m`; the
//!   call had none, the fun `m:`). An older index's rows are rebuilt by the
//!   next index run (its vectors kept).
//! - 62: same tables; rows change: a C file tree-sitter-c misreads is read
//!   again with its attribute-like macro calls blanked (`void __printf(1,
//!   0) f(…)`, `__alloc_size(1)`, `) __acquires(lock) {`), which were the
//!   function's name. An older index's rows are rebuilt by the next index
//!   run (its vectors kept).
//! - 63: same tables; rows change: a JavaScript/TypeScript method assigned
//!   through a chain (`res.set = res.header = function …`) is defined by
//!   each target, not only the inner one; `files.mtime_ns` (and
//!   `ngram_docs.mtime_ns`) hold the later of mtime and ctime. An older
//!   index's rows are rebuilt by the next index run (its vectors kept).
//! - 64: same tables; rows change: `files.generated` is 2 for a file that
//!   ends with a source map's address (compiled output,
//!   `model::Generated::Compiled`); a Kotlin primary constructor's `val` /
//!   `var` parameters are fields of the class; an Objective-C file whose
//!   `@implementation` holds balanced `#if` branches is read with every
//!   branch kept (`extract::lang_rules::every_branch`); `*.podspec`,
//!   `Fastfile`, `Dangerfile` and `Brewfile` are Ruby. An older index's
//!   rows are rebuilt by the next index run (its vectors kept).
//! - 65: same tables; rows change: Erlang's `rebar.config`,
//!   `rebar.config.script`, `sys.config`, `elvis.config` and `*.app.src`
//!   are Erlang; Go's `go.mod` / `go.work` and Cabal's `*.cabal` are
//!   indexed as other code. An older index's rows are rebuilt by the next
//!   index run (its vectors kept).
//! - 66: same tables; rows change: `module.exports = function name(…)` is
//!   defined as `name` (was `exports`); a C/C++ statement macro before its
//!   block (`CATCH_TRY { … }`) is blanked when the grammar misreads the
//!   file; hsc2hs `*.hsc` is Haskell; yecc `*.yrl` and leex `*.xrl` are
//!   grammars; `dune` files, `*.xs`, `*.tmpl` / `*.tpl` templates and
//!   GraphQL `*.graphqls` are other code; `*.rdoc` and odoc `*.mld` are
//!   documentation. An older index's rows are rebuilt by the next index
//!   run (its vectors kept).
//! - 67: same tables; rows change: a Rust file of comments only (clap's
//!   `_cookbook/*.rs`, rustls's `manual/*.rs`) is documentation. An older
//!   index's rows are rebuilt by the next index run (its vectors kept).
//! - 68: same tables; rows change: a JavaScript or TypeScript object key in
//!   CONSTANT_CASE (`FST_ERR_DUPLICATED_ROUTE: createError(…)`) is a
//!   constant definition. An older index's rows are rebuilt by the next
//!   index run (its vectors kept).
//! - 69: same tables; rows change: a Lua class made by a call at file
//!   level (`local OrderedMap = class(Map)`, `Point = Object:extend()`) is
//!   a class definition. An older index's rows are rebuilt by the next
//!   index run (its vectors kept).
//! - 72: same tables; rows change: C function pointers are definitions (a
//!   global hook or API entry `int (*RedisModule_CreateCommand)(…);`, an
//!   operation table's field `ssize_t (*read)(…);`), and so are arrays of
//!   pointers (`static const char *names[]`). An older index's rows are
//!   rebuilt by the next index run (its vectors kept).
//! - 73: same tables; rows change: C globals declared inside file-level
//!   conditionals (`#ifdef CONFIG_X` … `static int g;`, an include guard's
//!   `extern int g;`) are definitions. An older index's rows are rebuilt
//!   by the next index run (its vectors kept).
//! - 76: same tables; rows change: more generated files are known by the
//!   comment atop them (`files.generated`): a parser or lexer generator
//!   named as their maker (`/* Generated by re2c */`, GNU Bison's), and
//!   "must not be edited" or "should not be manually edited" beside
//!   "generated". An older index's rows are rebuilt by the next index run
//!   (its vectors kept).
//! - 77: same tables; rows change: a `.c` file is C whatever it holds (a
//!   variable named `template` made tmux's `cmd-list-buffers.c` C++), and
//!   a header is C++ by `template` only before a `<`. An older index's
//!   rows are rebuilt by the next index run (its vectors kept).
//! - 78: same tables; rows change: a generated file's marker also counts
//!   among the comments of its header past line 10, below its namespace,
//!   package and import lines (PHP-Parser's `Php7.php`). An older index's
//!   rows are rebuilt by the next index run (its vectors kept).
//! - 79: same tables; rows change: an OCaml reference through a module
//!   (`Lwt_mutex.with_lock`) keeps the module as its qualifier, and an
//!   OCaml file's module is its capitalised name; a header with an
//!   `#import` line is Objective-C. An older index's rows are rebuilt by
//!   the next index run (its vectors kept).
//! - 80: same tables; rows change: an Objective-C category (`@interface
//!   CAPPluginCall (Extras)`) is an `impl` of its class, not a second
//!   class. An older index's rows are rebuilt by the next index run (its
//!   vectors kept).
//! - 81: same tables; rows change: a JavaScript or TypeScript binding whose
//!   value wraps a function literal in calls (`const Box = forwardRef((p,
//!   ref) => {…})`) is a function, chunked under its name. An older
//!   index's rows are rebuilt by the next index run (its vectors kept).
//! - 82: same tables; rows change: Git's `*.perl` programs and Plack's
//!   `*.psgi` applications are Perl, Batteries' `*.mlv`/`*.mliv` OCaml
//!   (unindexed before). An older index's rows are rebuilt by the next
//!   index run (its vectors kept).
//! - 83: same tables; rows change: an R name assigned a ggplot2 `ggproto`
//!   object (`ScaleContinuous <- ggproto("ScaleContinuous", Scale, …)`) is
//!   a class, its function members its methods. An older index's rows are
//!   rebuilt by the next index run (its vectors kept).
//! - 84: same tables; rows change: a C++ class with a macro after its name
//!   (`class Verifier FLATBUFFERS_FINAL_CLASS {`) is read as the class
//!   (`extract::lang_rules::specifier_macros`), not its members as the
//!   namespace's functions. An older index's rows are rebuilt by the next
//!   index run (its vectors kept).
//! - 85: same tables; rows change: an extension-less file with neither a
//!   `#!` nor a mode line whose lines read as shell (nginx's `auto/`,
//!   Git's `mergetools/`) is Bash (`lang::reads_as_shell`; unindexed
//!   before). An older index's rows are rebuilt by the next index run (its
//!   vectors kept).
//! - 86: same tables; rows change: a Kotlin constructor whose annotations
//!   stand on the lines before it (`public actual class Regex` /
//!   `@PublishedApi` / `internal constructor(…)`) keeps its class, the
//!   class's members and the rest of the file
//!   (`extract::lang_rules::annotated_soft_keyword_classes`). An older
//!   index's rows are rebuilt by the next index run (its vectors kept).
//! - 87: same tables; rows change: a Kotlin function named `suspend` or a
//!   suspending lambda (`suspend { … }`) no longer costs its file every
//!   definition (`extract::lang_rules::suspend_as_a_name`). An older
//!   index's rows are rebuilt by the next index run (its vectors kept).
//! - 88: same tables; rows change: a C# generic method called on a
//!   receiver (`r.ResolveMember<MethodSpec> (…)`) is a call reference, no
//!   longer a plain use, and C#'s member calls are `call`s, not the
//!   grammar query's `send`. An older index's rows are rebuilt by the next
//!   index run (its vectors kept).
//! - 89: same tables; rows change: Mono's yacc grammars (`*.jay`, the C#
//!   compiler's `cs-parser.jay`) are indexed as grammars (unindexed
//!   before). An older index's rows are rebuilt by the next index run (its
//!   vectors kept).
//! - 90: same tables; rows change: Haskell operators are definitions
//!   (`s ^. l = …`, `(%~) = over`, a class's `(^..) :: …`; lens's core API
//!   was missing from `symbol` and `outline`). An older index's rows are
//!   rebuilt by the next index run (its vectors kept).
//! - 91: (a development build's) same tables; rows change: a PHP
//!   namespace's class written `Predis\Client` in chunk names and
//!   enclosing scopes. Measured on the `agent` suite and reverted (files
//!   NDCG@10 check −.0004, holdout −.0003: the names reach BM25 and the
//!   vectors' text).
//! - 92: same tables; rows as schema 90's (an index of 91 is rebuilt by
//!   the next index run, its vectors kept).
//! - 93: same tables; rows change: the imports of Kotlin (`import a.b.C`),
//!   Ruby (`require`, `require_relative`, `load`, `autoload`) and PHP
//!   (`use A\B\C`, `require_once`) files are read (none before). An older
//!   index's rows are rebuilt by the next index run (its vectors kept).
//! - 94: same tables; rows change: a C++ specifier macro after a function's
//!   return type (`void SPDLOG_INLINE pool::loop_()`) is blanked like one
//!   before it, and a misread file's bogus functions (a templated
//!   constructor's member initializers) no longer outvote the reading
//!   that finds the constructor. An older index's rows are rebuilt by the
//!   next index run (its vectors kept).
//! - 95: same tables; rows change: a Lua call's table (`stringx` of
//!   `stringx.split(…)`) is kept as the reference's qualifier (none
//!   before). An older index's rows are rebuilt by the next index run
//!   (its vectors kept).
//! - 96: same tables; rows change: a C or C++ struct field that is a
//!   function pointer returning a pointer (`void *(*keyDup)(…);`) is a
//!   field definition (none before). An older index's rows are rebuilt by
//!   the next index run (its vectors kept).
//! - 97: same tables; rows change: a Rust impl for a shared pointer of a
//!   type (`impl Schedule for Arc<Handle>`) is that type's (`Handle`),
//!   and so are its methods (`Arc` before). An older index's rows are
//!   rebuilt by the next index run (its vectors kept).
//! - 98: same tables; rows change: the imports of Scala (`import a.b.C`,
//!   `{C, D => E}`, `_`), Lua (`require "a.b"`), Haskell (`import
//!   qualified A.B as M`), Elixir (`alias`/`import`/`use`/`require A.B`),
//!   Zig (`@import("x.zig")`), Erlang (`-include`, `-include_lib`) and
//!   Julia (`include("x.jl")`) files are read (none before). An older
//!   index's rows are rebuilt by the next index run (its vectors kept).
//! - 99: same tables; rows change: C and C++ `struct LEVELDB_EXPORT
//!   Options { … }`, which reads without error as a function returning
//!   `struct LEVELDB_EXPORT`, is read with its export macro blanked (the
//!   struct and its fields, none before), and a class defined out of line
//!   with a qualified name (`class VersionSet::Builder { … }`) is a class
//!   (its members were the namespace's); Python's `@overload` stubs merge
//!   into the implementation after them, as TypeScript's overload
//!   signatures do (one definition spanning them, named where the
//!   implementation is). An older index's rows are rebuilt by the next
//!   index run (its vectors kept).
//! - 100: same tables; rows change: a C or C++ member or variable with a
//!   thread-safety annotation after its name (`VersionSet* const versions_
//!   GUARDED_BY(mutex_);`) is that field (it was a method named after the
//!   macro). An older index's rows are rebuilt by the next index run (its
//!   vectors kept).
//! - 101: same tables; rows change: a Java, Kotlin or Scala file's own
//!   package (`package a.b`) is an imports row of kind `package` with an
//!   empty key (`Store::package_rows`; never listed as an import or an
//!   importer): imports resolve by the package a file declares, which
//!   Kotlin's source sets do not spell in their directories. An older
//!   index's rows are rebuilt by the next index run (its vectors kept).
//! - 102: same tables; rows change: a Haskell function used point-free as
//!   a combinator's operand (`setextHeader <|> atxHeader`, `f . g`) is a
//!   call reference (none before: `context` gave such parsers 0 callers).
//!   An older index's rows are rebuilt by the next index run (its vectors
//!   kept).
//! - 103: same tables; rows change: a leftover block made of one
//!   definition and its doc comment (a one-line Go function under its
//!   comment) is a chunk named after that definition (it was unnamed).
//!   An older index's rows are rebuilt by the next index run (its vectors
//!   kept).
//! - 104: a development build's: chunks labelled without the namespaces
//!   around their types (it cost PHP's BM25 the namespace words of its
//!   symbol column, and was not kept).
//! - 105: same tables; rows as 103's. An older index's rows are rebuilt by
//!   the next index run (its vectors kept).
//! - 106: same tables; rows change: a `/** … */` doc block one blank line
//!   above a definition (express's JSDoc style) is that definition's
//!   doc comment and joins its chunk (it was a chunk of its own, without
//!   a name). An older index's rows are rebuilt by the next index run
//!   (its vectors kept).
//! - 107: same tables; rows change: a C or C++ `#define` that a parse
//!   error swallowed (the line after an attribute macro the grammar cannot
//!   read, tmux's `printflike(3, 4)`) is a macro definition. An older
//!   index's rows are rebuilt by the next index run (its vectors kept).
//! - 108: same tables; rows change: JavaScript and TypeScript properties
//!   defined through `Object.defineProperties` / `defineProperty` are
//!   named by their key on their object (`Request.hostname`, not `get`),
//!   and an object literal's key whose value is `Symbol(…)` is a constant
//!   (`keys.kReplySerializer`). An older index's rows are rebuilt by the
//!   next index run (its vectors kept).

use super::Store;

pub const SCHEMA_VERSION: i64 = 108;

/// The first schema with today's `embeddings(model, key, dim, vector)`,
/// whose vectors (f32 before schema 8) an upgrade converts and keeps.
const FIRST_WITH_VECTORS: i64 = 2;

/// The last schema whose other tables hold what this one's do: an index of
/// it keeps them through the upgrade (older ones are rebuilt by the next
/// index run, their vectors kept). Every schema whose entry above says its
/// rows change moves it (schemas 59-62 did not, and an upgraded index kept
/// rows those versions fixed until its files changed; a test reads the
/// entries now).
const SAME_ROWS_SINCE: i64 = 108;

const SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    lang TEXT,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    hash INTEGER NOT NULL,
    indexed_at_ns INTEGER NOT NULL,
    skip_reason TEXT,
    generated INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS symbol_files (
    file_id INTEGER PRIMARY KEY,
    n INTEGER NOT NULL,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS symbol_names (
    name TEXT NOT NULL COLLATE NOCASE,
    file_id INTEGER NOT NULL,
    variant INTEGER NOT NULL,
    PRIMARY KEY (name, file_id, variant)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ref_files (
    file_id INTEGER PRIMARY KEY,
    n INTEGER NOT NULL,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS ref_names (
    name TEXT NOT NULL,
    file_id INTEGER NOT NULL,
    PRIMARY KEY (name, file_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS imports (
    file_id INTEGER NOT NULL,
    module TEXT NOT NULL,
    name TEXT,
    alias TEXT,
    line INTEGER NOT NULL,
    kind TEXT NOT NULL,
    key TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS imports_file ON imports(file_id);
CREATE INDEX IF NOT EXISTS imports_key ON imports(key);
CREATE INDEX IF NOT EXISTS imports_name ON imports(name);
CREATE INDEX IF NOT EXISTS imports_alias ON imports(alias) WHERE alias IS NOT NULL;
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    symbol TEXT,
    kind TEXT,
    start_byte INTEGER NOT NULL,
    end_byte INTEGER NOT NULL,
    hash INTEGER NOT NULL,
    embed_key INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_id);
CREATE INDEX IF NOT EXISTS chunks_embed_key ON chunks(embed_key, file_id);
CREATE TABLE IF NOT EXISTS models (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS embeddings (
    model_id INTEGER NOT NULL,
    key INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (model_id, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ngram_docs (
    doc INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    indexed_at_ns INTEGER NOT NULL,
    covered INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS ngram_docs_uncovered ON ngram_docs(doc) WHERE covered = 0;
CREATE TABLE IF NOT EXISTS ngram_postings (
    gram INTEGER PRIMARY KEY,
    docs BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS ngram_blocks (
    doc INTEGER PRIMARY KEY,
    blocks INTEGER NOT NULL,
    map BLOB NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    body, symbol, path,
    content='', contentless_delete=1,
    tokenize='porter unicode61 remove_diacritics 2'
);
"#;

/// Indexes that only speed up lookups (dropped during bulk loads).
const SECONDARY_INDEXES: [&str; 6] = [
    "ngram_docs_uncovered",
    "imports_file",
    "imports_key",
    "imports_name",
    "imports_alias",
    "chunks_file",
];

impl Store {
    /// `PRAGMA quick_check`: an error (one [`super::is_damaged`] sees) when
    /// SQLite finds the file damaged. Reads the whole file: for repairs
    /// (`Service::repair`), not for every open.
    pub fn quick_check(&self) -> rusqlite::Result<()> {
        let first: String = self
            .conn
            .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))?;
        if first == "ok" {
            Ok(())
        } else {
            Err(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
                Some(first),
            ))
        }
    }

    pub(super) fn user_version(&self) -> rusqlite::Result<i64> {
        self.conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
    }

    /// Creates the schema when new (`version` 0) or rebuilt, and re-creates
    /// indexes a killed bulk load left out. The version is set only after the
    /// tables exist, in the same transaction, so a reader never sees the
    /// current version without its tables. Nothing is written when all is
    /// in place.
    pub(super) fn ensure_schema(&self, version: i64) -> rusqlite::Result<()> {
        let indexes: i64 = self.conn.query_row(
            &format!(
                "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN ({})",
                SECONDARY_INDEXES
                    .iter()
                    .map(|n| format!("'{n}'"))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            [],
            |r| r.get(0),
        )?;
        if version != SCHEMA_VERSION || indexes != SECONDARY_INDEXES.len() as i64 {
            self.conn.execute_batch(&format!(
                "BEGIN; {SCHEMA} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
            ))?;
        }
        Ok(())
    }

    /// Brings an index of an older schema (`version`, not 0) to this one,
    /// keeping what costs most to recompute: the vectors, which are keyed
    /// by content (`chunks.embed_key`), converted from f32 to int8 in place
    /// (schemas 2 to 7; schema 8's are int8 already). Tables whose rows changed since `version` are
    /// dropped (the next index run rebuilds them from the files); a schema
    /// without vectors is dropped whole. The conversion, the new tables
    /// and the version commit together (a killed upgrade leaves the old
    /// index, which the next open upgrades again); then the file is
    /// compacted (`VACUUM`: the f32 vectors' pages are freed; a failure
    /// there only leaves free pages). Returns the vectors kept.
    pub(super) fn upgrade(&self, version: i64) -> rusqlite::Result<u64> {
        if !(FIRST_WITH_VECTORS..SCHEMA_VERSION).contains(&version) {
            self.drop_all()?;
            return Ok(0);
        }
        self.conn.execute_batch("BEGIN")?;
        let kept = (|| {
            if version < SAME_ROWS_SINCE {
                self.drop_all_but_vectors()?;
            }
            let old_layout: bool = self.conn.query_row(
                "SELECT count(*) > 0 FROM pragma_table_info('embeddings') WHERE name = 'dim'",
                [],
                |r| r.get(0),
            )?;
            if !old_layout {
                self.conn
                    .execute_batch(&format!("{SCHEMA} PRAGMA user_version = {SCHEMA_VERSION};"))?;
                self.pack_int8_vectors()?;
                return self
                    .conn
                    .query_row("SELECT count(*) FROM embeddings", [], |r| {
                        r.get::<_, i64>(0)
                    })
                    .map(|n| n.max(0) as u64);
            }
            let kept = self.upgrade_vectors()?;
            self.conn
                .execute_batch("ALTER TABLE embeddings RENAME TO embeddings_old")?;
            self.conn
                .execute_batch(&format!("{SCHEMA} PRAGMA user_version = {SCHEMA_VERSION};"))?;
            self.move_vectors()?;
            self.pack_int8_vectors()?;
            Ok(kept)
        })();
        match kept {
            Ok(kept) => {
                self.conn.execute_batch("COMMIT")?;
                // VACUUM also turns incremental vacuum on (see Store::configure).
                if let Err(e) = self
                    .conn
                    .execute_batch("PRAGMA auto_vacuum = INCREMENTAL; VACUUM")
                {
                    tracing::warn!("the upgraded index was not compacted: {e}");
                }
                Ok(kept)
            }
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    /// Rewrites every f32 vector blob (schema 2 to 7: `4 × dim` bytes) as
    /// int8 codes with their scale ([`super::vector_to_blob`]); a blob
    /// already in that form (`dim + 4` bytes: the two lengths never agree)
    /// is kept as it is, any other row (corrupt) is deleted. Inside the
    /// caller's transaction. Returns the rows kept.
    pub(super) fn upgrade_vectors(&self) -> rusqlite::Result<u64> {
        let mut converted = 0u64;
        let mut last = i64::MIN;
        let mut read = self.conn.prepare(
            "SELECT id, dim, vector FROM embeddings WHERE id > ?1 ORDER BY id LIMIT 4096",
        )?;
        let mut update = self
            .conn
            .prepare("UPDATE embeddings SET vector = ?2 WHERE id = ?1")?;
        let mut delete = self.conn.prepare("DELETE FROM embeddings WHERE id = ?1")?;
        loop {
            let batch: Vec<(i64, i64, Vec<u8>)> = read
                .query_map([last], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<rusqlite::Result<_>>()?;
            let Some(&(end, _, _)) = batch.last() else {
                break;
            };
            for (id, dim, blob) in batch {
                let dim = usize::try_from(dim).unwrap_or(0);
                if dim > 0 && blob.len() == dim * 4 {
                    update.execute(rusqlite::params![id, super::f32_blob_to_blob(&blob)])?;
                    converted += 1;
                } else if dim > 0 && super::blob_dim(&blob) == Some(dim) {
                    converted += 1;
                } else {
                    delete.execute([id])?;
                }
            }
            last = end;
        }
        Ok(converted)
    }

    /// Copies the vectors of the layout before schema 12 (renamed
    /// `embeddings_old`: a model name and a dimension per row, a rowid and
    /// a (model, key) index) into today's, model by model in key order
    /// (the old index's order: no sort), then drops the old table.
    fn move_vectors(&self) -> rusqlite::Result<()> {
        self.conn.execute_batch(
            "INSERT INTO models (name) SELECT DISTINCT model FROM embeddings_old ORDER BY model",
        )?;
        let models: Vec<(i64, String)> = {
            let mut stmt = self.conn.prepare("SELECT id, name FROM models")?;
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<_>>()?
        };
        for (id, name) in models {
            self.conn.execute(
                "INSERT INTO embeddings (model_id, key, vector)
                 SELECT ?1, key, vector FROM embeddings_old WHERE model = ?2 ORDER BY key",
                rusqlite::params![id, name],
            )?;
        }
        self.conn.execute_batch("DROP TABLE embeddings_old")
    }

    /// Re-encodes the int8 vectors of schemas 8 to 12 in the packed form
    /// of schema 13 ([`super::vector_to_blob`]: 166 instead of 260 bytes
    /// for 256 dimensions; each value moves by at most half a 5-bit step),
    /// in key order, a batch at a time. Inside the caller's transaction
    /// (its `VACUUM` then gives the freed pages back).
    fn pack_int8_vectors(&self) -> rusqlite::Result<()> {
        let mut read = self.conn.prepare(
            "SELECT model_id, key, vector FROM embeddings
             WHERE (model_id, key) > (?1, ?2) ORDER BY model_id, key LIMIT 4096",
        )?;
        let mut update = self
            .conn
            .prepare("UPDATE embeddings SET vector = ?3 WHERE model_id = ?1 AND key = ?2")?;
        let mut last = (i64::MIN, i64::MIN);
        loop {
            let batch: Vec<(i64, i64, Vec<u8>)> = read
                .query_map(rusqlite::params![last.0, last.1], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })?
                .collect::<rusqlite::Result<_>>()?;
            let Some(&(model, key, _)) = batch.last() else {
                return Ok(());
            };
            last = (model, key);
            for (model, key, blob) in batch {
                if let Some(packed) = super::int8_blob_packed(&blob) {
                    update.execute(rusqlite::params![model, key, packed])?;
                }
            }
        }
    }

    fn drop_all_but_vectors(&self) -> rusqlite::Result<()> {
        self.conn.execute_batch(
            "DROP TABLE IF EXISTS ngram_postings; DROP TABLE IF EXISTS ngram_docs; DROP TABLE IF EXISTS chunks_fts; DROP TABLE IF EXISTS chunks; DROP TABLE IF EXISTS refs; DROP TABLE IF EXISTS ref_scopes; DROP TABLE IF EXISTS imports;
             DROP TABLE IF EXISTS symbols; DROP TABLE IF EXISTS symbol_files; DROP TABLE IF EXISTS symbol_names; DROP TABLE IF EXISTS ref_files; DROP TABLE IF EXISTS ref_names; DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS meta;",
        )
    }

    pub(super) fn drop_all(&self) -> rusqlite::Result<()> {
        self.conn.execute_batch(
            "DROP TABLE IF EXISTS ngram_postings; DROP TABLE IF EXISTS ngram_docs; DROP TABLE IF EXISTS embeddings; DROP TABLE IF EXISTS models; DROP TABLE IF EXISTS chunks_fts; DROP TABLE IF EXISTS chunks; DROP TABLE IF EXISTS refs; DROP TABLE IF EXISTS ref_scopes; DROP TABLE IF EXISTS imports;
             DROP TABLE IF EXISTS symbols; DROP TABLE IF EXISTS symbol_files; DROP TABLE IF EXISTS symbol_names; DROP TABLE IF EXISTS ref_files; DROP TABLE IF EXISTS ref_names; DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS meta;",
        )
    }

    /// Drops the lookup indexes of symbols, refs, imports and chunks before a bulk
    /// load; [`Store::create_indexes`] builds them again.
    pub(super) fn drop_secondary_indexes(&self) -> rusqlite::Result<()> {
        for name in SECONDARY_INDEXES {
            self.conn
                .execute_batch(&format!("DROP INDEX IF EXISTS {name}"))?;
        }
        Ok(())
    }

    /// Creates every missing table and index of the current schema.
    pub fn create_indexes(&self) -> rusqlite::Result<()> {
        self.conn.execute_batch(SCHEMA)
    }

    /// After a bulk load: rewrites the tables whose rows arrived out of
    /// key order (the name tables `symbol_names` and `ref_names`, loaded
    /// file by file, and `ngram_postings`, appended to batch by batch)
    /// into fresh b-trees, in key order (SQLite's transfer of identical
    /// tables, no sort), which fills their pages: on the kernel 165 -> 142
    /// MiB of names and 137 -> 128 of postings. In one transaction: a
    /// failure leaves the tables as they were. Then the pages the old
    /// copies held are given back to the file system.
    pub fn repack_after_bulk_load(&self) -> rusqlite::Result<()> {
        self.repack(&["symbol_names", "ref_names", "ngram_postings"])
    }

    /// After an embedding run that wrote many vectors: `embeddings` is
    /// keyed by content hashes, so new vectors land all over it and leave
    /// its pages part empty (Django's fast tier: 14.7 MiB, 12.7 in key
    /// order). Rewritten as [`Store::repack_after_bulk_load`] does.
    pub fn repack_vectors(&self) -> rusqlite::Result<()> {
        self.repack(&["embeddings"])
    }

    fn repack(&self, tables: &[&str]) -> rusqlite::Result<()> {
        let tx = self.conn.unchecked_transaction()?;
        for &table in tables {
            let ddl: String = tx.query_row(
                "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [table],
                |r| r.get(0),
            )?;
            let packed = format!("{table}_packed");
            let Some(body) = ddl.find('(').map(|i| &ddl[i..]) else {
                continue;
            };
            tx.execute_batch(&format!(
                "DROP TABLE IF EXISTS {packed};
                 CREATE TABLE {packed} {body};
                 INSERT INTO {packed} SELECT * FROM {table};
                 DROP TABLE {table};
                 ALTER TABLE {packed} RENAME TO {table};"
            ))?;
        }
        tx.commit()?;
        // The old copies' pages, given back (an index created before
        // incremental vacuum keeps them free for later writes). The pragma
        // frees a page per step: stepped to the end.
        let mut stmt = self.conn.prepare("PRAGMA incremental_vacuum")?;
        let mut rows = stmt.query([])?;
        while rows.next()?.is_some() {}
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{FileUpdate, Store, embed_key, vector_to_blob};
    use super::SCHEMA_VERSION;
    use crate::model::{Chunk, Extracted, Lang};

    /// The module's changelog: no schema whose rows change is newer than
    /// the last one an upgrade keeps rows from.
    #[test]
    fn every_schema_whose_rows_change_rebuilds_older_rows() {
        let text = include_str!("schema.rs");
        let mut entries: Vec<(i64, String)> = Vec::new();
        for line in text.lines().take_while(|l| l.starts_with("//!")) {
            let body = line.trim_start_matches("//!").trim();
            let number = body
                .strip_prefix("- ")
                .and_then(|b| b.split_once(':'))
                .and_then(|(n, _)| n.parse::<i64>().ok());
            match (number, entries.last_mut()) {
                (Some(n), _) => entries.push((n, body.to_string())),
                (None, Some((_, t))) => {
                    t.push(' ');
                    t.push_str(body);
                }
                (None, None) => {}
            }
        }
        assert_eq!(entries.last().map(|e| e.0), Some(SCHEMA_VERSION));
        for (n, t) in &entries {
            if t.contains("rows change") || t.contains("rows are rebuilt") {
                assert!(*n <= super::SAME_ROWS_SINCE, "schema {n} changes rows: {t}");
            }
        }
    }

    /// A vector of `dim` values that is not a multiple of its largest one.
    fn vector(seed: u32, dim: usize) -> Vec<f32> {
        let v: Vec<f32> = (0..dim)
            .map(|i| {
                (((i as u32).wrapping_mul(2654435761) ^ seed.wrapping_mul(40503)) % 1000) as f32
                    / 1000.0
                    - 0.5
            })
            .collect();
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    const LETTERS: [&str; 4] = ["a", "b", "c", "d"];

    /// One file's chunks "a".."d", one per line, the i-th at byte `start(i)`.
    fn letter_chunks(start: fn(usize) -> usize) -> Extracted {
        Extracted {
            chunks: LETTERS
                .iter()
                .enumerate()
                .map(|(i, t)| Chunk {
                    start_line: i as u32 + 1,
                    end_line: i as u32 + 1,
                    symbol: None,
                    kind: None,
                    start_byte: start(i),
                    end_byte: start(i) + t.len(),
                    text: t.to_string(),
                })
                .collect(),
            ..Extracted::default()
        }
    }

    /// An index with chunks "a".."d" of one file and model `m`'s vectors
    /// for them, written as schema `version` wrote them (f32 blobs), plus a
    /// corrupt row.
    fn old_index(dir: &std::path::Path, version: i64) -> Vec<(u64, Vec<f32>)> {
        let mut store = Store::open_rw(dir).expect("open");
        let extracted = letter_chunks(|_| 0);
        let vectors: Vec<(u64, Vec<f32>)> = LETTERS
            .iter()
            .enumerate()
            .map(|(i, t)| (embed_key("a.py", None, t), vector(i as u32, 256)))
            .collect();
        let w = store.begin().expect("begin");
        w.put_file(
            None,
            &FileUpdate::for_test("a.py", Lang::Python, &extracted),
            1,
        )
        .expect("put file");
        w.commit().expect("commit");
        // The vectors as schema 2 to 11 stored them (a model name and a
        // dimension per row), as f32 values (schema 7 and older), and a
        // row that is neither form.
        store
            .conn
            .execute_batch(
                "DROP TABLE embeddings; DROP TABLE models;
                 CREATE TABLE embeddings (id INTEGER PRIMARY KEY, model TEXT NOT NULL,
                     key INTEGER NOT NULL, dim INTEGER NOT NULL, vector BLOB NOT NULL);
                 CREATE UNIQUE INDEX embeddings_model_key ON embeddings(model, key);",
            )
            .expect("old layout");
        let mut rows: Vec<(i64, i64, Vec<u8>)> = vectors
            .iter()
            .map(|(k, v)| {
                let blob = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                (*k as i64, v.len() as i64, blob)
            })
            .collect();
        rows.push((42, 2, vec![1, 2, 3, 4, 5]));
        for (k, dim, blob) in rows {
            store
                .conn
                .execute(
                    "INSERT INTO embeddings (model, key, dim, vector) VALUES ('m', ?1, ?2, ?3)",
                    rusqlite::params![k, dim, blob],
                )
                .expect("old row");
        }
        store
            .conn
            .pragma_update(None, "user_version", version)
            .expect("old version");
        vectors
    }

    /// A schema-7 index opens upgraded: its f32 vectors are now the int8
    /// codes a fresh index would store for them, its other rows (whose
    /// form changed: `refs.scope`) are left for the next index run to
    /// rebuild, the corrupt vector is gone and the free pages were given
    /// back.
    #[test]
    fn a_schema_7_index_keeps_its_vectors_converted() {
        let dir = tempfile::tempdir().expect("tempdir");
        let vectors = old_index(dir.path(), 7);
        let store = Store::open_rw(dir.path()).expect("upgrade");
        assert_eq!(store.user_version().expect("version"), SCHEMA_VERSION);
        assert_eq!(store.counts().expect("counts").chunks, 0, "rebuilt");
        for (i, (k, v)) in vectors.iter().enumerate() {
            let stored = store.vector("m", *k).expect("read").expect("a vector");
            let mut fresh = Vec::new();
            super::super::blob_to_vector(&vector_to_blob(v), &mut fresh).expect("decode");
            assert_eq!(stored, fresh, "vector {i} as a new index stores it");
            let err = v.iter().zip(&stored).map(|(a, b)| (a - b).abs());
            assert!(err.fold(0.0f32, f32::max) < 0.005, "vector {i}");
        }
        assert_eq!(store.vector("m", 42).expect("read"), None, "corrupt row");
        let free: i64 = store
            .conn
            .query_row("PRAGMA freelist_count", [], |r| r.get(0))
            .expect("free");
        assert_eq!(free, 0, "compacted");
        drop(store);
        // Opening again changes nothing (the version says it is done).
        let store = Store::open_rw(dir.path()).expect("open");
        let (k, v) = &vectors[0];
        let mut fresh = Vec::new();
        super::super::blob_to_vector(&vector_to_blob(v), &mut fresh).expect("decode");
        assert_eq!(store.vector("m", *k).expect("read"), Some(fresh));
    }

    /// An older schema (rows changed since) keeps only its vectors, which
    /// the next index run finds again by their keys; a converted blob met
    /// again (an upgrade interrupted after it) is kept as it is.
    #[test]
    fn an_older_schema_keeps_only_its_vectors() {
        let dir = tempfile::tempdir().expect("tempdir");
        let vectors = old_index(dir.path(), 5);
        {
            let store = Store::open_rw(dir.path()).expect("open");
            let (k, v) = &vectors[0];
            store
                .conn
                .execute(
                    "UPDATE embeddings SET vector = ?2 WHERE key = ?1",
                    rusqlite::params![*k as i64, vector_to_blob(v)],
                )
                .expect("already converted");
            store
                .conn
                .pragma_update(None, "user_version", 5)
                .expect("old version");
        }
        let store = Store::open_rw(dir.path()).expect("upgrade");
        assert_eq!(store.user_version().expect("version"), SCHEMA_VERSION);
        assert_eq!(store.counts().expect("counts").chunks, 0, "rebuilt");
        assert_eq!(store.file_records().expect("files").len(), 0);
        for (k, v) in &vectors {
            let stored = store.vector("m", *k).expect("read").expect("kept");
            let mut fresh = Vec::new();
            super::super::blob_to_vector(&vector_to_blob(v), &mut fresh).expect("decode");
            assert_eq!(stored, fresh);
        }
        assert_eq!(store.vector("m", 42).expect("read"), None);
    }

    /// A schema-9 index (chunk texts stored in `chunks.text`) keeps its
    /// vectors and loses its other rows; the next index run writes the
    /// same chunks as byte ranges with the same `embed_key`s, so none of
    /// them needs a vector again.
    #[test]
    fn a_schema_9_index_keeps_its_vectors_for_the_same_chunks() {
        let dir = tempfile::tempdir().expect("tempdir");
        let vectors = old_index(dir.path(), 9);
        let mut store = Store::open_rw(dir.path()).expect("upgrade");
        assert_eq!(store.user_version().expect("version"), SCHEMA_VERSION);
        assert_eq!(store.counts().expect("counts").chunks, 0, "rebuilt");
        assert_eq!(store.pending_embeddings("m").expect("pending").len(), 0);
        let extracted = letter_chunks(|i| 2 * i);
        let w = store.begin().expect("begin");
        w.put_file(
            None,
            &FileUpdate::for_test("a.py", Lang::Python, &extracted),
            1,
        )
        .expect("put file");
        w.commit().expect("commit");
        assert_eq!(store.counts().expect("counts").chunks, 4);
        assert_eq!(
            store.pending_embeddings("m").expect("pending").len(),
            0,
            "every chunk finds its vector again"
        );
        for (k, _) in &vectors {
            assert!(store.vector("m", *k).expect("read").is_some());
        }
    }

    /// A schema-11 index (the vectors in the old layout) has its rows
    /// rebuilt (schema 13 chunks data tables differently), and its vectors
    /// move to `embeddings(model_id, key, vector)`.
    #[test]
    fn a_schema_11_index_moves_its_vectors() {
        let dir = tempfile::tempdir().expect("tempdir");
        let vectors = old_index(dir.path(), 11);
        let store = Store::open_rw(dir.path()).expect("upgrade");
        assert_eq!(store.user_version().expect("version"), SCHEMA_VERSION);
        assert_eq!(store.counts().expect("counts").chunks, 0, "rebuilt");
        for (k, v) in &vectors {
            let mut fresh = Vec::new();
            super::super::blob_to_vector(&vector_to_blob(v), &mut fresh).expect("decode");
            assert_eq!(store.vector("m", *k).expect("read"), Some(fresh));
        }
        assert_eq!(store.vector("m", 42).expect("read"), None, "corrupt row");
        let old: i64 = store
            .conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name LIKE 'embeddings_%'",
                [],
                |r| r.get(0),
            )
            .expect("count");
        assert_eq!(old, 0, "the old table and its index are gone");
    }

    /// A schema-12 index's int8 vectors are re-encoded packed by the
    /// upgrade: same keys, values within half a 5-bit step, smaller rows.
    #[test]
    fn a_schema_12_index_has_its_int8_vectors_packed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let v: Vec<f32> = (0..256).map(|i| ((i % 17) as f32 - 8.0) / 9.0).collect();
        {
            let mut store = Store::open_rw(dir.path()).expect("open");
            let w = store.begin().expect("begin");
            w.put_embeddings("m", &[(7, &v[..])]).expect("put");
            w.commit().expect("commit");
            store
                .conn
                .execute(
                    "UPDATE embeddings SET vector = ?1",
                    [super::super::int8_blob(&v)],
                )
                .expect("int8 row");
            store
                .conn
                .pragma_update(None, "user_version", 12)
                .expect("old version");
        }
        let store = Store::open_rw(dir.path()).expect("upgrade");
        assert_eq!(store.user_version().expect("version"), SCHEMA_VERSION);
        let len: i64 = store
            .conn
            .query_row("SELECT length(vector) FROM embeddings", [], |r| r.get(0))
            .expect("row");
        assert_eq!(len, 166, "packed");
        let back = store.vector("m", 7).expect("read").expect("kept");
        let step = 8.0 / 9.0 / 15.0;
        for (a, b) in v.iter().zip(&back) {
            assert!((a - b).abs() <= step / 2.0 + 0.01, "{a} vs {b}");
        }
    }

    /// Repacking the name tables keeps every row and every lookup.
    #[test]
    fn repacked_tables_answer_the_same() {
        use crate::model::{Reference, Symbol};
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = Store::open_rw(dir.path()).expect("open");
        let files: Vec<(String, Extracted)> = (0..2000)
            .map(|i| {
                let symbol = |name: String| Symbol {
                    name,
                    kind: "function".into(),
                    container: None,
                    signature: "def f():".into(),
                    start_line: 1,
                    end_line: 2,
                    name_line: 1,
                    name_column: 5,
                };
                let extracted = Extracted {
                    symbols: vec![symbol(format!("f{}", i % 7)), symbol(format!("F{}", i % 3))],
                    refs: vec![Reference {
                        name: format!("g{}", i % 5),
                        kind: "call".into(),
                        line: 2,
                        column: 5,
                        qualifier: None,
                        scope: None,
                    }],
                    ..Extracted::default()
                };
                (format!("m{i}.py"), extracted)
            })
            .collect();
        let w = store.begin().expect("begin");
        for (path, extracted) in &files {
            w.put_file(
                None,
                &FileUpdate::for_test(path, Lang::Python, extracted),
                1,
            )
            .expect("put");
        }
        w.commit().expect("commit");
        let answers = |store: &Store| {
            (
                store.definition_rows("f3").expect("defs").len(),
                store
                    .symbol_rows("f", super::super::NameMatch::Prefix, 1000)
                    .expect("prefix")
                    .len(),
                store.ref_rows("g2").expect("refs").len(),
                store.counts().expect("counts").symbols,
            )
        };
        let before = answers(&store);
        assert_eq!(before, (286, 1000, 400, 4000));
        store.repack_after_bulk_load().expect("repack");
        assert_eq!(answers(&store), before);
        let free: i64 = store
            .conn
            .query_row("PRAGMA freelist_count", [], |r| r.get(0))
            .expect("free");
        let av: i64 = store
            .conn
            .query_row("PRAGMA auto_vacuum", [], |r| r.get(0))
            .expect("av");
        assert_eq!((free, av), (0, 2), "the old copies' pages are given back");
    }

    /// A schema without vectors (1) is rebuilt whole.
    #[test]
    fn a_schema_without_vectors_is_dropped() {
        let dir = tempfile::tempdir().expect("tempdir");
        old_index(dir.path(), 1);
        let store = Store::open_rw(dir.path()).expect("open");
        assert_eq!(store.user_version().expect("version"), SCHEMA_VERSION);
        assert_eq!(store.load_vectors("m").expect("load").chunk_ids.len(), 0);
    }
}
