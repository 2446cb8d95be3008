; Go facts for cairn. Capture names are explained in ../doc.go.
(comment) @comment

(package_clause (package_identifier) @package)

; ---- imports
(import_spec name: (_)? @import.alias path: (_) @import.module) @import

; ---- definitions
(function_declaration
  name: (identifier) @name
  result: (_)? @type) @def.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @receiver
        (pointer_type (type_identifier) @receiver)
        (generic_type type: (type_identifier) @receiver)
        (pointer_type (generic_type type: (type_identifier) @receiver))
      ]))
  name: (field_identifier) @name
  result: (_)? @type) @def.method

(type_spec name: (type_identifier) @name type: (struct_type)) @def.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @def.interface
(type_spec name: (type_identifier) @name type: (_) @type) @def.type
(type_alias name: (type_identifier) @name type: (_) @type) @def.type

(field_declaration name: (field_identifier) @name type: (_) @type) @def.field
(method_elem name: (field_identifier) @name result: (_)? @type) @def.method

; embedded struct fields and embedded interfaces are supertypes
(field_declaration_list
  (field_declaration !name type: [
    (type_identifier) (qualified_type) (generic_type)
    (pointer_type (type_identifier)) (pointer_type (qualified_type))
  ] @extends))
(interface_type (type_elem [(type_identifier) (qualified_type) (generic_type)] @extends))

(source_file (const_declaration (const_spec name: (identifier) @name type: (_)? @type) @def.constant))
(source_file (var_declaration (var_spec name: (identifier) @name type: (_)? @type) @def.variable))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name type: (_)? @type) @def.variable)))

; ---- local type bindings (for receiver resolution)
(parameter_declaration name: (identifier) @binding.name type: (_) @binding.type) @binding
(variadic_parameter_declaration name: (identifier) @binding.name type: (_) @binding.type) @binding
(var_spec name: (identifier) @binding.name type: (_) @binding.type) @binding
(short_var_declaration
  left: (expression_list . (identifier) @binding.name)
  right: (expression_list . (call_expression function: (_) @binding.ctor))) @binding
(short_var_declaration
  left: (expression_list . (identifier) @binding.name)
  right: (expression_list . [
    (composite_literal type: (_) @binding.type)
    (unary_expression operand: (composite_literal type: (_) @binding.type))
  ])) @binding
(var_spec
  name: (identifier) @binding.name
  value: (expression_list . (call_expression function: (_) @binding.ctor))) @binding
; every other local declaration, untyped (it still shadows package names)
(short_var_declaration left: (expression_list (identifier) @binding.name)) @binding
(range_clause left: (expression_list (identifier) @binding.name)) @binding
(var_spec name: (identifier) @binding.name) @binding

; ---- calls
(call_expression function: (identifier) @ref.call)
(call_expression function: (selector_expression operand: (_) @qual field: (field_identifier) @ref.call))

; ---- writes: assignment targets, ++/--, compound assignment, literal fields
(assignment_statement left: (expression_list (identifier) @ref.write))
(assignment_statement left: (expression_list (selector_expression operand: (_) @qual field: (field_identifier) @ref.write)))
(assignment_statement left: (expression_list (index_expression operand: (identifier) @ref.write)))
(assignment_statement left: (expression_list (index_expression operand: (selector_expression operand: (_) @qual field: (field_identifier) @ref.write))))
(assignment_statement
  left: (expression_list (selector_expression operand: (_) @qual field: (field_identifier) @ref.rw))
  operator: ["+=" "-=" "*=" "/=" "%=" "&=" "|=" "^=" "<<=" ">>=" "&^="])
(assignment_statement
  left: (expression_list (identifier) @ref.rw)
  operator: ["+=" "-=" "*=" "/=" "%=" "&=" "|=" "^=" "<<=" ">>=" "&^="])
(short_var_declaration left: (expression_list (identifier) @ref.write))
(inc_statement [(identifier) @ref.rw (selector_expression operand: (_) @qual field: (field_identifier) @ref.rw)])
(dec_statement [(identifier) @ref.rw (selector_expression operand: (_) @qual field: (field_identifier) @ref.rw)])
(composite_literal
  type: (_) @qual
  body: (literal_value (keyed_element . (literal_element (identifier) @ref.write))))

; ---- type uses
(qualified_type package: (package_identifier) @qual name: (type_identifier) @ref.type)
(type_identifier) @ref.type

; ---- reads (generic: only where nothing above applies)
(selector_expression operand: (_) @qual field: (field_identifier) @ref.read)
(identifier) @ref.read
