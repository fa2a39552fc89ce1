; PHP: definitions, supertypes, imports, references and locals, in that order.
; Definitions: @definition.<kind> on the node, @name on its name.

(function_definition name: (name) @name) @definition.function
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(method_declaration name: (name) @name) @definition.method
(property_declaration (property_element name: (variable_name (name) @name))) @definition.property
(const_declaration (const_element (name) @name)) @definition.constant
(namespace_definition name: (namespace_name) @name) @definition.module

; Supertypes: @supertype on an extended class, @implements on an implemented interface.
(base_clause [(name) (qualified_name)] @supertype)
(class_interface_clause [(name) (qualified_name)] @implements)

; Imports: @import on a `use`, @module on the name it imports; @import.name (and @import.alias) for what it binds.
(namespace_use_clause [(name) (qualified_name)] @module alias: (name) @import.alias) @import
(namespace_use_clause (qualified_name (name) @import.name) @module) @import
(namespace_use_clause [(name) (qualified_name)] @module) @import

; References: @reference.<kind> on a used name; @qualifier on the object or class before `->`/`::`; @skip on a name that is no use.
(function_call_expression function: (name) @reference.call)
(function_call_expression function: (qualified_name (name) @reference.call))
(member_call_expression object: (_) @qualifier name: (name) @reference.call)
(scoped_call_expression scope: (_) @qualifier name: (name) @reference.call)
(object_creation_expression (name) @reference.call)
(object_creation_expression (qualified_name (name) @reference.call))
(member_access_expression object: (_) @qualifier name: (name) @reference.read)
(name) @reference.read
(variable_name (name) @skip)
(namespace_name (name) @skip)

; Locals: PHP variables are `$name` (skipped above); a closure's `use` and parameters are all local, nothing to hide.
[(function_definition) (method_declaration) (anonymous_function) (arrow_function)] @local.scope
