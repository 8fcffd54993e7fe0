; repo-search additions to tree-sitter-typescript's tags query (which is
; itself appended to JavaScript's): type aliases, enums, namespaces, class
; fields, interface properties and type uses outside annotations.

(type_alias_declaration name: (type_identifier) @name) @definition.type

(enum_declaration name: (identifier) @name) @definition.enum

(internal_module name: [(identifier) (nested_identifier)] @name) @definition.namespace

(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.field

(property_signature name: (property_identifier) @name) @definition.field

(extends_clause value: (identifier) @name) @reference.class

(extends_clause value: (member_expression property: (property_identifier) @name)) @reference.class

(implements_clause (type_identifier) @name) @reference.implementation

(extends_type_clause type: (type_identifier) @name) @reference.implementation

(type_identifier) @name @reference.type

; Enum members (`enum Color { Red, Green = 2 }`).
(enum_body (property_identifier) @name @definition.constant)
(enum_body (enum_assignment name: (property_identifier) @name) @definition.constant)
