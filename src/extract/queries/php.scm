; repo-search additions to tree-sitter-php's tags query: enums, constants,
; enum cases, and calls, instantiations and parent classes named by a plain
; name (the stock query only matches qualified names there).

(enum_declaration name: (name) @name) @definition.enum

(const_declaration (const_element (name) @name)) @definition.constant

(enum_case name: (name) @name) @definition.constant

(function_call_expression function: (name) @name) @reference.call

(object_creation_expression (name) @name) @reference.class

(base_clause [(name) (qualified_name)] @name) @reference.class

; Promoted constructor parameters (`__construct(private string $name)`)
; declare properties.
(property_promotion_parameter name: (variable_name (name) @name)) @definition.field
