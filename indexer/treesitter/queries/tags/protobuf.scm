; Protocol buffers tags: messages, enums, services, rpcs, fields; type names as name-only references.
(comment) @comment
(message (message_name (identifier) @name)) @def.class
(enum (enum_name (identifier) @name)) @def.enum
(enum_field (identifier) @name) @def.enum_member
(service (service_name (identifier) @name)) @def.interface
(rpc (rpc_name (identifier) @name)) @def.method
(field (identifier) @name) @def.field
(message_or_enum_type (identifier) @ref.type)
