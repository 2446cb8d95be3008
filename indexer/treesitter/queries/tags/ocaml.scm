; OCaml tags: let bindings, types, modules; value paths as name-only references.
(comment) @comment
(let_binding pattern: (value_name) @name) @def.function
(type_binding name: (type_constructor) @name) @def.type
(module_binding (module_name) @name) @def.module
(module_type_definition (module_type_name) @name) @def.interface
(value_specification (value_name) @name) @def.function
(value_path (value_name) @ref.read)
(type_constructor_path (type_constructor) @ref.type)
(module_path (module_name) @ref.read)
