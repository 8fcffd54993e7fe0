; repo-search additions for C, also appended for C++: the stock queries have
; no macros, unions outside declarations, enumerators, struct fields,
; pointer typedefs, global variables, and no references at all.

(union_specifier name: (type_identifier) @name body: (_)) @definition.struct

(preproc_def name: (identifier) @name) @definition.macro

(preproc_function_def name: (identifier) @name) @definition.macro

(enumerator name: (identifier) @name) @definition.constant

(type_definition
  declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type

(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (pointer_declarator declarator: (type_identifier) @name)))) @definition.type

; Fields, function pointers among them (an operation table's `ssize_t
; (*read)(…);`, and `void *(*keyDup)(…);` returning a pointer).
(field_declaration
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (array_declarator declarator: (field_identifier) @name)
    (function_declarator
      declarator: (parenthesized_declarator
        (pointer_declarator declarator: (field_identifier) @name)))
    (pointer_declarator
      declarator: (function_declarator
        declarator: (parenthesized_declarator
          (pointer_declarator declarator: (field_identifier) @name))))
  ]) @definition.field

; Globals, function pointers (a hook, an API entry: `int
; (*RedisModule_CreateCommand)(…);`) and arrays of pointers (`static const
; char *names[]`) among them.
(translation_unit
  (declaration
    declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
      (pointer_declarator
        declarator: (array_declarator declarator: (identifier) @name))
      (function_declarator
        declarator: (parenthesized_declarator
          (pointer_declarator declarator: (identifier) @name)))
      (init_declarator
        declarator: [
          (identifier) @name
          (pointer_declarator declarator: (identifier) @name)
          (array_declarator declarator: (identifier) @name)
          (pointer_declarator
            declarator: (array_declarator declarator: (identifier) @name))
          (function_declarator
            declarator: (parenthesized_declarator
              (pointer_declarator declarator: (identifier) @name)))
        ])
    ]) @definition.variable)

(call_expression function: (identifier) @name) @reference.call

(call_expression
  function: (field_expression field: (field_identifier) @name)) @reference.call

(type_identifier) @name @reference.type
