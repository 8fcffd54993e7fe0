; repo-search's tags query for tree-sitter-haskell (the crate ships none):
; the module, top-level functions, operators and bindings, data types, newtypes,
; synonyms, type families, classes with their methods, instances, data
; constructors (constants, as other languages' enum variants), record
; fields; applications and type names as references. Local `let`/`where`
; bindings are not definitions.

(header module: (module) @name) @definition.module

(declarations (function name: (variable) @name) @definition.function)

(declarations (bind name: (variable) @name) @definition.function)

; Operators: `s ^. l = …` (an infix head), `(^.) s l = …` and `(%~) = over`.
(declarations (function (infix operator: (operator) @name)) @definition.function)

(declarations (function name: (prefix_id (operator) @name)) @definition.function)

(declarations (bind name: (prefix_id (operator) @name)) @definition.function)

(declarations (data_type name: (name) @name) @definition.type)

(declarations (newtype name: (name) @name) @definition.type)

(data_constructor constructor: (prefix name: (constructor) @name)) @definition.constant

(data_constructor constructor: (record name: (constructor) @name)) @definition.constant

(newtype_constructor name: (constructor) @name) @definition.constant

(declarations (type_synonym name: (name) @name) @definition.type)

(declarations (type_family name: (name) @name) @definition.type)

(declarations (class name: (name) @name) @definition.trait)

(class_declarations (signature name: (variable) @name) @definition.method)

(class_declarations (signature name: (prefix_id (operator) @name)) @definition.method)

(declarations (instance name: (name) @name) @definition.impl)

(instance_declarations (function name: (variable) @name) @definition.method)

(field (field_name (variable) @name)) @definition.field

(apply function: (variable) @name) @reference.call

(apply function: (qualified (variable) @name)) @reference.call

(name) @name @reference.type

; A function used point-free as an operand of a combinator (`setextHeader
; <|> atxHeader`, `many1 digit >>= f`, `f . g`): a use as good as a call.
(infix
  left_operand: (variable) @name
  operator: (operator) @_op
  (#any-of? @_op "<|>" "<?>" ">>" ">>=" "=<<" "*>" "<*" "<*>" "<$>" "." "<>" "<$" "$>")) @reference.call

(infix
  operator: (operator) @_op
  right_operand: (variable) @name
  (#any-of? @_op "<|>" "<?>" ">>" ">>=" "=<<" "*>" "<*" "<*>" "<$>" "." "<>" "<$" "$>")) @reference.call
