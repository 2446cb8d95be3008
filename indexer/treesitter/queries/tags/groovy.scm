; Groovy tags: classes, methods and functions; calls and identifiers as name-only references.
(comment) @comment
(class_definition name: (identifier) @name) @def.class
(function_definition function: (identifier) @name) @def.function
(function_call function: (identifier) @ref.call)
(function_call function: (dotted_identifier (identifier) @ref.call .))
(identifier) @ref.read
