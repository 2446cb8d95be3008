; Swift facts for cairn. Capture names are explained in ../doc.go.
; class, struct, enum, actor and extension declarations share one node type,
; told apart by their keyword.
[(comment) (multiline_comment)] @comment

; ---- imports: `import Foundation`, `import struct Foo.Bar` (swiftImports)
(import_declaration) @import
(import_declaration (identifier (simple_identifier) @ref.import .))
(import_declaration (identifier (simple_identifier) @ref.none))

; ---- definitions (earlier patterns win when several match one definition)
(class_declaration "struct" name: (type_identifier) @name) @def.struct
(class_declaration "enum" name: (type_identifier) @name) @def.enum
(class_declaration "class" name: (type_identifier) @name) @def.class
(class_declaration "actor" name: (type_identifier) @name) @def.class
(protocol_declaration name: (type_identifier) @name) @def.interface
; an extension's members belong to the extended type
(class_declaration "extension" name: (user_type (type_identifier) @name .)) @scope
(class_declaration "extension" name: (user_type (type_identifier) @name .)
  (inheritance_specifier inherits_from: (_) @implements)) @scope
(enum_entry name: (simple_identifier) @name) @def.enum_member
(typealias_declaration name: (type_identifier) @name) @def.type
(associatedtype_declaration name: (type_identifier) @name) @def.type

(class_body (function_declaration name: (simple_identifier) @name) @def.method)
(enum_class_body (function_declaration name: (simple_identifier) @name) @def.method)
(protocol_body (protocol_function_declaration name: (simple_identifier) @name) @def.method)
(function_declaration name: (simple_identifier) @name) @def.function
(init_declaration "init" @name) @def.constructor
(protocol_body (init_declaration "init" @name) @def.constructor)
(deinit_declaration "deinit" @name) @def.method
(subscript_declaration "subscript" @name) @def.method
; operator functions
(function_declaration name: (custom_operator) @name) @def.function

(class_body (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @def.property)
(class_body (property_declaration name: (pattern bound_identifier: (simple_identifier) @name) (type_annotation (_) @type)) @def.property)
(protocol_body (protocol_property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @def.property)
(source_file (property_declaration (value_binding_pattern) @_let name: (pattern bound_identifier: (simple_identifier) @name)) @def.constant (#eq? @_let "let"))
(source_file (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @def.variable)

; supertypes: Swift does not tell a superclass from a protocol in the
; syntax; all are implements except a class's first, which may be either
(class_declaration "class" name: (type_identifier) . (inheritance_specifier inherits_from: (_) @extends))
(class_declaration "class" (inheritance_specifier) . (inheritance_specifier inherits_from: (_) @implements))
(class_declaration "struct" (inheritance_specifier inherits_from: (_) @implements))
(class_declaration "enum" (inheritance_specifier inherits_from: (_) @implements))
(class_declaration "actor" (inheritance_specifier inherits_from: (_) @implements))
(protocol_declaration (inheritance_specifier inherits_from: (_) @extends))

; ---- local type bindings
(parameter name: (simple_identifier) @binding.name name: (_) @binding.type) @binding
(statements (property_declaration name: (pattern bound_identifier: (simple_identifier) @binding.name)
  (type_annotation (_) @binding.type)) @binding)
(statements (property_declaration name: (pattern bound_identifier: (simple_identifier) @binding.name)
  value: (call_expression (simple_identifier) @binding.ctor)) @binding)
(statements (property_declaration name: (pattern bound_identifier: (simple_identifier) @binding.name)) @binding)
(if_statement bound_identifier: (simple_identifier) @binding.name) @binding
(guard_statement bound_identifier: (simple_identifier) @binding.name) @binding
(for_statement item: (pattern bound_identifier: (simple_identifier) @binding.name)) @binding
(lambda_parameter name: (simple_identifier) @binding.name) @binding
(catch_block error: (pattern bound_identifier: (simple_identifier) @binding.name)) @binding

; ---- calls
(call_expression (simple_identifier) @ref.call)
(call_expression (navigation_expression target: (_) @qual suffix: (navigation_suffix suffix: (simple_identifier) @ref.call)))
(constructor_expression constructed_type: (user_type (type_identifier) @ref.call .))

; ---- writes: assignment targets, compound assignment, inout
(assignment target: (directly_assignable_expression (simple_identifier) @ref.write) operator: "=")
(assignment target: (directly_assignable_expression
  (navigation_expression target: (_) @qual suffix: (navigation_suffix suffix: (simple_identifier) @ref.write))) operator: "=")
(assignment target: (directly_assignable_expression (simple_identifier) @ref.rw) operator: ["+=" "-=" "*=" "/=" "%="])
(assignment target: (directly_assignable_expression
  (navigation_expression target: (_) @qual suffix: (navigation_suffix suffix: (simple_identifier) @ref.rw))) operator: ["+=" "-=" "*=" "/=" "%="])
(property_declaration name: (pattern bound_identifier: (simple_identifier) @ref.write) value: (_))

; argument labels name parameters, not values
(value_argument_label (simple_identifier) @ref.none)
(parameter external_name: (simple_identifier) @ref.none)

; ---- type uses
(user_type (type_identifier) @ref.type)

; ---- reads (generic: only where nothing above applies)
(navigation_expression target: (_) @qual suffix: (navigation_suffix suffix: (simple_identifier) @ref.read))
(simple_identifier) @ref.read
