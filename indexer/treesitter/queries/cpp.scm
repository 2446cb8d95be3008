; C++ facts for cairn. Capture names are explained in ../doc.go.
; The C patterns (c.scm) are repeated here with the C++ additions.
(comment) @comment

; ---- imports: #include "x.h" / <x.h> (the extractor strips the quotes),
; using-declarations and using-directives
(preproc_include path: [(string_literal) (system_lib_string)] @import.module) @import
((using_declaration (qualified_identifier scope: (_) @import.module name: (identifier) @import.name)) @import
  (#not-match? @import "^using\\s+namespace"))
((using_declaration [(identifier) (qualified_identifier)] @import.module) @import
  (#match? @import "^using\\s+namespace"))
((using_declaration (qualified_identifier name: (identifier) @ref.import)) @_using
  (#not-match? @_using "^using\\s+namespace"))

; ---- definitions (earlier patterns win when several match one definition)
(namespace_definition name: (_) @name) @def.namespace
(class_specifier name: (type_identifier) @name body: (field_declaration_list)) @def.class
(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @def.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @def.union
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @def.enum
(enumerator name: (identifier) @name) @def.enum_member
(base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @extends)

; constructors: untyped functions named in a class body, or Foo::Foo
(field_declaration_list
  (function_definition !type declarator: (function_declarator declarator: (identifier) @name)) @def.constructor)
(field_declaration_list
  (declaration !type declarator: (function_declarator declarator: (identifier) @name)) @def.constructor)
(field_declaration_list (template_declaration
  (function_definition !type declarator: (function_declarator declarator: (identifier) @name)) @def.constructor))
(function_definition
  !type
  declarator: (function_declarator
    declarator: (qualified_identifier scope: (_) @receiver name: (identifier) @name))) @def.constructor

; methods declared or defined in a class body (destructors included)
(field_declaration
  type: (_) @type
  declarator: [
    (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name)] @name))
    (reference_declarator (function_declarator declarator: [(field_identifier) (operator_name)] @name))
  ]) @def.method
(field_declaration_list
  (declaration declarator: (function_declarator declarator: (destructor_name) @name)) @def.method)
(field_declaration_list
  (function_definition
    type: (_)? @type
    declarator: [
      (function_declarator declarator: [(field_identifier) (identifier) (operator_name) (destructor_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (identifier) (operator_name)] @name))
      (reference_declarator (function_declarator declarator: [(field_identifier) (identifier) (operator_name)] @name))
    ]) @def.method)
(field_declaration_list (template_declaration
  (function_definition
    type: (_)? @type
    declarator: [
      (function_declarator declarator: [(field_identifier) (identifier) (operator_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (identifier) (operator_name)] @name))
      (reference_declarator (function_declarator declarator: [(field_identifier) (identifier) (operator_name)] @name))
    ]) @def.method))

; out-of-line method definitions: void Foo::bar() {}
(function_definition
  type: (_)? @type
  declarator: [
    (function_declarator declarator: (qualified_identifier scope: (_) @receiver name: [(identifier) (destructor_name) (operator_name)] @name))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @receiver name: [(identifier) (operator_name)] @name)))
    (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @receiver name: [(identifier) (operator_name)] @name)))
  ]) @def.method

; free functions and prototypes
(function_definition
  type: (_) @type
  declarator: [
    (function_declarator declarator: [(identifier) (operator_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (operator_name)] @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    (reference_declarator (function_declarator declarator: [(identifier) (operator_name)] @name))
  ]) @def.function
(declaration
  type: (_) @type
  declarator: [
    (function_declarator declarator: [(identifier) (operator_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (operator_name)] @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    (reference_declarator (function_declarator declarator: [(identifier) (operator_name)] @name))
  ]) @def.function

; typedefs and aliases (see c.scm for the tagged/anonymous split)
(type_definition type: (struct_specifier !name body: (_)) declarator: (type_identifier) @name) @def.struct
(type_definition type: (union_specifier !name body: (_)) declarator: (type_identifier) @name) @def.union
(type_definition type: (enum_specifier !name body: (_)) declarator: (type_identifier) @name) @def.enum
(type_definition
  type: [(struct_specifier name: (_) @type body: (_)) (union_specifier name: (_) @type body: (_)) (enum_specifier name: (_) @type body: (_)) (class_specifier name: (_) @type body: (_))]
  declarator: (type_identifier) @name @def.type)
(type_definition
  type: [
    (type_identifier) (primitive_type) (sized_type_specifier) (qualified_identifier) (template_type)
    (struct_specifier !body) (union_specifier !body) (enum_specifier !body) (class_specifier !body)
  ] @type
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
  ]) @def.type
(alias_declaration name: (type_identifier) @name type: (_) @type) @def.type

; fields (`int n = 0;` in a class parses as a function_definition with a
; field_identifier declarator)
(field_declaration
  type: (_) @type
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (reference_declarator (field_identifier) @name)
    (array_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))
  ]) @def.field
(field_declaration_list (function_definition type: (_) @type declarator: (field_identifier) @name) @def.field)

; constants: const (or constexpr) globals that are not pointers
((translation_unit (declaration (type_qualifier) @_const type: (_) @type declarator: [
  (init_declarator declarator: (identifier) @name)
  (init_declarator declarator: (array_declarator declarator: (identifier) @name))
]) @def.constant) (#match? @_const "^(const|constexpr)$"))
((declaration_list (declaration (type_qualifier) @_const type: (_) @type declarator: [
  (init_declarator declarator: (identifier) @name)
  (init_declarator declarator: (array_declarator declarator: (identifier) @name))
]) @def.constant) (#match? @_const "^(const|constexpr)$"))
((preproc_ifdef (declaration (type_qualifier) @_const type: (_) @type declarator: [
  (init_declarator declarator: (identifier) @name)
  (init_declarator declarator: (array_declarator declarator: (identifier) @name))
]) @def.constant) (#match? @_const "^(const|constexpr)$"))
; global variables (file or namespace level, or inside #if/#ifdef blocks)
(translation_unit (declaration type: (_) @type declarator: [
  (identifier) @name
  (init_declarator declarator: (identifier) @name)
  (pointer_declarator declarator: (identifier) @name)
  (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
  (array_declarator declarator: (identifier) @name)
  (init_declarator declarator: (array_declarator declarator: (identifier) @name))
]) @def.variable)
(declaration_list (declaration type: (_) @type declarator: [
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
]) @def.variable)
(preproc_if (declaration type: (_) @type declarator: [
  (identifier) @name
  (init_declarator declarator: (identifier) @name)
  (pointer_declarator declarator: (identifier) @name)
  (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
]) @def.variable)

; macros (valueless defines that look like include guards are skipped)
(preproc_def name: (identifier) @name value: (_)) @def.macro
((preproc_def name: (identifier) @name !value) @def.macro
  (#not-match? @name "(_H|_H_|_HPP|_HPP_|_H_INCLUDED|_INCLUDED)$"))
(preproc_function_def name: (identifier) @name) @def.macro

; ---- local type bindings (a struct/union/enum type is bound by its tag)
(preproc_params (identifier) @binding.name) @binding
(parameter_declaration
  type: [
    (struct_specifier name: (_) @binding.type) (union_specifier name: (_) @binding.type)
    (enum_specifier name: (_) @binding.type) (class_specifier name: (_) @binding.type)
  ]
  declarator: [
    (identifier) @binding.name
    (pointer_declarator declarator: (identifier) @binding.name)
    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @binding.name))
    (reference_declarator (identifier) @binding.name)
    (array_declarator declarator: (identifier) @binding.name)
  ]) @binding
(parameter_declaration
  type: [(type_identifier) (primitive_type) (sized_type_specifier) (qualified_identifier) (template_type)] @binding.type
  declarator: [
    (identifier) @binding.name
    (pointer_declarator declarator: (identifier) @binding.name)
    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @binding.name))
    (reference_declarator (identifier) @binding.name)
    (array_declarator declarator: (identifier) @binding.name)
  ]) @binding
(declaration
  type: [
    (struct_specifier name: (_) @binding.type) (union_specifier name: (_) @binding.type)
    (enum_specifier name: (_) @binding.type) (class_specifier name: (_) @binding.type)
  ]
  declarator: [
    (identifier) @binding.name
    (init_declarator declarator: (identifier) @binding.name)
    (pointer_declarator declarator: (identifier) @binding.name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @binding.name))
    (init_declarator declarator: (reference_declarator (identifier) @binding.name))
    (array_declarator declarator: (identifier) @binding.name)
    (init_declarator declarator: (array_declarator declarator: (identifier) @binding.name))
  ]) @binding
(declaration
  type: [(type_identifier) (primitive_type) (sized_type_specifier) (qualified_identifier) (template_type)] @binding.type
  declarator: [
    (identifier) @binding.name
    (init_declarator declarator: (identifier) @binding.name)
    (pointer_declarator declarator: (identifier) @binding.name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @binding.name))
    (init_declarator declarator: (reference_declarator (identifier) @binding.name))
    (array_declarator declarator: (identifier) @binding.name)
    (init_declarator declarator: (array_declarator declarator: (identifier) @binding.name))
  ]) @binding
; auto x = new Foo(…) / Foo::make() / make_foo()
(declaration
  type: (placeholder_type_specifier)
  declarator: (init_declarator
    declarator: [(identifier) @binding.name (pointer_declarator declarator: (identifier) @binding.name)]
    value: (new_expression type: (_) @binding.type))) @binding
(declaration
  type: (placeholder_type_specifier)
  declarator: (init_declarator
    declarator: [(identifier) @binding.name (pointer_declarator declarator: (identifier) @binding.name)]
    value: (call_expression function: [(identifier) (qualified_identifier) (field_expression)] @binding.ctor))) @binding

; ---- calls
((call_expression function: (identifier) @ref.call))
(call_expression function: (field_expression argument: (_) @qual field: (field_identifier) @ref.call))
(call_expression function: (field_expression argument: (_) @qual field: (dependent_name (template_method name: (field_identifier) @ref.call))))
(call_expression function: (qualified_identifier scope: (_) @qual name: (identifier) @ref.call))
(call_expression function: (qualified_identifier scope: (_) @qual name: (template_function name: (identifier) @ref.call)))
((call_expression function: (template_function name: (identifier) @ref.call))
  (#not-match? @ref.call "^(static|dynamic|const|reinterpret)_cast$"))
(new_expression type: [
  (type_identifier) @ref.call
  (template_type name: (type_identifier) @ref.call)
  (qualified_identifier scope: (_) @qual name: [(type_identifier) @ref.call (template_type name: (type_identifier) @ref.call)])
])

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
(init_declarator declarator: (reference_declarator (identifier) @ref.write))
(init_declarator declarator: (array_declarator declarator: (identifier) @ref.write))
; constructor member initializers: Foo() : n_(0) {}
(field_initializer (field_identifier) @ref.write)
; designated initializers write the fields they name
(declaration
  type: [(type_identifier) @qual (struct_specifier name: (_) @qual) (union_specifier name: (_) @qual)]
  declarator: (init_declarator value: (initializer_list (initializer_pair designator: (field_designator (field_identifier) @ref.write)))))
(compound_literal_expression
  type: [(type_identifier) @qual (type_descriptor type: [(type_identifier) @qual (struct_specifier name: (_) @qual)])]
  value: (initializer_list (initializer_pair designator: (field_designator (field_identifier) @ref.write))))
(initializer_pair designator: (field_designator (field_identifier) @ref.write))

; ---- type uses
; the class in Foo::bar() and ~Foo()
(function_declarator declarator: (qualified_identifier scope: (namespace_identifier) @ref.type))
(destructor_name (identifier) @ref.type)
(qualified_identifier scope: (_) @qual name: (type_identifier) @ref.type)
(qualified_identifier scope: (_) @qual name: (template_type name: (type_identifier) @ref.type))
(type_identifier) @ref.type

; ---- reads (generic: only where nothing above applies)
(field_expression argument: (_) @qual field: (field_identifier) @ref.read)
(qualified_identifier scope: (_) @qual name: (identifier) @ref.read)
(namespace_identifier) @ref.read
(identifier) @ref.read
