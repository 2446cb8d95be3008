; HCL (Terraform) tags: blocks by their last label (resource "aws_s3_bucket" "logs"
; defines logs), variables and outputs; variable references as name-only references.
(comment) @comment
(block (identifier) (string_lit (template_literal) @name) . (block_start)) @def.module
(block (identifier) @name . (block_start)) @def.module
(attribute (identifier) @name) @def.field
(variable_expr (identifier) @ref.read)
(get_attr (identifier) @ref.read)
