; Lua tags: functions (M.f and M:m by their last name); calls and identifiers as name-only references.
(comment) @comment
(function_statement name: (identifier) @name) @def.function
(function_statement name: (function_name (identifier) @name .)) @def.function
(function_call prefix: (identifier) @ref.call)
(function_call (identifier) @ref.call . (function_call_paren))
(identifier) @ref.read
