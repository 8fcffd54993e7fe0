; repo-search's tags query for tree-sitter-objc (the crate ships none),
; appended after C's stock query and our C additions (the grammar extends
; C's): classes and categories (`@interface`, `@implementation`),
; protocols, methods (declared and defined, named by their first selector
; part), properties; message sends and calls as references.

(class_interface . (identifier) @name) @definition.class

(class_implementation . (identifier) @name) @definition.class

(protocol_declaration . (identifier) @name) @definition.interface

(method_declaration . (method_type)? . (identifier) @name) @definition.method

(method_definition . (method_type)? . (identifier) @name) @definition.method

(property_declaration
  (struct_declaration
    (struct_declarator [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
    ]))) @definition.field

(message_expression method: (identifier) @name) @reference.call

(call_expression function: (identifier) @name) @reference.call
