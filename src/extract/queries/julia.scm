; repo-search's tags query for tree-sitter-julia (the crate ships none; its
; nodes have few fields, so names are found by position): modules,
; functions in both forms (`function f(x) … end`, `f(x) = …`, with a
; return type or `where` clause, `Base.show` named `show`), macros,
; structs, abstract and primitive types, constants and struct fields;
; calls as references.

(module_definition name: (identifier) @name) @definition.module

(function_definition
  (signature
    [(call_expression . [(identifier) @name (field_expression (identifier) @name .)])
     (typed_expression . (call_expression . [(identifier) @name (field_expression (identifier) @name .)]))
     (where_expression . [(call_expression . [(identifier) @name (field_expression (identifier) @name .)])
                          (typed_expression . (call_expression . [(identifier) @name (field_expression (identifier) @name .)]))])])) @definition.function

(assignment
  . [(call_expression . [(identifier) @name (field_expression (identifier) @name .)])
     (typed_expression . (call_expression . [(identifier) @name (field_expression (identifier) @name .)]))
     (where_expression . [(call_expression . [(identifier) @name (field_expression (identifier) @name .)])
                          (typed_expression . (call_expression . [(identifier) @name (field_expression (identifier) @name .)]))])]
  (operator) @_op
  (#eq? @_op "=")) @definition.function

(macro_definition
  (signature (call_expression . (identifier) @name))) @definition.macro

(struct_definition
  (type_head
    [(identifier) @name
     (parametrized_type_expression . (identifier) @name)
     (binary_expression . [(identifier) @name (parametrized_type_expression . (identifier) @name)])])) @definition.struct

(struct_definition (typed_expression . (identifier) @name) @definition.field)

(abstract_definition
  (type_head
    [(identifier) @name
     (parametrized_type_expression . (identifier) @name)
     (binary_expression . [(identifier) @name (parametrized_type_expression . (identifier) @name)])])) @definition.type

(primitive_definition
  (type_head
    [(identifier) @name
     (binary_expression . (identifier) @name)])) @definition.type

(const_statement (assignment . (identifier) @name)) @definition.constant

(call_expression . (identifier) @name) @reference.call

(call_expression . (field_expression (identifier) @name .)) @reference.call
