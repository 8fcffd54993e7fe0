; repo-search additions to tree-sitter-elixir's tags query: protocol
; implementations and structs.

(call
  target: (identifier) @_kw
  (arguments (alias) @name)
  (#eq? @_kw "defimpl")) @definition.impl
