; Scala facts for cairn. Capture names are explained in ../doc.go.
[(comment) (block_comment)] @comment

(package_clause name: (package_identifier) @package)
(package_clause name: (package_identifier (identifier) @ref.none))

; ---- imports: split into module and name by the spec (scalaImports)
(import_declaration) @import
(import_declaration (identifier) @ref.import .)
(import_declaration (identifier) @ref.none)
(namespace_selectors (identifier) @ref.import)
(namespace_selectors (arrow_renamed_identifier name: (identifier) @ref.import alias: (identifier) @ref.none))

; ---- definitions (earlier patterns win when several match one definition)
(class_definition name: (identifier) @name) @def.class
(object_definition name: (identifier) @name) @def.class
(trait_definition name: (identifier) @name) @def.trait
(enum_definition name: (identifier) @name) @def.enum
(simple_enum_case name: (identifier) @name) @def.enum_member
(full_enum_case name: (identifier) @name) @def.enum_member
(type_definition name: (type_identifier) @name type: (_)? @type) @def.type

(template_body (function_definition name: (identifier) @name return_type: (_)? @type) @def.method)
(template_body (function_declaration name: (identifier) @name return_type: (_)? @type) @def.method)
(function_definition name: (identifier) @name return_type: (_)? @type) @def.function
(function_declaration name: (identifier) @name return_type: (_)? @type) @def.function
; Scala 3 extension methods belong to the extended type
(extension_definition parameters: (parameters (parameter type: (_) @name))) @scope
(extension_definition body: (template_body (function_definition name: (identifier) @name return_type: (_)? @type) @def.method))
(extension_definition body: (function_definition name: (identifier) @name return_type: (_)? @type) @def.method)

(template_body (val_definition pattern: (identifier) @name type: (_)? @type) @def.field)
(template_body (var_definition pattern: (identifier) @name type: (_)? @type) @def.field)
(template_body (val_declaration name: (identifier) @name type: (_)? @type) @def.field)
(template_body (var_declaration name: (identifier) @name type: (_)? @type) @def.field)
(class_parameter name: (identifier) @name type: (_)? @type) @def.field
(compilation_unit (val_definition pattern: (identifier) @name type: (_)? @type) @def.constant)
(compilation_unit (var_definition pattern: (identifier) @name type: (_)? @type) @def.variable)
(package_object name: (identifier) @name) @def.module

; supertypes: the first is the class extended, those after `with` traits
(extends_clause . type: (_) @extends)
(extends_clause "with" . type: (_) @implements)
(derives_clause type: (_) @implements)

; ---- local type bindings
(parameter name: (identifier) @binding.name type: (_) @binding.type) @binding
(block (val_definition pattern: (identifier) @binding.name type: (_) @binding.type) @binding)
(block (var_definition pattern: (identifier) @binding.name type: (_) @binding.type) @binding)
(block (val_definition pattern: (identifier) @binding.name value: (instance_expression (type_identifier) @binding.type)) @binding)
(block (val_definition pattern: (identifier) @binding.name value: (call_expression function: (identifier) @binding.ctor)) @binding)
(block (val_definition pattern: (identifier) @binding.name) @binding)
(block (var_definition pattern: (identifier) @binding.name) @binding)
(lambda_expression parameters: (bindings (binding name: (identifier) @binding.name type: (_)? @binding.type) @binding))
(enumerator (identifier) @binding.name) @binding

; ---- calls
(call_expression function: (identifier) @ref.call)
(call_expression function: (field_expression value: (_) @qual field: (identifier) @ref.call))
(call_expression function: (generic_function function: (identifier) @ref.call))
(call_expression function: (generic_function function: (field_expression value: (_) @qual field: (identifier) @ref.call)))
(instance_expression (type_identifier) @ref.call)
(instance_expression (generic_type type: (type_identifier) @ref.call))
(infix_expression left: (_) @qual operator: (identifier) @ref.call)

; ---- writes: assignment targets, compound assignment
(assignment_expression left: (identifier) @ref.write)
(assignment_expression left: (field_expression value: (_) @qual field: (identifier) @ref.write))
((infix_expression left: (identifier) @ref.rw operator: (operator_identifier) @_op)
  (#match? @_op "^([-+*/%&|^]|<<|>>|\\+\\+|::)=$"))
((infix_expression left: (field_expression value: (_) @qual field: (identifier) @ref.rw) operator: (operator_identifier) @_op)
  (#match? @_op "^([-+*/%&|^]|<<|>>|\\+\\+|::)=$"))
(val_definition pattern: (identifier) @ref.write value: (_))
(var_definition pattern: (identifier) @ref.write value: (_))

; ---- type uses
(stable_type_identifier (_) @qual . (type_identifier) @ref.type .)
(annotation name: (_) @ref.type)
(type_identifier) @ref.type

; ---- reads (generic: only where nothing above applies)
(field_expression value: (_) @qual field: (identifier) @ref.read)
(identifier) @ref.read
