; repo-search's additions to tree-sitter-ocaml's tags query for interfaces
; (`.mli`, the grammar's interface dialect): `val` declarations (the
; stock query's exceptions are constructors, constants here).

(value_specification (value_name) @name) @definition.function
