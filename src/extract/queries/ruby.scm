; repo-search additions to tree-sitter-ruby's tags query: constants,
; attribute accessors, alias_method and define_method. The `@local.definition` captures stand in for the
; grammar's locals query, which the stock `(#is-not? local)` relies on: the
; extractor drops bare identifiers that name a local of the same method.

(assignment left: (constant) @name) @definition.constant

((call
   method: (identifier) @_attr
   arguments: (argument_list (simple_symbol) @name)) @definition.field
 (#match? @_attr "^attr_(reader|writer|accessor)$"))

; `alias_method :key?, :include?` and `define_method(:name) { … }` define
; methods named by their first symbol.
((call
   method: (identifier) @_def
   arguments: (argument_list . (simple_symbol) @name)) @definition.method
 (#match? @_def "^(alias_method|define_method)$"))

(assignment left: (identifier) @local.definition)
(operator_assignment left: (identifier) @local.definition)
(left_assignment_list (identifier) @local.definition)
(rest_assignment (identifier) @local.definition)
(destructured_left_assignment (identifier) @local.definition)
(method_parameters (identifier) @local.definition)
(lambda_parameters (identifier) @local.definition)
(block_parameters (identifier) @local.definition)
(destructured_parameter (identifier) @local.definition)
(optional_parameter name: (identifier) @local.definition)
(keyword_parameter name: (identifier) @local.definition)
(splat_parameter name: (identifier) @local.definition)
(hash_splat_parameter name: (identifier) @local.definition)
(block_parameter name: (identifier) @local.definition)
(exception_variable (identifier) @local.definition)
(for pattern: (identifier) @local.definition)
