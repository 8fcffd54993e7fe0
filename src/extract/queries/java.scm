; repo-search additions to tree-sitter-java's tags query: enums, records,
; annotation types, constructors, fields, interface constants and type uses.

(enum_declaration name: (identifier) @name) @definition.enum

(record_declaration name: (identifier) @name) @definition.class

(annotation_type_declaration name: (identifier) @name) @definition.interface

(constructor_declaration name: (identifier) @name) @definition.method

(compact_constructor_declaration name: (identifier) @name) @definition.method

(annotation_type_element_declaration name: (identifier) @name) @definition.method

(field_declaration
  declarator: (variable_declarator name: (identifier) @name)) @definition.field

(constant_declaration
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant

(type_identifier) @name @reference.type

; Enum constants, so `Color.RED` has a definition to resolve to.
(enum_constant name: (identifier) @name) @definition.constant

; Record components are the record's fields (`Point.x`).
(record_declaration
  parameters: (formal_parameters
    (formal_parameter name: (identifier) @name) @definition.field))
