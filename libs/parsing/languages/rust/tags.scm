; Rust: definitions, imports, references and locals, in that order.
; Definitions: @definition.<kind> on the node, @name on its name. A function in an `impl` block is a method of the impl's type.

(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(impl_item body: (declaration_list (function_item name: (identifier) @name) @definition.method))
(trait_item body: (declaration_list (function_signature_item name: (identifier) @name) @definition.method))
(trait_item body: (declaration_list (function_item name: (identifier) @name) @definition.method))
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
(mod_item name: (identifier) @name) @definition.module
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable
(macro_definition name: (identifier) @name) @definition.function
(field_declaration name: (field_identifier) @name) @definition.field
(enum_variant name: (identifier) @name) @definition.constant

; Imports: @import on the declaration, @module on the path it uses.
(use_declaration argument: (_) @module) @import
(extern_crate_declaration name: (identifier) @module) @import

; References: @reference.<kind> on a used name; @qualifier on the value or path before it.
(call_expression function: (identifier) @reference.call)
(call_expression function: (field_expression value: (_) @qualifier field: (field_identifier) @reference.call))
(call_expression function: (scoped_identifier path: (_) @qualifier name: (identifier) @reference.call))
(macro_invocation macro: (identifier) @reference.call)
(field_expression value: (_) @qualifier field: (field_identifier) @reference.read)
(scoped_type_identifier path: (_) @qualifier name: (type_identifier) @reference.type)
(type_identifier) @reference.type
(assignment_expression left: (identifier) @reference.write)
(identifier) @reference.read

; Locals: @local.scope opens a scope, @local.definition declares a name in the innermost one.
[(function_item) (closure_expression) (block) (for_expression) (match_arm)] @local.scope
(parameter pattern: (identifier) @local.definition)
(let_declaration pattern: (identifier) @local.definition)
(closure_parameters (identifier) @local.definition)
(for_expression pattern: (identifier) @local.definition)
(tuple_pattern (identifier) @local.definition)
