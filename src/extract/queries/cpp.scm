; repo-search additions for C++ only (after c.scm): namespaces, `using`
; aliases, concepts, out-of-line members with nested or template scopes,
; destructors and operators, namespace-level variables, qualified calls.

(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.namespace

(alias_declaration name: (type_identifier) @name) @definition.type

(concept_definition name: (identifier) @name) @definition.type

; The extractor unwraps `a::B::c` to `c` and keeps `a::B` as its scope.
(function_declarator
  declarator: [(qualified_identifier) (destructor_name) (operator_name)] @name) @definition.method

(namespace_definition
  body: (declaration_list
    (declaration
      declarator: [
        (identifier) @name
        (init_declarator declarator: (identifier) @name)
      ]) @definition.variable))

(call_expression
  function: (qualified_identifier name: (identifier) @name)) @reference.call

(call_expression
  function: (template_function name: (identifier) @name)) @reference.call

; A nested class defined out of line (`class VersionSet::Builder { … }` in
; a `.cc` file): the extractor unwraps the name to `Builder` and keeps
; `VersionSet` as its scope.
(class_specifier
  name: (qualified_identifier) @name
  body: (field_declaration_list)) @definition.class

(struct_specifier
  name: (qualified_identifier) @name
  body: (field_declaration_list)) @definition.class
