; C facts for cairn. Capture names are explained in ../doc.go.
(comment) @comment

; ---- imports: #include "x.h" / <x.h> (the extractor strips the quotes)
(preproc_include path: [(string_literal) (system_lib_string)] @import.module) @import

; ---- definitions (earlier patterns win when several match one definition)
; functions: the name sits in a function_declarator, maybe under pointers
(function_definition
  type: (_) @type
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @def.function
; prototypes
(declaration
  type: (_) @type
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @def.function

; struct/union/enum definitions (with a body; `struct s *p` is a type use)
(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @def.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @def.union
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @def.enum
(enumerator name: (identifier) @name) @def.enum_member

; typedefs: `typedef struct {…} name;` defines the struct itself; for
; `typedef struct tag {…} name;` the tag is the struct and the typedef is
; only its name, so the struct does not nest in it.
(type_definition type: (struct_specifier !name body: (_)) declarator: (type_identifier) @name) @def.struct
(type_definition type: (union_specifier !name body: (_)) declarator: (type_identifier) @name) @def.union
(type_definition type: (enum_specifier !name body: (_)) declarator: (type_identifier) @name) @def.enum
(type_definition
  type: [(struct_specifier name: (_) @type body: (_)) (union_specifier name: (_) @type body: (_)) (enum_specifier name: (_) @type body: (_))]
  declarator: (type_identifier) @name @def.type)
(type_definition
  type: [
    (type_identifier) (primitive_type) (sized_type_specifier)
    (struct_specifier !body) (union_specifier !body) (enum_specifier !body)
  ] @type
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
  ]) @def.type

; struct/union fields
(field_declaration
  type: (_) @type
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (array_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))
  ]) @def.field

; constants: const (or constexpr) globals that are not pointers
((translation_unit (declaration (type_qualifier) @_const type: (_) @type declarator: [
  (init_declarator declarator: (identifier) @name)
  (init_declarator declarator: (array_declarator declarator: (identifier) @name))
]) @def.constant) (#match? @_const "^(const|constexpr)$"))
((preproc_ifdef (declaration (type_qualifier) @_const type: (_) @type declarator: [
  (init_declarator declarator: (identifier) @name)
  (init_declarator declarator: (array_declarator declarator: (identifier) @name))
]) @def.constant) (#match? @_const "^(const|constexpr)$"))
; global variables (file level, or inside #if/#ifdef blocks)
(translation_unit (declaration type: (_) @type declarator: [
  (identifier) @name
  (init_declarator declarator: (identifier) @name)
  (pointer_declarator declarator: (identifier) @name)
  (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
  (array_declarator declarator: (identifier) @name)
  (init_declarator declarator: (array_declarator declarator: (identifier) @name))
]) @def.variable)
(preproc_ifdef (declaration type: (_) @type declarator: [
  (identifier) @name
  (init_declarator declarator: (identifier) @name)
  (pointer_declarator declarator: (identifier) @name)
  (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
  (array_declarator declarator: (identifier) @name)
  (init_declarator declarator: (array_declarator declarator: (identifier) @name))
]) @def.variable)
(preproc_if (declaration type: (_) @type declarator: [
  (identifier) @name
  (init_declarator declarator: (identifier) @name)
  (pointer_declarator declarator: (identifier) @name)
  (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
  (array_declarator declarator: (identifier) @name)
  (init_declarator declarator: (array_declarator declarator: (identifier) @name))
]) @def.variable)

; macros (valueless defines that look like include guards are skipped)
(preproc_def name: (identifier) @name value: (_)) @def.macro
((preproc_def name: (identifier) @name !value) @def.macro
  (#not-match? @name "(_H|_H_|_HPP|_HPP_|_H_INCLUDED|_INCLUDED)$"))
(preproc_function_def name: (identifier) @name) @def.macro

; ---- local type bindings (a struct/union/enum type is bound by its tag)
(preproc_params (identifier) @binding.name) @binding
(parameter_declaration
  type: [(struct_specifier name: (_) @binding.type) (union_specifier name: (_) @binding.type) (enum_specifier name: (_) @binding.type)]
  declarator: [
    (identifier) @binding.name
    (pointer_declarator declarator: (identifier) @binding.name)
    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @binding.name))
    (array_declarator declarator: (identifier) @binding.name)
  ]) @binding
(parameter_declaration
  type: [(type_identifier) (primitive_type) (sized_type_specifier)] @binding.type
  declarator: [
    (identifier) @binding.name
    (pointer_declarator declarator: (identifier) @binding.name)
    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @binding.name))
    (array_declarator declarator: (identifier) @binding.name)
  ]) @binding
(declaration
  type: [(struct_specifier name: (_) @binding.type) (union_specifier name: (_) @binding.type) (enum_specifier name: (_) @binding.type)]
  declarator: [
    (identifier) @binding.name
    (init_declarator declarator: (identifier) @binding.name)
    (pointer_declarator declarator: (identifier) @binding.name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @binding.name))
    (array_declarator declarator: (identifier) @binding.name)
    (init_declarator declarator: (array_declarator declarator: (identifier) @binding.name))
  ]) @binding
(declaration
  type: [(type_identifier) (primitive_type) (sized_type_specifier)] @binding.type
  declarator: [
    (identifier) @binding.name
    (init_declarator declarator: (identifier) @binding.name)
    (pointer_declarator declarator: (identifier) @binding.name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @binding.name))
    (array_declarator declarator: (identifier) @binding.name)
    (init_declarator declarator: (array_declarator declarator: (identifier) @binding.name))
  ]) @binding

; ---- calls
(call_expression function: (identifier) @ref.call)
(call_expression function: (field_expression argument: (_) @qual field: (field_identifier) @ref.call))

; ---- writes: assignment targets, ++/--, compound assignment, initializers
(assignment_expression left: (identifier) @ref.write operator: "=")
(assignment_expression left: (field_expression argument: (_) @qual field: (field_identifier) @ref.write) operator: "=")
(assignment_expression left: (subscript_expression argument: (identifier) @ref.write))
(assignment_expression left: (subscript_expression argument: (field_expression argument: (_) @qual field: (field_identifier) @ref.write)))
(assignment_expression
  left: (identifier) @ref.rw
  operator: ["+=" "-=" "*=" "/=" "%=" "&=" "|=" "^=" "<<=" ">>="])
(assignment_expression
  left: (field_expression argument: (_) @qual field: (field_identifier) @ref.rw)
  operator: ["+=" "-=" "*=" "/=" "%=" "&=" "|=" "^=" "<<=" ">>="])
(update_expression argument: [(identifier) @ref.rw (field_expression argument: (_) @qual field: (field_identifier) @ref.rw)])
(init_declarator declarator: (identifier) @ref.write)
(init_declarator declarator: (pointer_declarator declarator: (identifier) @ref.write))
(init_declarator declarator: (array_declarator declarator: (identifier) @ref.write))
; designated initializers write the fields they name
(declaration
  type: [(type_identifier) @qual (struct_specifier name: (_) @qual) (union_specifier name: (_) @qual)]
  declarator: (init_declarator value: (initializer_list (initializer_pair designator: (field_designator (field_identifier) @ref.write)))))
(compound_literal_expression
  type: (type_descriptor type: [(type_identifier) @qual (struct_specifier name: (_) @qual) (union_specifier name: (_) @qual)])
  value: (initializer_list (initializer_pair designator: (field_designator (field_identifier) @ref.write))))
(initializer_pair designator: (field_designator (field_identifier) @ref.write))

; ---- type uses
(type_identifier) @ref.type

; ---- reads (generic: only where nothing above applies)
(field_expression argument: (_) @qual field: (field_identifier) @ref.read)
(identifier) @ref.read
