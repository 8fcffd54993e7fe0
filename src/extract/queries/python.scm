; repo-search additions to tree-sitter-python's tags query. The stock query
; has module-level assignments but no class attributes (Django model fields,
; enum members), no base-class references and no bare decorators.

(class_definition
  body: (block
    (expression_statement
      (assignment left: (identifier) @name) @definition.field)))

(class_definition
  superclasses: (argument_list
    [
      (identifier) @name
      (attribute attribute: (identifier) @name)
    ] @reference.class))

; Decorators without arguments are uses too (`@login_required`); with
; arguments they are calls and the stock query tags them already.
(decorator (identifier) @name) @reference.call

(decorator (attribute attribute: (identifier) @name)) @reference.call
