; repo-search's tags query for tree-sitter-bash (the crate ships none):
; functions (`f() { … }`, `function f { … }`) and the commands a script runs.

(function_definition name: (word) @name) @definition.function

(command name: (command_name (word) @name)) @reference.call
