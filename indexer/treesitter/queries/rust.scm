; Rust facts for cairn. Capture names are explained in ../doc.go.
[(line_comment) (block_comment)] @comment

; ---- imports: module = the path, name = the last segment, alias for `as`
(use_declaration argument: (identifier) @import.module) @import
(use_declaration
  argument: (scoped_identifier path: (_) @import.module name: (identifier) @import.name)) @import
(use_declaration
  argument: (use_as_clause
    path: (scoped_identifier path: (_) @import.module name: (identifier) @import.name)
    alias: (identifier) @import.alias)) @import
(use_declaration
  argument: (use_as_clause path: (identifier) @import.module alias: (identifier) @import.alias)) @import
(use_declaration argument: (use_wildcard (_) @import.module "*" @import.name)) @import
; use a::{B, self, C as D}: every listed name is one import; `self` imports the module
(use_declaration
  argument: (scoped_use_list path: (_) @import.module list: (use_list (identifier) @import.name))) @import
(use_declaration
  argument: (scoped_use_list path: (_) @import.module list: (use_list (self)))) @import
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.module
    list: (use_list (use_as_clause path: (identifier) @import.name alias: (identifier) @import.alias)))) @import
(use_declaration argument: (scoped_identifier name: (identifier) @ref.import))
(use_declaration argument: (use_as_clause path: (scoped_identifier name: (identifier) @ref.import)))
(use_declaration argument: (scoped_use_list list: (use_list (identifier) @ref.import)))
(use_declaration argument: (scoped_use_list list: (use_list (use_as_clause path: (identifier) @ref.import))))

; ---- definitions (earlier patterns win when several match one definition)
; impl blocks are scopes: their functions are methods of the implemented type.
; The trait of `impl Trait for Type` is captured as @implements, but a scope
; is not a symbol, so the extractor cannot attach it to Type yet.
(impl_item trait: (_) @implements type: (_) @name) @scope
(impl_item !trait type: (_) @name) @scope
(impl_item body: (declaration_list (function_item name: (identifier) @name return_type: (_)? @type) @def.method))
(trait_item body: (declaration_list (function_item name: (identifier) @name return_type: (_)? @type) @def.method))
(trait_item body: (declaration_list (function_signature_item name: (identifier) @name return_type: (_)? @type) @def.method))
(function_item name: (identifier) @name return_type: (_)? @type) @def.function
(function_signature_item name: (identifier) @name return_type: (_)? @type) @def.function

(struct_item name: (type_identifier) @name) @def.struct
(union_item name: (type_identifier) @name) @def.union
(enum_item name: (type_identifier) @name) @def.enum
(enum_variant name: (identifier) @name) @def.enum_member
(trait_item name: (type_identifier) @name) @def.trait
(trait_item bounds: (trait_bounds [(type_identifier) (scoped_type_identifier) (generic_type)] @extends))
(type_item name: (type_identifier) @name type: (_) @type) @def.type
(associated_type name: (type_identifier) @name) @def.type
(const_item name: (identifier) @name type: (_) @type) @def.constant
(static_item name: (identifier) @name type: (_) @type) @def.variable
(mod_item name: (identifier) @name) @def.module
(macro_definition name: (identifier) @name) @def.macro
(field_declaration_list (field_declaration name: (field_identifier) @name type: (_) @type) @def.field)

; ---- local type bindings (self parameters are skipped)
(parameter pattern: (identifier) @binding.name type: (_) @binding.type) @binding
(let_declaration pattern: (identifier) @binding.name type: (_) @binding.type) @binding
(let_declaration
  pattern: (identifier) @binding.name
  !type
  value: (call_expression function: [(identifier) (scoped_identifier) (field_expression)] @binding.ctor)) @binding
(let_declaration
  pattern: (identifier) @binding.name
  !type
  value: (call_expression function: (generic_function function: (_) @binding.ctor))) @binding
(let_declaration
  pattern: (identifier) @binding.name
  !type
  value: (struct_expression name: (_) @binding.type)) @binding
(let_declaration
  pattern: (identifier) @binding.name
  !type
  value: (reference_expression value: (struct_expression name: (_) @binding.type))) @binding

; ---- calls
(call_expression function: (identifier) @ref.call)
(call_expression function: (field_expression value: (_) @qual field: (field_identifier) @ref.call))
(call_expression function: (scoped_identifier path: (_) @qual name: (identifier) @ref.call))
(call_expression function: (generic_function function: (identifier) @ref.call))
(call_expression function: (generic_function function: (field_expression value: (_) @qual field: (field_identifier) @ref.call)))
(call_expression function: (generic_function function: (scoped_identifier path: (_) @qual name: (identifier) @ref.call)))
(macro_invocation macro: (identifier) @ref.call)
(macro_invocation macro: (scoped_identifier path: (_) @qual name: (identifier) @ref.call))

; ---- writes: assignment targets, compound assignment, struct literal fields
(assignment_expression left: (identifier) @ref.write)
(assignment_expression left: (field_expression value: (_) @qual field: (field_identifier) @ref.write))
(assignment_expression left: (index_expression . (identifier) @ref.write))
(assignment_expression left: (index_expression . (field_expression value: (_) @qual field: (field_identifier) @ref.write)))
(compound_assignment_expr left: (identifier) @ref.rw)
(compound_assignment_expr left: (field_expression value: (_) @qual field: (field_identifier) @ref.rw))
(compound_assignment_expr left: (index_expression . (identifier) @ref.rw))
(compound_assignment_expr left: (index_expression . (field_expression value: (_) @qual field: (field_identifier) @ref.rw)))
(let_declaration pattern: (identifier) @ref.write value: (_))
(struct_expression
  name: (_) @qual
  body: (field_initializer_list [
    (field_initializer field: (field_identifier) @ref.write)
    (shorthand_field_initializer (identifier) @ref.write)
  ]))

; ---- type uses
(scoped_type_identifier path: (_) @qual name: (type_identifier) @ref.type)
(attribute (identifier) @_derive arguments: (token_tree (identifier) @ref.type) (#eq? @_derive "derive"))
(type_identifier) @ref.type

; ---- reads (generic: only where nothing above applies)
(field_expression value: (_) @qual field: (field_identifier) @ref.read)
(scoped_identifier path: (_) @qual name: (identifier) @ref.read)
(identifier) @ref.read
