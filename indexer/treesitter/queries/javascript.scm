; JavaScript facts for cairn. Capture names are explained in ../doc.go.
; The patterns follow queries/typescript.scm, without the type syntax.
(comment) @comment

; ---- imports
; import { A, B as C } from "m"
(import_statement
  (import_clause (named_imports (import_specifier name: (_) @import.name alias: (_)? @import.alias)))
  source: (string) @import.module) @import
; import D from "m" (the default export: the local name is the alias)
(import_statement (import_clause (identifier) @import.alias) source: (string) @import.module) @import
; import * as ns from "m"
(import_statement (import_clause (namespace_import (identifier) @import.alias)) source: (string) @import.module) @import
; import "m" (side effects only)
(import_statement . source: (string) @import.module) @import
; export * from "m", export { a as b } from "m"
(export_statement . source: (string) @import.module) @import
(export_statement
  (export_clause (export_specifier name: (_) @import.name))
  source: (string) @import.module) @import
; const x = require("m"), const { a, b: c } = require("m"), import("m")
(variable_declarator
  name: (identifier) @import.alias
  value: (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module))
  (#eq? @_req "require")) @import
(variable_declarator
  name: (object_pattern (shorthand_property_identifier_pattern) @import.name)
  value: (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module))
  (#eq? @_req "require")) @import
(variable_declarator
  name: (object_pattern (pair_pattern key: (property_identifier) @import.name value: (identifier) @import.alias))
  value: (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module))
  (#eq? @_req "require")) @import
(call_expression function: (import) arguments: (arguments . (string) @import.module)) @import

; the names an import binds
(import_specifier name: (identifier) @ref.import)
(import_specifier alias: (identifier) @ref.import)
(import_clause (identifier) @ref.import)
(namespace_import (identifier) @ref.import)
(variable_declarator
  name: [
    (identifier) @ref.import
    (object_pattern (shorthand_property_identifier_pattern) @ref.import)
    (object_pattern (pair_pattern key: (property_identifier) @ref.import value: (identifier) @ref.import))
  ]
  value: (call_expression function: (identifier) @_req)
  (#eq? @_req "require"))

; ---- definitions (earlier patterns win when several match one definition)
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function

; const f = () => …, const f = function () {…}: a function named by the variable
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)] @def.function)

(class_declaration name: (identifier) @name) @def.class
(class_heritage (_) @extends)

(class_body
  (method_definition
    name: [(property_identifier) (private_property_identifier) (computed_property_name)] @name) @def.method)
; handler = () => {…}: a method (the field pattern below matches the same node
; and loses, being later)
(class_body
  (field_definition
    property: [(property_identifier) (private_property_identifier)] @name
    value: [(arrow_function) (function_expression)] @def.method))
; other class fields: the definition node is the value when there is one, so
; that it coincides with the method above
(class_body
  (field_definition
    property: [(property_identifier) (private_property_identifier)] @name
    value: (_)? @def.field) @def.field)
; this.x = … in the constructor: a field of the class (hoisted by the extractor)
(method_definition
  name: (property_identifier) @_ctor
  body: (statement_block
    (expression_statement
      (assignment_expression
        left: (member_expression object: (this) property: [(property_identifier) (private_property_identifier)] @name)) @def.field))
  (#eq? @_ctor "constructor"))

; variables of the file, not locals. The definition node is the value when
; there is one, so that `const f = () => …` above wins.
(program (_ (variable_declarator name: (identifier) @name value: (_)? @def.variable) @def.variable) (#not-match? @def.variable "^require\\s*\\("))
(program (export_statement declaration: (_ (variable_declarator name: (identifier) @name value: (_)? @def.variable) @def.variable)) (#not-match? @def.variable "^require\\s*\\("))

; ---- local bindings: untyped, so only their names (which are not reads)
(formal_parameters (identifier) @binding.name) @binding
(formal_parameters (assignment_pattern left: (identifier) @binding.name)) @binding
(formal_parameters (rest_pattern (identifier) @binding.name)) @binding
(arrow_function parameter: (identifier) @binding.name) @binding
(catch_clause parameter: (identifier) @binding.name) @binding
(variable_declarator name: (identifier) @binding.name !value) @binding
(variable_declarator
  name: (identifier) @binding.name
  value: [
    (new_expression constructor: (_) @binding.ctor)
    (call_expression function: (_) @binding.ctor)
    (await_expression [(new_expression constructor: (_) @binding.ctor) (call_expression function: (_) @binding.ctor)])
  ]
  (#not-eq? @binding.ctor "require")) @binding
(assignment_expression
  left: (identifier) @binding.name
  right: [
    (new_expression constructor: (_) @binding.ctor)
    (call_expression function: (_) @binding.ctor)
    (await_expression [(new_expression constructor: (_) @binding.ctor) (call_expression function: (_) @binding.ctor)])
  ]) @binding

; ---- calls
(call_expression function: (identifier) @ref.call)
(call_expression function: (member_expression object: (_) @qual property: [(property_identifier) (private_property_identifier)] @ref.call))
(new_expression constructor: (identifier) @ref.call)
(new_expression constructor: (member_expression object: (_) @qual property: (property_identifier) @ref.call))
(decorator (identifier) @ref.call)
(decorator (member_expression object: (_) @qual property: (property_identifier) @ref.call))

; ---- writes: assignment targets, ++/--, compound assignment, destructuring,
; object literal keys
(assignment_expression left: (identifier) @ref.write)
(assignment_expression left: (member_expression object: (_) @qual property: [(property_identifier) (private_property_identifier)] @ref.write))
(assignment_expression left: (subscript_expression object: (identifier) @ref.write))
(assignment_expression left: (subscript_expression object: (member_expression object: (_) @qual property: [(property_identifier) (private_property_identifier)] @ref.write)))
(augmented_assignment_expression left: (identifier) @ref.rw)
(augmented_assignment_expression left: (member_expression object: (_) @qual property: [(property_identifier) (private_property_identifier)] @ref.rw))
(augmented_assignment_expression left: (subscript_expression object: (identifier) @ref.rw))
(augmented_assignment_expression left: (subscript_expression object: (member_expression object: (_) @qual property: [(property_identifier) (private_property_identifier)] @ref.rw)))
(update_expression argument: (identifier) @ref.rw)
(update_expression argument: (member_expression object: (_) @qual property: [(property_identifier) (private_property_identifier)] @ref.rw))
(update_expression argument: (subscript_expression object: (identifier) @ref.rw))
(update_expression argument: (subscript_expression object: (member_expression object: (_) @qual property: [(property_identifier) (private_property_identifier)] @ref.rw)))
(variable_declarator name: (identifier) @ref.write value: (_) @_v (#not-match? @_v "^require\\s*\\("))
(for_in_statement left: (identifier) @ref.write)
; destructuring targets (not in parameters, not from require)
(variable_declarator
  name: [
    (object_pattern [
      (shorthand_property_identifier_pattern) @ref.write
      (pair_pattern value: (identifier) @ref.write)
      (object_assignment_pattern left: (shorthand_property_identifier_pattern) @ref.write)
      (rest_pattern (identifier) @ref.write)
    ])
    (array_pattern [
      (identifier) @ref.write
      (assignment_pattern left: (identifier) @ref.write)
      (rest_pattern (identifier) @ref.write)
    ])
  ]
  value: (_) @_v
  (#not-match? @_v "^require\\s*\\("))
(assignment_expression
  left: [
    (object_pattern [
      (shorthand_property_identifier_pattern) @ref.write
      (pair_pattern value: (identifier) @ref.write)
      (object_assignment_pattern left: (shorthand_property_identifier_pattern) @ref.write)
      (rest_pattern (identifier) @ref.write)
    ])
    (array_pattern [
      (identifier) @ref.write
      (assignment_pattern left: (identifier) @ref.write)
      (rest_pattern (identifier) @ref.write)
    ])
 ])
; destructuring assignment into members: ({ a: o.f } = src), [o.f] = src
(assignment_expression
  left: [
    (object_pattern [
      (pair_pattern value: (member_expression object: (_) @qual property: [(property_identifier) (private_property_identifier)] @ref.write))
      (pair_pattern value: (assignment_pattern left: (member_expression object: (_) @qual property: [(property_identifier) (private_property_identifier)] @ref.write)))
    ])
    (array_pattern [
      (member_expression object: (_) @qual property: [(property_identifier) (private_property_identifier)] @ref.write)
      (assignment_pattern left: (member_expression object: (_) @qual property: [(property_identifier) (private_property_identifier)] @ref.write))
    ])
  ])
(for_in_statement
  left: [
    (object_pattern [
      (shorthand_property_identifier_pattern) @ref.write
      (pair_pattern value: (identifier) @ref.write)
    ])
    (array_pattern (identifier) @ref.write)
  ])
(pair key: (property_identifier) @ref.write)
(shorthand_property_identifier) @ref.write

; ---- JSX: <Component …/> calls the component, its attributes are written
; like keyword arguments, intrinsic elements (<div>) are not references
(jsx_opening_element name: (identifier) @ref.call (#match? @ref.call "^[A-Z]"))
(jsx_self_closing_element name: (identifier) @ref.call (#match? @ref.call "^[A-Z]"))
(jsx_opening_element name: (member_expression object: (_) @qual property: (property_identifier) @ref.call))
(jsx_self_closing_element name: (member_expression object: (_) @qual property: (property_identifier) @ref.call))
(jsx_opening_element name: (identifier) @binding.name (#match? @binding.name "^[a-z]")) @binding
(jsx_self_closing_element name: (identifier) @binding.name (#match? @binding.name "^[a-z]")) @binding
(jsx_closing_element name: (identifier) @binding.name (#match? @binding.name "^[a-z]")) @binding
(jsx_namespace_name (identifier) @binding.name) @binding
(jsx_opening_element name: (_) @qual attribute: (jsx_attribute (property_identifier) @ref.write))
(jsx_self_closing_element name: (_) @qual attribute: (jsx_attribute (property_identifier) @ref.write))

; ---- type uses: the superclass
(class_heritage (identifier) @ref.type)
(class_heritage (member_expression object: (_) @qual property: (property_identifier) @ref.type))

; ---- reads (generic: only where nothing above applies)
(member_expression object: (_) @qual property: [(property_identifier) (private_property_identifier)] @ref.read)
(identifier) @ref.read
