; repo-search's additions to tree-sitter-r's tags query: functions assigned
; with `<<-`, methods written as a call's named argument (`name = function`:
; R6's `public = list(…)`, ggproto objects, as the line heuristic read
; them), classes made by `R6Class`/`setRefClass` or ggplot2's `ggproto`
; (`ScaleContinuous <- ggproto("ScaleContinuous", Scale, …)`) and assigned
; to a name, S4 classes (`setClass("Name", …)`), generics (`setGeneric`) and
; methods (`setMethod("name", …)`), and top-level constants.

(binary_operator
  lhs: (identifier) @name
  operator: "<<-"
  rhs: (function_definition)) @definition.function

(argument
  name: (identifier) @name
  value: (function_definition)) @definition.method

(binary_operator
  lhs: (identifier) @name
  operator: ["<-" "="]
  rhs: (call
    function: [(identifier) @_ctor (namespace_operator rhs: (identifier) @_ctor)])
  (#any-of? @_ctor "R6Class" "setRefClass" "ggproto")) @definition.class

(call
  function: (identifier) @_ctor
  arguments: (arguments . (argument value: (string (string_content) @name)))
  (#any-of? @_ctor "setClass" "setRefClass")) @definition.class

(call
  function: (identifier) @_ctor
  arguments: (arguments . (argument value: (string (string_content) @name)))
  (#eq? @_ctor "setGeneric")) @definition.function

(call
  function: (identifier) @_ctor
  arguments: (arguments . (argument value: (string (string_content) @name)))
  (#eq? @_ctor "setMethod")) @definition.method

(program
  (binary_operator
    lhs: (identifier) @name
    operator: ["<-" "="]
    rhs: [(float) (integer) (string) (true) (false) (null)]) @definition.constant)
