; PHP facts for cairn. Capture names are explained in ../doc.go.
; Variables are named without their "$" (the query captures the name
; inside variable_name), so $this->balance and $balance share a spelling.
(comment) @comment

(namespace_definition name: (namespace_name) @package)
(namespace_definition name: (namespace_name (name) @ref.none))

; ---- imports: use A\B\C; use A\B\{C, D as E}; module = the namespace,
; name = the last segment
(namespace_use_declaration
  (namespace_use_clause (qualified_name (namespace_name_as_prefix) @import.module (name) @import.name) .)) @import
(namespace_use_declaration
  (namespace_use_clause (qualified_name (namespace_name_as_prefix) @import.module (name) @import.name)
    (namespace_aliasing_clause (name) @import.alias))) @import
(namespace_use_declaration
  (namespace_name) @import.module
  (namespace_use_group (namespace_use_group_clause (namespace_name (name) @import.name .) .))) @import
(namespace_use_declaration
  (namespace_name) @import.module
  (namespace_use_group (namespace_use_group_clause (namespace_name (name) @import.name .)
    (namespace_aliasing_clause (name) @import.alias)))) @import
(namespace_use_clause (qualified_name (name) @ref.import))
(namespace_use_clause (qualified_name (namespace_name_as_prefix (namespace_name (name) @ref.none))))
(namespace_use_declaration (namespace_name (name) @ref.none))
(namespace_use_group_clause (namespace_name (name) @ref.import .))
(namespace_aliasing_clause (name) @ref.none)
; require/include of a file
((include_expression (string (string_content) @import.module)) @import)
((require_once_expression (string (string_content) @import.module)) @import)
((require_expression (string (string_content) @import.module)) @import)
((include_once_expression (string (string_content) @import.module)) @import)

; ---- definitions (earlier patterns win when several match one definition)
(class_declaration name: (name) @name) @def.class
(interface_declaration name: (name) @name) @def.interface
(trait_declaration name: (name) @name) @def.trait
(enum_declaration name: (name) @name) @def.enum
(enum_case name: (name) @name) @def.enum_member
(base_clause [(name) (qualified_name)] @extends)
(class_interface_clause [(name) (qualified_name)] @implements)
; trait use inside a class body
(declaration_list (use_declaration [(name) (qualified_name)] @implements))

(method_declaration name: (name) @name return_type: (_)? @type) @def.method
(function_definition name: (name) @name return_type: (_)? @type) @def.function
(property_declaration type: (_)? @type (property_element (variable_name (name) @name))) @def.property
; constructor promotion: __construct(private Store $store)
(method_declaration
  parameters: (formal_parameters (property_promotion_parameter type: (_)? @type name: (variable_name (name) @name)) @def.property))
(const_declaration (const_element (name) @name)) @def.constant

; ---- local type bindings
(simple_parameter type: (_) @binding.type name: (variable_name (name) @binding.name)) @binding
(simple_parameter !type name: (variable_name (name) @binding.name)) @binding
(variadic_parameter name: (variable_name (name) @binding.name)) @binding
(property_promotion_parameter name: (variable_name (name) @binding.name)) @binding
(assignment_expression left: (variable_name (name) @binding.name)
  right: (object_creation_expression [(name) (qualified_name)] @binding.type)) @binding
(assignment_expression left: (variable_name (name) @binding.name)) @binding
(foreach_statement (pair (variable_name (name) @binding.name))) @binding
(foreach_statement (_) . (variable_name (name) @binding.name)) @binding
(catch_clause type: (_) @binding.type name: (variable_name (name) @binding.name)) @binding

; ---- calls
(function_call_expression function: (name) @ref.call)
(function_call_expression function: (qualified_name (name) @ref.call .))
(member_call_expression object: (_) @qual name: (name) @ref.call)
(nullsafe_member_call_expression object: (_) @qual name: (name) @ref.call)
(scoped_call_expression scope: (_) @qual name: (name) @ref.call)
(object_creation_expression [(name) @ref.call (qualified_name (name) @ref.call .)])

; ---- writes
(assignment_expression left: (variable_name (name) @ref.write))
(assignment_expression left: (member_access_expression object: (_) @qual name: (name) @ref.write))
(assignment_expression left: (scoped_property_access_expression scope: (_) @qual name: (variable_name (name) @ref.write)))
(assignment_expression left: (subscript_expression (variable_name (name) @ref.rw)))
(assignment_expression left: (subscript_expression (member_access_expression object: (_) @qual name: (name) @ref.rw)))
(augmented_assignment_expression left: (variable_name (name) @ref.rw))
(augmented_assignment_expression left: (member_access_expression object: (_) @qual name: (name) @ref.rw))
(augmented_assignment_expression left: (scoped_property_access_expression scope: (_) @qual name: (variable_name (name) @ref.rw)))
(update_expression (variable_name (name) @ref.rw))
(update_expression (member_access_expression object: (_) @qual name: (name) @ref.rw))

; ---- type uses
(named_type [(name) @ref.type (qualified_name (name) @ref.type .)])
(base_clause [(name) @ref.type (qualified_name (name) @ref.type .)])
(class_interface_clause [(name) @ref.type (qualified_name (name) @ref.type .)])
(use_declaration [(name) @ref.type (qualified_name (name) @ref.type .)])
(class_constant_access_expression . [(name) @ref.type (qualified_name (name) @ref.type .)])
(scoped_call_expression scope: [(name) @ref.type (qualified_name (name) @ref.type .)])
(attribute [(name) @ref.type (qualified_name (name) @ref.type .)])

; a controller action named in a route: [AccountController::class, 'index']
(array_creation_expression
  (array_element_initializer (class_constant_access_expression . [(name) (qualified_name)] @qual))
  .
  (array_element_initializer (string (string_content) @ref.read)))

; ---- reads (generic)
(member_access_expression object: (_) @qual name: (name) @ref.read)
(nullsafe_member_access_expression object: (_) @qual name: (name) @ref.read)
(scoped_property_access_expression scope: (_) @qual name: (variable_name (name) @ref.read))
(class_constant_access_expression (_) @qual (name) @ref.read .)
(variable_name (name) @ref.read)
(name) @ref.read
