; JavaScript (and JSX): definitions, supertypes and parameters; imports, references and the other locals are in
; imports-references.scm, which language.json lists after this file.
; Definitions: @definition.<kind> on the node, @name on its name.

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


; Supertypes: @supertype on the class a class extends (the enclosing definition's).
(class_heritage (_) @supertype)

; Parameters: @local.definition in the function's scope (@local.scope, imports-references.scm).
(formal_parameters (identifier) @local.definition)
(formal_parameters (assignment_pattern left: (identifier) @local.definition))

; Receiver types (see ../typescript/tags.scm): a field initialised with `new`.
(field_definition property: [(property_identifier) (private_property_identifier)] @binding.name value: (new_expression constructor: (_) @binding.type)) @binding.field
