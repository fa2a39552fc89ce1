; JavaScript (and JSX): definitions, imports. Captures: @definition.<kind> on the node, @name on its name;
; @import on an import, @module on the module it names.

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (identifier) @name) @definition.class
(method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method
(field_definition property: [(property_identifier) (private_property_identifier)] @name) @definition.field

(program (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function))
(program (variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function))
(export_statement (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function))
(program (lexical_declaration (variable_declarator name: (identifier) @name value: (_) @value) @definition.variable))
(export_statement (lexical_declaration (variable_declarator name: (identifier) @name value: (_) @value) @definition.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))

(import_statement source: (string (string_fragment) @module)) @import
(export_statement source: (string (string_fragment) @module)) @import
(call_expression function: (identifier) @_require arguments: (arguments . (string (string_fragment) @module)) (#eq? @_require "require")) @import
