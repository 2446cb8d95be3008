; C# facts for cairn. Capture names are explained in ../doc.go.
(comment) @comment

; the file's (first) namespace, block or file-scoped
(namespace_declaration name: (_) @package)
(file_scoped_namespace_declaration name: (_) @package)
(namespace_declaration name: (qualified_name (identifier) @ref.none))
(namespace_declaration name: (identifier) @ref.none)
(file_scoped_namespace_declaration name: (qualified_name (identifier) @ref.none))
(file_scoped_namespace_declaration name: (identifier) @ref.none)

; ---- imports: using A.B; (a namespace: module only); using X = A.B.C;
(using_directive !name [(identifier) (qualified_name)] @import.module) @import
(using_directive name: (identifier) @import.alias (qualified_name qualifier: (_) @import.module name: (identifier) @import.name)) @import
(using_directive (qualified_name (identifier) @ref.none))
(using_directive (identifier) @ref.none)
(using_directive (qualified_name (qualified_name (identifier) @ref.none)))

; ---- definitions (earlier patterns win when several match one definition)
(class_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(struct_declaration name: (identifier) @name) @def.struct
(interface_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(enum_member_declaration name: (identifier) @name) @def.enum_member
(delegate_declaration name: (identifier) @name) @def.type
; base lists: the first entry of a class may be its base class; which is
; an interface is known only by resolution (the I prefix is a convention),
; so all are "implements" except a class's first
(class_declaration (base_list . [(identifier) (qualified_name) (generic_name)] @extends))
(class_declaration (base_list (_) . [(identifier) (qualified_name) (generic_name)] @implements))
(record_declaration (base_list [(identifier) (qualified_name) (generic_name) (primary_constructor_base_type)] @extends))
(struct_declaration (base_list [(identifier) (qualified_name) (generic_name)] @implements))
(interface_declaration (base_list [(identifier) (qualified_name) (generic_name)] @extends))

(method_declaration returns: (_) @type name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.constructor
(destructor_declaration name: (identifier) @name) @def.method
(property_declaration type: (_) @type name: (identifier) @name) @def.property
(event_declaration type: (_) @type name: (identifier) @name) @def.property
((field_declaration (modifier) @_c (variable_declaration type: (_) @type (variable_declarator name: (identifier) @name))) @def.constant
  (#eq? @_c "const"))
(field_declaration (variable_declaration type: (_) @type (variable_declarator name: (identifier) @name))) @def.field
(event_field_declaration (variable_declaration type: (_) @type (variable_declarator name: (identifier) @name))) @def.field
; record positional parameters are properties
(record_declaration (parameter_list (parameter type: (_) @type name: (identifier) @name) @def.property))

; ---- local type bindings
(parameter type: (_) @binding.type name: (identifier) @binding.name) @binding
(local_declaration_statement (variable_declaration type: (_) @binding.type (variable_declarator name: (identifier) @binding.name)) @binding
  (#not-match? @binding.type "^var$"))
(local_declaration_statement (variable_declaration type: (implicit_type)
  (variable_declarator name: (identifier) @binding.name (object_creation_expression type: (_) @binding.type))) @binding)
(local_declaration_statement (variable_declaration type: (implicit_type) (variable_declarator name: (identifier) @binding.name)) @binding)
(using_statement (variable_declaration type: (_) @binding.type (variable_declarator name: (identifier) @binding.name)) @binding)
(foreach_statement type: (_) @binding.type left: (identifier) @binding.name) @binding
(catch_declaration type: (_) @binding.type name: (identifier) @binding.name) @binding

; ---- calls
(invocation_expression function: (identifier) @ref.call)
(invocation_expression function: (generic_name (identifier) @ref.call))
(invocation_expression function: (member_access_expression expression: _ @qual name: [(identifier) @ref.call (generic_name (identifier) @ref.call)]))
(invocation_expression function: (conditional_access_expression (member_binding_expression name: (identifier) @ref.call)))
(object_creation_expression type: [(identifier) @ref.call (generic_name (identifier) @ref.call) (qualified_name name: (identifier) @ref.call)])

; ---- writes: = is a write, compound operators (+=, ??=, ++) read and write
((assignment_expression left: (identifier) @ref.write operator: _ @_op) (#eq? @_op "="))
((assignment_expression left: (member_access_expression expression: _ @qual name: (identifier) @ref.write) operator: _ @_op) (#eq? @_op "="))
((assignment_expression left: (identifier) @ref.rw operator: _ @_op) (#not-eq? @_op "="))
((assignment_expression left: (member_access_expression expression: _ @qual name: (identifier) @ref.rw) operator: _ @_op) (#not-eq? @_op "="))
(assignment_expression left: (element_access_expression expression: (identifier) @ref.rw))
(assignment_expression left: (element_access_expression expression: (member_access_expression expression: _ @qual name: (identifier) @ref.rw)))
(postfix_unary_expression [(identifier) @ref.rw (member_access_expression expression: _ @qual name: (identifier) @ref.rw)])
(prefix_unary_expression [(identifier) @ref.rw (member_access_expression expression: _ @qual name: (identifier) @ref.rw)])
(variable_declarator name: (identifier) @ref.write (_))
; object initializers: new Account { Balance = 1 } writes Balance
(object_creation_expression type: (_) @qual
  initializer: (initializer_expression (assignment_expression left: (identifier) @ref.write)))
(initializer_expression (assignment_expression left: (identifier) @ref.write))

; ---- type uses (a qualified type's last name; its qualifier is read)
(attribute name: [(identifier) @ref.type (qualified_name name: (identifier) @ref.type)])
(base_list [(identifier) @ref.type (generic_name (identifier) @ref.type) (qualified_name name: (identifier) @ref.type)])
(generic_name (identifier) @ref.type)
(type_parameter name: (identifier) @ref.none)
(parameter type: [(identifier) @ref.type (qualified_name name: (identifier) @ref.type)])
(variable_declaration type: [(identifier) @ref.type (qualified_name name: (identifier) @ref.type)])
(property_declaration type: [(identifier) @ref.type (qualified_name name: (identifier) @ref.type)])
(method_declaration returns: [(identifier) @ref.type (qualified_name name: (identifier) @ref.type)])
(type_argument_list [(identifier) @ref.type (qualified_name name: (identifier) @ref.type)])
(nullable_type [(identifier) @ref.type (qualified_name name: (identifier) @ref.type)])
(array_type [(identifier) @ref.type (qualified_name name: (identifier) @ref.type)])
(typeof_expression [(identifier) @ref.type (qualified_name name: (identifier) @ref.type)])
(cast_expression type: [(identifier) @ref.type (qualified_name name: (identifier) @ref.type)])
(is_pattern_expression [(identifier) @ref.type (qualified_name name: (identifier) @ref.type)])
(declaration_pattern type: [(identifier) @ref.type (qualified_name name: (identifier) @ref.type)])
(catch_declaration type: [(identifier) @ref.type (qualified_name name: (identifier) @ref.type)])
(object_creation_expression type: (qualified_name qualifier: (_) @qual))

; ---- reads (generic)
(member_access_expression expression: _ @qual name: (identifier) @ref.read)
(identifier) @ref.read
