; repo-search additions to tree-sitter-python's tags query. The stock query
; has module-level assignments but no class attributes (Django model fields,
; enum members) and no base-class references.

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
