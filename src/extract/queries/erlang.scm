; repo-search's tags query for tree-sitter-erlang (the crate ships none):
; the module, functions (each clause is a `fun_decl` of its own here;
; `tags::merge_clauses` joins a function's clauses), records and their
; fields, types and opaque types, macros and callbacks; local and remote
; calls, `fun f/1` and record names as references.

(module_attribute name: (atom) @name) @definition.module

(fun_decl clause: (function_clause name: (atom) @name)) @definition.function

(record_decl name: (atom) @name) @definition.struct

(record_decl (record_field name: (atom) @name) @definition.field)

(type_alias name: (type_name name: (atom) @name)) @definition.type

(opaque name: (type_name name: (atom) @name)) @definition.type

(pp_define lhs: (macro_lhs name: (_) @name)) @definition.macro

(callback fun: (atom) @name) @definition.method

(call expr: (atom) @name) @reference.call

(internal_fun fun: (atom) @name) @reference.call

(external_fun fun: (atom) @name) @reference.call

(record_expr name: (record_name name: (atom) @name)) @reference.type
