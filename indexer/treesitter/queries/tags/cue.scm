; CUE tags: fields and definitions; identifiers as name-only references.
(comment) @comment
(field (label (identifier) @name)) @def.field
(identifier) @ref.read
