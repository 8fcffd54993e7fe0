; repo-search additions to tree-sitter-lua's tags query: module tables
; (`local M = {}` at file level), the usual way Lua code names a module.

(chunk
  (variable_declaration
    (assignment_statement
      (variable_list . name: (identifier) @name)
      (expression_list . value: (table_constructor)))) @definition.variable)
