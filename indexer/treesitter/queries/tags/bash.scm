; Shell tags: functions, top-level variables; commands and variables as name-only references.
(comment) @comment
(function_definition name: (word) @name) @def.function
(program (variable_assignment name: (variable_name) @name) @def.variable)
(command name: (command_name (word) @ref.call))
(variable_name) @ref.read
