; repo-search additions to tree-sitter-swift's tags query: extensions,
; protocol requirements, enum cases, type aliases, calls and inheritance.
; (The stock method and property patterns tag the whole class; the
; extractor re-anchors them on the member, see `lang_rules`.)

(class_declaration
  declaration_kind: "extension"
  name: (user_type (type_identifier) @name)) @definition.impl

(protocol_function_declaration name: (simple_identifier) @name) @definition.method

(protocol_property_declaration
  name: (pattern (simple_identifier) @name)) @definition.field

(enum_entry name: (simple_identifier) @name) @definition.constant

(typealias_declaration name: (type_identifier) @name) @definition.type

(call_expression . (simple_identifier) @name) @reference.call

(call_expression
  . (navigation_expression
      suffix: (navigation_suffix suffix: (simple_identifier) @name))) @reference.call

(inheritance_specifier
  inherits_from: (user_type (type_identifier) @name)) @reference.implementation

(associatedtype_declaration name: (type_identifier) @name) @definition.type

; Operator implementations (`static func + (lhs: V, rhs: V) -> V`): the
; name is the operator token, which the stock patterns' `simple_identifier`
; does not match.
(function_declaration
  name: ["+" "-" "*" "/" "%" "==" "!=" "===" "!==" "<" ">" "<=" ">=" "&" "^" "|" "~" "++" "--" "+=" "-=" "*=" "/=" "%=" "<<" ">>" "=" (bang) (custom_operator)] @name) @definition.function
