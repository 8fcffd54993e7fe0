; repo-search additions to tree-sitter-elixir's tags query: protocol
; implementations and structs.

(call
  target: (identifier) @_kw
  (arguments (alias) @name)
  (#eq? @_kw "defimpl")) @definition.impl

; A behaviour's callbacks (`@callback fetch(opts) :: term`, also with a
; `when` clause, and `@macrocallback`): what its implementations define.
(unary_operator
  operand: (call
    target: (identifier) @_attr
    (arguments [
      (binary_operator left: (call target: (identifier) @name))
      (binary_operator left: (identifier) @name)
      (binary_operator left: (binary_operator left: (call target: (identifier) @name)))
      (binary_operator left: (binary_operator left: (identifier) @name))
    ]))
  (#any-of? @_attr "callback" "macrocallback")) @definition.method

; Type specifications (`@type t :: …`, `@typep`, `@opaque`, with or
; without parameters): the module's types.
(unary_operator
  operand: (call
    target: (identifier) @_attr
    (arguments [
      (binary_operator left: (call target: (identifier) @name))
      (binary_operator left: (identifier) @name)
    ]))
  (#any-of? @_attr "type" "typep" "opaque")) @definition.type

; A typespec's function head (`@spec in_project(atom, …) :: result`, also
; with a `when` clause) names the function it specifies; it calls nothing.
(unary_operator
  operand: (call
    target: (identifier) @_attr
    (arguments [
      (binary_operator left: (call target: (identifier) @ignore))
      (binary_operator left: (binary_operator left: (call target: (identifier) @ignore)))
    ]))
  (#eq? @_attr "spec"))
