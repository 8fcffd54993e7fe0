; repo-search additions to tree-sitter-rust's tags query. The stock query has
; no constants, statics, trait method signatures, impl blocks or type uses,
; and misses calls through paths (`Config::new()`) and turbofish calls.

(const_item name: (identifier) @name) @definition.constant

(static_item name: (identifier) @name) @definition.constant

(function_signature_item name: (identifier) @name) @definition.function

; The name of an impl block is the name of its self type; the extractor
; unwraps generics, paths and references (`impl<T> Foo<T>`, `impl X for &Bar`).
(impl_item type: (_) @name) @definition.impl

(call_expression
  function: (scoped_identifier name: (identifier) @name)) @reference.call

(call_expression
  function: (generic_function
    function: [
      (identifier) @name
      (scoped_identifier name: (identifier) @name)
      (field_expression field: (field_identifier) @name)
    ])) @reference.call

(macro_invocation
  macro: (scoped_identifier name: (identifier) @name)) @reference.call

; Trait impls through a path or with generics (`impl fmt::Display for X`).
(impl_item
  trait: [
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
  ]) @reference.implementation

(type_identifier) @name @reference.type

; Enum variants, so `Kind::Alpha` has a definition to resolve to.
(enum_variant name: (identifier) @name) @definition.constant

; Named fields of a struct or union (`Parser.cmd`).
(struct_item
  body: (field_declaration_list
    (field_declaration name: (field_identifier) @name) @definition.field))

(union_item
  body: (field_declaration_list
    (field_declaration name: (field_identifier) @name) @definition.field))
