; Ruby: definitions, supertypes, imports, references and locals, in that order.
; Definitions: @definition.<kind> on the node, @name on its name (a `def` in a class is a method).

(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.method
(class name: [(constant) (scope_resolution)] @name) @definition.class
(module name: [(constant) (scope_resolution)] @name) @definition.module
(program (assignment left: (constant) @name) @definition.constant)
(body_statement (assignment left: (constant) @name) @definition.constant)

; Supertypes: @supertype on the class a class inherits from.
(class superclass: (superclass (_) @supertype))

; Imports: @import on a require call, @module on the path it loads.
(call method: (identifier) @_require arguments: (argument_list . (string (string_content) @module)) (#match? @_require "^require(_relative)?$")) @import

; References: @reference.<kind> on a used name; @qualifier on the receiver of a call.
(call receiver: (_) @qualifier method: (identifier) @reference.call)
(call method: (identifier) @reference.call)
(scope_resolution scope: (_) @qualifier name: (constant) @reference.type)
(constant) @reference.type
(assignment left: (identifier) @reference.write)
(identifier) @reference.read

; Locals: @local.scope opens a scope, @local.definition declares a name in the innermost one.
[(method) (singleton_method) (block) (do_block) (lambda)] @local.scope
(method_parameters (identifier) @local.definition)
(block_parameters (identifier) @local.definition)
(lambda_parameters (identifier) @local.definition)
(optional_parameter name: (identifier) @local.definition)
(keyword_parameter name: (identifier) @local.definition)
(assignment left: (identifier) @local.definition)
