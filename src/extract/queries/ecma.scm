; repo-search additions shared by JavaScript, TypeScript and TSX: top-level
; `const`/`let`/`var` bindings that are not functions (the stock query tags
; `const f = () => ...` already) and not `require(...)` imports, and
; constructors (the stock query leaves them out), and export aliases.

((method_definition
   name: (property_identifier) @name) @definition.method
 (#eq? @name "constructor"))

((program
   (lexical_declaration
     (variable_declarator
       name: (identifier) @name
       value: (_) @_value) @definition.constant))
 (#not-match? @_value "^require\\s*\\("))

((program
   (export_statement
     declaration: (lexical_declaration
       (variable_declarator
         name: (identifier) @name
         value: (_) @_value) @definition.constant)))
 (#not-match? @_value "^require\\s*\\("))

((program
   (variable_declaration
     (variable_declarator
       name: (identifier) @name
       value: (_) @_value) @definition.variable))
 (#not-match? @_value "^require\\s*\\("))

; `export { stringType as string }`: the exported name is what importers
; write (`z.string()`), an alias of the local binding.
(program
  (export_statement
    (export_clause
      (export_specifier
        name: (_)
        alias: (identifier) @name) @definition.constant)))
