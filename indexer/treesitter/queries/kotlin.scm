; Kotlin facts for cairn. Capture names are explained in ../doc.go.
; The grammar has no field names: children are matched by type and order.
[(line_comment) (multiline_comment)] @comment

(package_header (identifier) @package)
(package_header (identifier (simple_identifier) @ref.none))

; ---- imports: split into module and name by the spec (kotlinImports)
(import_header) @import
(import_header (identifier (simple_identifier) @ref.import .))
(import_header (identifier (simple_identifier) @ref.none))
(import_alias (type_identifier) @ref.none)

; ---- definitions (earlier patterns win when several match one definition)
(class_declaration "interface" (type_identifier) @name) @def.interface
(class_declaration (modifiers (class_modifier) @_m) (type_identifier) @name (#eq? @_m "annotation")) @def.interface
(class_declaration "enum" (type_identifier) @name) @def.enum
(class_declaration (type_identifier) @name) @def.class
(object_declaration (type_identifier) @name) @def.class
(companion_object (type_identifier) @name) @def.class
(enum_entry (simple_identifier) @name) @def.enum_member
(type_alias (type_identifier) @name . (_) @type) @def.type

; members: functions in a class body are methods; an extension function
; (fun Cart.total()) is a member of its receiver type
(class_body (function_declaration (simple_identifier) @name . (function_value_parameters) . [(user_type) (nullable_type) (function_type)]? @type) @def.method)
(enum_class_body (function_declaration (simple_identifier) @name . (function_value_parameters) . [(user_type) (nullable_type) (function_type)]? @type) @def.method)
(function_declaration . (modifiers)? . (type_parameters)? . (user_type) @receiver . (simple_identifier) @name . (function_value_parameters) . [(user_type) (nullable_type) (function_type)]? @type) @def.method
(function_declaration (simple_identifier) @name . (function_value_parameters) . [(user_type) (nullable_type) (function_type)]? @type) @def.function
(secondary_constructor "constructor" @name) @def.constructor

; properties: in a class body, val/var constructor parameters; top-level
; ones are variables, const ones constants
(class_body (property_declaration (modifiers (property_modifier) @_c) (variable_declaration (simple_identifier) @name (_)? @type)) @def.constant (#eq? @_c "const"))
(class_body (property_declaration (variable_declaration (simple_identifier) @name (_)? @type)) @def.property)
(enum_class_body (property_declaration (variable_declaration (simple_identifier) @name (_)? @type)) @def.property)
(class_parameter (binding_pattern_kind) (simple_identifier) @name . (_) @type) @def.property
(source_file (property_declaration (modifiers (property_modifier) @_c) (variable_declaration (simple_identifier) @name (_)? @type)) @def.constant (#eq? @_c "const"))
(source_file (property_declaration (variable_declaration (simple_identifier) @name (_)? @type)) @def.variable)
(property_declaration (variable_declaration (simple_identifier) @ref.write))

; supertypes: a constructor call names the superclass, a bare type an interface
(delegation_specifier (constructor_invocation (user_type) @extends))
(delegation_specifier . (user_type) @implements)
(delegation_specifier (explicit_delegation . (user_type) @implements))

; ---- local type bindings
(parameter (simple_identifier) @binding.name . (_) @binding.type) @binding
(class_parameter (simple_identifier) @binding.name . (_) @binding.type) @binding
(statements (property_declaration (variable_declaration (simple_identifier) @binding.name . (user_type) @binding.type)) @binding)
(statements (property_declaration (variable_declaration (simple_identifier) @binding.name . (nullable_type) @binding.type)) @binding)
(statements (property_declaration (variable_declaration (simple_identifier) @binding.name .)
  (call_expression (simple_identifier) @binding.ctor)) @binding)
(statements (property_declaration (variable_declaration (simple_identifier) @binding.name)) @binding)
(lambda_parameters (variable_declaration (simple_identifier) @binding.name)) @binding
(for_statement (variable_declaration (simple_identifier) @binding.name)) @binding
(catch_block (simple_identifier) @binding.name . (_) @binding.type) @binding

; ---- calls
(call_expression (simple_identifier) @ref.call)
(call_expression (navigation_expression (_) @qual (navigation_suffix (simple_identifier) @ref.call)))
(constructor_invocation (user_type (type_identifier) @ref.call .))
(delegation_specifier (constructor_invocation (user_type (type_identifier) @ref.type .)))

; ---- writes: assignment targets, ++/--, compound assignment
(assignment (directly_assignable_expression (simple_identifier) @ref.write) "=")
(assignment (directly_assignable_expression (_) @qual (navigation_suffix (simple_identifier) @ref.write)) "=")
(assignment (directly_assignable_expression (simple_identifier) @ref.rw) ["+=" "-=" "*=" "/=" "%="])
(assignment (directly_assignable_expression (_) @qual (navigation_suffix (simple_identifier) @ref.rw)) ["+=" "-=" "*=" "/=" "%="])
(postfix_expression (simple_identifier) @ref.rw ["++" "--"])
(postfix_expression (navigation_expression (_) @qual (navigation_suffix (simple_identifier) @ref.rw)) ["++" "--"])
(prefix_expression ["++" "--"] (simple_identifier) @ref.rw)

; ---- type uses
(user_type (type_identifier) @ref.type)
(annotation (user_type (type_identifier) @ref.type))

; ---- reads (generic: only where nothing above applies)
(navigation_expression (_) @qual (navigation_suffix (simple_identifier) @ref.read))
(simple_identifier) @ref.read
