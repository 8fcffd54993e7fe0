; repo-search additions shared by JavaScript, TypeScript and TSX: top-level
; `const`/`let`/`var` bindings that are not functions (the stock query tags
; `const f = () => ...` already) and not `require(...)` imports, and
; constructors (the stock query leaves them out), and export aliases.

((method_definition
   name: (property_identifier) @name) @definition.method
 (#eq? @name "constructor"))

; Private methods (`#notify() {}`) and their calls (`this.#notify()`): the
; stock query tags public names only.
(method_definition
  name: (private_property_identifier) @name) @definition.method

(call_expression
  function: (member_expression
    property: (private_property_identifier) @name)
  arguments: (_) @reference.call)

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

; A method assigned through a chain (`res.set = res.header = function
; header() {}`): the stock query tags the inner target only.
(assignment_expression
  left: (member_expression
    property: (property_identifier) @name)
  right: (assignment_expression
    right: [(arrow_function) (function_expression)])) @definition.function

; A key in CONSTANT_CASE of an object literal (`FST_ERR_DUPLICATED_ROUTE:
; createError(…)` in fastify's table of error codes, action types, enums
; written as objects): a constant the code refers to by that name. Keys of
; one word (`GET`, `OK`) are left out, as are other keys (data).
((pair
   key: (property_identifier) @name
   value: (_)) @definition.constant
 (#match? @name "^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$"))

; A key whose value is a new symbol (`kReplySerializer: Symbol('fastify.reply.serializer')`
; in fastify's `symbols.js`, Node's `kState` tables): a unique token the
; code refers to by that name, whatever its case.
((pair
   key: (property_identifier) @name
   value: (call_expression
     function: (identifier) @_symbol)) @definition.constant
 (#eq? @_symbol "Symbol"))
