; Python: definitions, supertypes, imports, references and locals, in that order.
; Definitions: @definition.<kind> on the node, @name on its name.

(function_definition name: (identifier) @name) @definition.function
(class_definition name: (identifier) @name) @definition.class
(module (expression_statement (assignment left: (identifier) @name) @definition.variable))
(class_definition body: (block (expression_statement (assignment left: (identifier) @name) @definition.field)))


; Supertypes: @supertype on a base class (the enclosing definition's).
(class_definition superclasses: (argument_list [(identifier) (attribute)] @supertype))
; Imports: @import on the statement, @module on the module; @import.name (and @import.alias) for `from m import n [as a]`,
; @import.namespace for `import m as a`, @import.all for `from m import *` (a bare `import m` binds `m`: language.json).
(import_statement name: (dotted_name) @module) @import
(import_statement name: (aliased_import name: (dotted_name) @module alias: (identifier) @import.namespace)) @import
(import_from_statement module_name: [(dotted_name) (relative_import)] @module name: (dotted_name) @import.name) @import
(import_from_statement module_name: [(dotted_name) (relative_import)] @module name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias)) @import
(import_from_statement module_name: [(dotted_name) (relative_import)] @module (wildcard_import) @import.all) @import
(import_from_statement module_name: [(dotted_name) (relative_import)] @module) @import

; References: @reference.<kind> on a used name; @qualifier on the object of an attribute access; @skip on a name that is no use.
(call function: (identifier) @reference.call)
(call function: (attribute object: (_) @qualifier attribute: (identifier) @reference.call))
(attribute object: (_) @qualifier attribute: (identifier) @reference.read)
(assignment left: (identifier) @reference.write)
(assignment left: (attribute object: (_) @qualifier attribute: (identifier) @reference.write))
(identifier) @reference.read
(keyword_argument name: (identifier) @skip)
(import_statement name: (dotted_name (identifier) @skip))
(import_statement name: (aliased_import name: (dotted_name (identifier) @skip)))
(import_from_statement module_name: (dotted_name (identifier) @skip))
(relative_import (dotted_name (identifier) @skip))

; Locals: @local.scope opens a scope, @local.definition declares a name in the innermost one.
[(function_definition) (lambda)] @local.scope
(parameters (identifier) @local.definition)
(default_parameter name: (identifier) @local.definition)
(typed_parameter (identifier) @local.definition)
(typed_default_parameter name: (identifier) @local.definition)
(list_splat_pattern (identifier) @local.definition)
(dictionary_splat_pattern (identifier) @local.definition)
(lambda_parameters (identifier) @local.definition)
(assignment left: (identifier) @local.definition)
(assignment left: (pattern_list (identifier) @local.definition))
(for_statement left: (identifier) @local.definition)
(for_statement left: (pattern_list (identifier) @local.definition))
(for_in_clause left: (identifier) @local.definition)
(as_pattern alias: (as_pattern_target (identifier) @local.definition))

; Receiver types: @binding.local on a parameter or variable whose type the file says (@binding.name; @binding.type an
; annotation, or a call of a capitalised name: a class; @binding.from another local name whose type it takes),
; @binding.field on an attribute of the class around it (`self.name`).
(typed_parameter (identifier) @binding.name type: (type) @binding.type) @binding.local
(typed_default_parameter name: (identifier) @binding.name type: (type) @binding.type) @binding.local
(assignment left: (identifier) @binding.name type: (type) @binding.type) @binding.local
(assignment left: (identifier) @binding.name right: (call function: [(identifier) (attribute)] @binding.type) (#match? @binding.type "^([A-Za-z_][A-Za-z0-9_]*[.])*_?[A-Z][A-Za-z0-9_]*$")) @binding.local
(assignment left: (attribute object: (identifier) @_self attribute: (identifier) @binding.name) type: (type) @binding.type (#eq? @_self "self")) @binding.field
(assignment left: (attribute object: (identifier) @_self attribute: (identifier) @binding.name) right: (call function: [(identifier) (attribute)] @binding.type) (#eq? @_self "self") (#match? @binding.type "^([A-Za-z_][A-Za-z0-9_]*[.])*_?[A-Z][A-Za-z0-9_]*$")) @binding.field
(assignment left: (attribute object: (identifier) @_self attribute: (identifier) @binding.name) right: (identifier) @binding.from (#eq? @_self "self")) @binding.field
(class_definition body: (block (expression_statement (assignment left: (identifier) @binding.name type: (type) @binding.type)))) @binding.field
; What an expression gives (@binding.value): a call's declared result (`c = make()`, `c = self.load()`), an attribute's
; declared type (`c = self.conn`).
(assignment left: (identifier) @binding.name right: [(call) (attribute)] @binding.value) @binding.local

; Declared results: @returns.type on a function's return annotation or a class attribute's annotation, @returns on the
; definition (what calling or reading it gives).
(function_definition return_type: (type) @returns.type) @returns
(class_definition body: (block (expression_statement (assignment left: (identifier) type: (type) @returns.type) @returns)))
