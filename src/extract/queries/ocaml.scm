; repo-search's additions to tree-sitter-ocaml's tags query for
; implementations (`.ml`): a module's values (`let
; default_size = 10`; a binding with parameters or a `fun` body is the
; stock query's function, whose pattern comes first and wins).

(compilation_unit (value_definition (let_binding pattern: (value_name) @name) @definition.constant))

(structure (value_definition (let_binding pattern: (value_name) @name) @definition.constant))
