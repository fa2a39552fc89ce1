; TypeScript (and TSX): definitions, imports. Captures: @definition.<kind> on the node, @name on its name;
; @import on an import, @module on the module it names.

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(function_signature name: (identifier) @name) @definition.function
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method
(method_signature name: (property_identifier) @name) @definition.method
(abstract_method_signature name: (property_identifier) @name) @definition.method
(public_field_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.property
(property_signature name: (property_identifier) @name) @definition.property
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(internal_module name: (identifier) @name) @definition.module
(module name: (identifier) @name) @definition.module

(program (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function))
(export_statement (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function))
(program (lexical_declaration (variable_declarator name: (identifier) @name value: (_) @value) @definition.variable))
(export_statement (lexical_declaration (variable_declarator name: (identifier) @name value: (_) @value) @definition.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))

(import_statement source: (string (string_fragment) @module)) @import
(export_statement source: (string (string_fragment) @module)) @import
(call_expression function: (identifier) @_require arguments: (arguments . (string (string_fragment) @module)) (#eq? @_require "require")) @import
