; repo-search additions to tree-sitter-lua's tags query: module tables
; (`local M = {}` at file level), the usual way Lua code names a module.

(chunk
  (variable_declaration
    (assignment_statement
      (variable_list . name: (identifier) @name)
      (expression_list . value: (table_constructor)))) @definition.variable)

; Classes made by a call at file level, as Lua's class libraries make them:
; `local OrderedMap = class(Map)` (Penlight), `local Animal =
; class('Animal')` (middleclass, 30log), `Point = Object:extend()` (classic),
; `local Cat = Animal:subclass('Cat')`.
(chunk
  (variable_declaration
    (assignment_statement
      (variable_list . name: (identifier) @name)
      (expression_list . value: (function_call
        name: (identifier) @_make)))) @definition.class
  (#any-of? @_make "class" "Class"))

(chunk
  (assignment_statement
    (variable_list . name: (identifier) @name)
    (expression_list . value: (function_call
      name: (identifier) @_make))) @definition.class
  (#any-of? @_make "class" "Class"))

(chunk
  (variable_declaration
    (assignment_statement
      (variable_list . name: (identifier) @name)
      (expression_list . value: (function_call
        name: (method_index_expression method: (identifier) @_make))))) @definition.class
  (#any-of? @_make "extend" "subclass"))

(chunk
  (assignment_statement
    (variable_list . name: (identifier) @name)
    (expression_list . value: (function_call
      name: (method_index_expression method: (identifier) @_make)))) @definition.class
  (#any-of? @_make "extend" "subclass"))
