; Ruby facts for cairn. Capture names are explained in ../doc.go.
; Names of instance variables (@x) and attribute symbols (:x) are stored
; without their sigil (langSpec.ident), so that @balance, self.balance and
; attr_accessor :balance are one name.
(comment) @comment

; ---- imports: require "a/b" (a load path), require_relative "b" (beside
; the file; the extractor marks it "./"), autoload :C, "a/c"
((call method: (identifier) @ref.none
   arguments: (argument_list . (string (string_content) @import.module))) @import
  (#match? @ref.none "^(require|require_relative|load)$"))
((call method: (identifier) @ref.none
   arguments: (argument_list . (simple_symbol) @import.name . (string (string_content) @import.module))) @import
  (#eq? @ref.none "autoload"))

; ---- definitions (earlier patterns win when several match one definition)
(class name: [(constant) @name (scope_resolution name: (constant) @name)]) @def.class
(class superclass: (superclass [(constant) (scope_resolution)] @extends))
(module name: [(constant) @name (scope_resolution name: (constant) @name)]) @def.module
; mixins: include/extend/prepend M inside a class or module
((call !receiver method: (identifier) @_mix
   arguments: (argument_list [(constant) (scope_resolution)] @implements))
  (#match? @_mix "^(include|extend|prepend)$"))

(method name: (_) @name) @def.method
(singleton_method name: (_) @name) @def.method

; attributes: attr_accessor :a, :b
((call !receiver method: (identifier) @_attr
   arguments: (argument_list (simple_symbol) @name)) @def.property
  (#match? @_attr "^attr_(accessor|reader|writer)$"))
; instance variables assigned in initialize are fields of the class
(method name: (identifier) @_init
  body: (body_statement (assignment left: (instance_variable) @name) @def.field)
  (#eq? @_init "initialize"))
(method name: (identifier) @_init
  body: (body_statement (operator_assignment left: (instance_variable) @name) @def.field)
  (#eq? @_init "initialize"))
; constants
(assignment left: (constant) @name) @def.constant
; RSpec examples, minitest/Rails declarative tests: it "does x" do … end
((call !receiver method: (identifier) @_it
   arguments: (argument_list . (string) @name)
   block: (_)) @def.function
  (#match? @_it "^(it|specify|scenario|example|test)$"))

; ---- local bindings
(method_parameters (identifier) @binding.name) @binding
(method_parameters (optional_parameter name: (identifier) @binding.name)) @binding
(method_parameters (keyword_parameter name: (identifier) @binding.name)) @binding
(method_parameters (splat_parameter name: (identifier) @binding.name)) @binding
(method_parameters (hash_splat_parameter name: (identifier) @binding.name)) @binding
(method_parameters (block_parameter name: (identifier) @binding.name)) @binding
(block_parameters (identifier) @binding.name) @binding
(lambda_parameters (identifier) @binding.name) @binding
(assignment left: (identifier) @binding.name
  right: (call receiver: [(constant) (scope_resolution)] @binding.type method: (identifier) @_new)
  (#eq? @_new "new")) @binding

; ---- calls: Foo.new calls Foo (its initialize)
((call receiver: [(constant) @ref.call (scope_resolution name: (constant) @ref.call)] method: (identifier) @_new)
  (#eq? @_new "new"))
(call receiver: (_) @qual method: [(identifier) (constant)] @ref.call)
(call !receiver method: (identifier) @ref.call)
(super) @ref.call

; ---- writes (a call node on the left, self.x = v, is a write of x)
(assignment left: (identifier) @ref.write)
(assignment left: (instance_variable) @ref.write)
(assignment left: (class_variable) @ref.write)
(assignment left: (global_variable) @ref.write)
(assignment left: (call receiver: (_) @qual method: (identifier) @ref.write))
(assignment left: (element_reference object: (identifier) @ref.rw))
(assignment left: (element_reference object: (instance_variable) @ref.rw))
(assignment left: (left_assignment_list (identifier) @ref.write))
(assignment left: (left_assignment_list (instance_variable) @ref.write))
(operator_assignment left: (identifier) @ref.rw)
(operator_assignment left: (instance_variable) @ref.rw)
(operator_assignment left: (class_variable) @ref.rw)
(operator_assignment left: (global_variable) @ref.rw)
(operator_assignment left: (call receiver: (_) @qual method: (identifier) @ref.rw))
(for pattern: (identifier) @ref.write)
; keyword arguments: Model.new(balance: 0) and Model.create(…) name an
; attribute of the class (the resolver makes them writes); other calls'
; keywords are a method's parameters
((call receiver: [(constant) (scope_resolution)] @qual method: (identifier) @_m
   arguments: (argument_list (pair key: (hash_key_symbol) @ref.argument)))
  (#match? @_m "^(new|create|create!|build)$"))
(call !receiver method: (identifier) @qual
  arguments: (argument_list (pair key: (hash_key_symbol) @ref.argument)))

; ---- type uses: constants are classes and modules
(scope_resolution scope: (_) @qual name: (constant) @ref.type)
(superclass (constant) @ref.type)
(rescue exceptions: (exceptions (constant) @ref.type))

; ---- reads (generic)
(instance_variable) @ref.read
(class_variable) @ref.read
(constant) @ref.read
(identifier) @ref.read
