; repo-search additions to tree-sitter-go's tags query. The stock query lists
; package-level consts and vars and interface methods without a definition
; capture (so tags consumers drop them) and has no type aliases.

(type_alias name: (type_identifier) @name) @definition.type

(method_elem name: (field_identifier) @name) @definition.method

(source_file
  (const_declaration
    (const_spec name: (identifier) @name) @definition.constant))

(source_file
  (var_declaration
    (var_spec name: (identifier) @name) @definition.variable))

(source_file
  (var_declaration
    (var_spec_list
      (var_spec name: (identifier) @name) @definition.variable)))

; A method expression, `(*Channel).recvMethod` or `(T).m`, passed as a
; value: a reference of the method, read by the resolver as `T`'s.
(selector_expression
  operand: (parenthesized_expression)
  field: (field_identifier) @name) @reference.call

; Fields of a named struct type (`Context.Keys`); an anonymous struct's
; fields (a test table's `name`, `want`) are not definitions.
(type_spec
  type: (struct_type
    (field_declaration_list
      (field_declaration name: (field_identifier) @name) @definition.field)))
