; repo-search's tags query for tree-sitter-kotlin-ng (the crate ships none):
; classes, interfaces, enums and objects, functions, properties of classes
; and files, type aliases; calls, supertypes and type uses.

(class_declaration name: (identifier) @name) @definition.class

(object_declaration name: (identifier) @name) @definition.class

(function_declaration name: (identifier) @name) @definition.function

; A secondary constructor is named as Kotlin calls it: `constructor`.
(secondary_constructor "constructor" @name) @definition.method

(type_alias type: (identifier) @name) @definition.type

(class_body
  (property_declaration
    (variable_declaration (identifier) @name)) @definition.field)

; A primary constructor's `val` / `var` parameters are properties of the
; class (`data class User(val name: String)`); plain parameters are not.
(class_parameter ["val" "var"] . (identifier) @name) @definition.field

(source_file
  (property_declaration
    (variable_declaration (identifier) @name)) @definition.variable)

(enum_entry (identifier) @name) @definition.constant

(call_expression . (identifier) @name) @reference.call

(call_expression
  . (navigation_expression (identifier) @name .)) @reference.call

(delegation_specifier
  [(user_type (identifier) @name)
   (constructor_invocation (user_type (identifier) @name))]) @reference.implementation

(user_type (identifier) @name) @reference.type
