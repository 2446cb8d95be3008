; Elm tags: functions, types, type aliases, constructors; names as name-only references.
[(line_comment) (block_comment)] @comment
(value_declaration (function_declaration_left (lower_case_identifier) @name)) @def.function
(type_declaration (upper_case_identifier) @name) @def.type
(type_alias_declaration (upper_case_identifier) @name) @def.type
(union_variant (upper_case_identifier) @name) @def.enum_member
(value_qid (lower_case_identifier) @ref.read)
(upper_case_qid (upper_case_identifier) @ref.type)
