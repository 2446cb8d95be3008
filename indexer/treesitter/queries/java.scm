; Java facts for cairn. Capture names are explained in ../doc.go.
[(line_comment) (block_comment)] @comment

(package_declaration [(scoped_identifier) (identifier)] @package)

; ---- imports: module = the package part, name = the last identifier or "*"
(import_declaration
  (scoped_identifier scope: (_) @import.module name: (identifier) @import.name) .) @import
(import_declaration (_) @import.module . (asterisk) @import.name) @import
(import_declaration (scoped_identifier name: (identifier) @ref.import) .)

; ---- definitions (earlier patterns win when several match one definition)
(class_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(annotation_type_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(enum_constant name: (identifier) @name) @def.enum_member

(method_declaration type: (_) @type name: (identifier) @name) @def.method
(annotation_type_element_declaration type: (_) @type name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.constructor
(compact_constructor_declaration name: (identifier) @name) @def.constructor

(field_declaration type: (_) @type declarator: (variable_declarator name: (identifier) @name)) @def.field
(constant_declaration type: (_) @type declarator: (variable_declarator name: (identifier) @name)) @def.constant
; record components are fields of the record
(record_declaration
  parameters: (formal_parameters (formal_parameter type: (_) @type name: (identifier) @name) @def.field))

; supertypes attach to the type declaration around them
(superclass (_) @extends)
(super_interfaces (type_list (_) @implements))
(extends_interfaces (type_list (_) @extends))

; ---- local type bindings
; (record components are fields, not locals)
(method_declaration
  parameters: (formal_parameters (formal_parameter type: (_) @binding.type name: (identifier) @binding.name) @binding))
(constructor_declaration
  parameters: (formal_parameters (formal_parameter type: (_) @binding.type name: (identifier) @binding.name) @binding))
(lambda_expression
  parameters: (formal_parameters (formal_parameter type: (_) @binding.type name: (identifier) @binding.name) @binding))
(spread_parameter (_) @binding.type (variable_declarator name: (identifier) @binding.name)) @binding
(catch_formal_parameter (catch_type) @binding.type name: (identifier) @binding.name) @binding
(enhanced_for_statement type: (_) @binding.type name: (identifier) @binding.name) @binding
((local_variable_declaration
  type: (_) @binding.type
  declarator: (variable_declarator name: (identifier) @binding.name)) @binding
  (#not-eq? @binding.type "var"))
((local_variable_declaration
  type: (type_identifier) @_var
  declarator: (variable_declarator
    name: (identifier) @binding.name
    value: (object_creation_expression type: (_) @binding.type))) @binding
  (#eq? @_var "var"))

; ---- calls
(method_invocation object: (_) @qual name: (identifier) @ref.call)
(method_invocation !object name: (identifier) @ref.call)
(object_creation_expression type: [
  (type_identifier) @ref.call
  (generic_type (type_identifier) @ref.call)
  (scoped_type_identifier (type_identifier) @ref.call .)
  (generic_type (scoped_type_identifier (type_identifier) @ref.call .))
])

; ---- writes: assignment targets, ++/--, compound assignment
(assignment_expression left: (identifier) @ref.write operator: "=")
(assignment_expression left: (field_access object: (_) @qual field: (identifier) @ref.write) operator: "=")
(assignment_expression left: (array_access array: (identifier) @ref.write))
(assignment_expression left: (array_access array: (field_access object: (_) @qual field: (identifier) @ref.write)))
(assignment_expression
  left: (identifier) @ref.rw
  operator: ["+=" "-=" "*=" "/=" "%=" "&=" "|=" "^=" "<<=" ">>=" ">>>="])
(assignment_expression
  left: (field_access object: (_) @qual field: (identifier) @ref.rw)
  operator: ["+=" "-=" "*=" "/=" "%=" "&=" "|=" "^=" "<<=" ">>=" ">>>="])
(update_expression [(identifier) @ref.rw (field_access object: (_) @qual field: (identifier) @ref.rw)])
(local_variable_declaration declarator: (variable_declarator name: (identifier) @ref.write value: (_)))
(enhanced_for_statement name: (identifier) @ref.write)

; ---- type uses
(scoped_type_identifier (_) @qual . (type_identifier) @ref.type .)
(marker_annotation name: (identifier) @ref.type)
(annotation name: (identifier) @ref.type)
((type_identifier) @ref.type (#not-eq? @ref.type "var"))

; ---- reads (generic: only where nothing above applies)
(field_access object: (_) @qual field: (identifier) @ref.read)
(identifier) @ref.read
