; Dockerfile tags: build stages (FROM … AS name), ARG and ENV names; expansions as name-only references.
(comment) @comment
(from_instruction as: (image_alias) @name) @def.module
(arg_instruction name: (unquoted_string) @name) @def.variable
(env_instruction (env_pair name: (unquoted_string) @name)) @def.variable
(expansion (variable) @ref.read)
