; repo-search additions to tree-sitter-javascript's tags query: class fields.

(field_definition
  property: [(property_identifier) (private_property_identifier)] @name) @definition.field

(class_heritage (identifier) @name) @reference.class

(class_heritage (member_expression property: (property_identifier) @name)) @reference.class
