; repo-search additions to tree-sitter-c-sharp's tags query: qualified and
; file-scoped namespaces, structs, enums, records, delegates, constructors,
; properties, fields, enum members, and calls and type uses the stock query
; leaves out.

(namespace_declaration name: (qualified_name) @name) @definition.module

(file_scoped_namespace_declaration name: [(identifier) (qualified_name)] @name) @definition.module

(struct_declaration name: (identifier) @name) @definition.struct

(enum_declaration name: (identifier) @name) @definition.enum

(record_declaration name: (identifier) @name) @definition.class

(delegate_declaration name: (identifier) @name) @definition.type

(constructor_declaration name: (identifier) @name) @definition.method

(destructor_declaration name: (identifier) @name) @definition.method

(property_declaration name: (identifier) @name) @definition.field

(field_declaration
  (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field

(enum_member_declaration name: (identifier) @name) @definition.constant

(invocation_expression function: (identifier) @name) @reference.call

(invocation_expression function: (generic_name (identifier) @name)) @reference.call

; A generic method called on a receiver: `r.ResolveMember<MethodSpec> (rc, ref args)`.
(invocation_expression
  function: (member_access_expression name: (generic_name (identifier) @name))) @reference.call

(object_creation_expression type: (generic_name (identifier) @name)) @reference.class

(base_list (generic_name (identifier) @name)) @reference.implementation

; Operators are named by their symbol (`==`, `+`), conversion operators by
; `implicit` / `explicit`, indexers `this` (as C# writes them); events,
; event fields and local functions by their names.
(operator_declaration operator: _ @name) @definition.method

(conversion_operator_declaration ["implicit" "explicit"] @name) @definition.method

(indexer_declaration "this" @name) @definition.method

(event_declaration name: (identifier) @name) @definition.field

(event_field_declaration
  (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field

(local_function_statement name: (identifier) @name) @definition.function
