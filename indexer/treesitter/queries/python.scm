; Python facts for cairn. Capture names are explained in ../doc.go.
(comment) @comment

; ---- imports
(import_statement name: (dotted_name) @import.module) @import
(import_statement name: (aliased_import name: (dotted_name) @import.module alias: (identifier) @import.alias)) @import
(import_from_statement module_name: (_) @import.module name: (dotted_name) @import.name) @import
(import_from_statement module_name: (_) @import.module name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias)) @import
(import_from_statement module_name: (_) @import.module (wildcard_import) @import.name) @import
(import_from_statement name: (dotted_name (identifier) @ref.import))
(import_from_statement name: (aliased_import name: (dotted_name (identifier) @ref.import)))

; ---- definitions (earlier patterns win when several match one definition)
(class_definition
  body: (block (function_definition name: (identifier) @name return_type: (_)? @type) @def.method))
(class_definition
  body: (block (decorated_definition definition: (function_definition name: (identifier) @name return_type: (_)? @type) @def.method)))
(function_definition name: (identifier) @name return_type: (_)? @type) @def.function
(class_definition name: (identifier) @name) @def.class
(class_definition superclasses: (argument_list [(identifier) (attribute)] @extends))

; class attributes, and instance attributes assigned in __init__
(class_definition
  body: (block (expression_statement (assignment left: (identifier) @name type: (_)? @type) @def.field)))
(function_definition
  name: (identifier) @_init (#eq? @_init "__init__")
  body: (block (expression_statement
    (assignment
      left: (attribute object: (identifier) @_self attribute: (identifier) @name)
      type: (_)? @type) @def.field))
  (#eq? @_self "self"))

; module-level variables
(module (expression_statement (assignment left: (identifier) @name type: (_)? @type) @def.variable))
(module (expression_statement (assignment left: (pattern_list (identifier) @name)) @def.variable))

; ---- local type bindings
(typed_parameter (identifier) @binding.name type: (_) @binding.type) @binding
(typed_default_parameter name: (identifier) @binding.name type: (_) @binding.type) @binding
(parameters (identifier) @binding.name) @binding
(default_parameter name: (identifier) @binding.name) @binding
(lambda_parameters (identifier) @binding.name) @binding
(assignment left: (identifier) @binding.name type: (_) @binding.type) @binding
(assignment left: (identifier) @binding.name right: (call function: (_) @binding.ctor)) @binding

; ---- calls
(call function: (identifier) @ref.call)
(call function: (attribute object: (_) @qual attribute: (identifier) @ref.call))
(decorator (identifier) @ref.call)
(decorator (attribute object: (_) @qual attribute: (identifier) @ref.call))

; ---- writes
(assignment left: (identifier) @ref.write)
(assignment left: (attribute object: (_) @qual attribute: (identifier) @ref.write))
(assignment left: (pattern_list (identifier) @ref.write))
(assignment left: (tuple_pattern (identifier) @ref.write))
(assignment left: (pattern_list (attribute object: (_) @qual attribute: (identifier) @ref.write)))
(assignment left: (tuple_pattern (attribute object: (_) @qual attribute: (identifier) @ref.write)))
(assignment left: (list_pattern (identifier) @ref.write))
(assignment left: (list_pattern (attribute object: (_) @qual attribute: (identifier) @ref.write)))
(assignment left: (subscript value: (identifier) @ref.write))
(assignment left: (subscript value: (attribute object: (_) @qual attribute: (identifier) @ref.write)))
(augmented_assignment left: (identifier) @ref.rw)
(augmented_assignment left: (attribute object: (_) @qual attribute: (identifier) @ref.rw))
(augmented_assignment left: (subscript value: (identifier) @ref.rw))
(augmented_assignment left: (subscript value: (attribute object: (_) @qual attribute: (identifier) @ref.rw)))
(delete_statement (attribute object: (_) @qual attribute: (identifier) @ref.write))
(for_statement left: (identifier) @ref.write)
(for_statement left: (pattern_list (identifier) @ref.write))
; keyword arguments bind a parameter of the callee: not a write, unless the
; resolver finds the callee is a class whose field they name (Task(url=u))
(call function: (_) @qual arguments: (argument_list (keyword_argument name: (identifier) @ref.argument)))

; ---- type uses
(type (identifier) @ref.type)
(type (attribute object: (_) @qual attribute: (identifier) @ref.type))
(type (generic_type (identifier) @ref.type))
(type (subscript value: (identifier) @ref.type))
(class_definition superclasses: (argument_list (identifier) @ref.type))

; ---- reads (generic)
(attribute object: (_) @qual attribute: (identifier) @ref.read)
(identifier) @ref.read
