; repo-search's tags query for tree-sitter-zig (the crate ships none):
; functions, `const X = struct/enum/union/opaque {…}` containers, constants
; and variables of files and containers (not locals), fields, tests; calls.

(variable_declaration (identifier) @name (struct_declaration)) @definition.struct

(variable_declaration (identifier) @name (union_declaration)) @definition.struct

(variable_declaration (identifier) @name (enum_declaration)) @definition.enum

(variable_declaration (identifier) @name (opaque_declaration)) @definition.type

(function_declaration name: (identifier) @name) @definition.function

(source_file (variable_declaration (identifier) @name) @definition.constant)

(struct_declaration (variable_declaration (identifier) @name) @definition.constant)

(container_field name: (identifier) @name) @definition.field

(test_declaration (string (string_content) @name)) @definition.function

(call_expression function: (identifier) @name) @reference.call

(call_expression function: (field_expression member: (identifier) @name)) @reference.call
