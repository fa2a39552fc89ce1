; C++: definitions, supertypes, imports, references and locals, in that order.
; Definitions: @definition.<kind> on the node, @name on its name.

(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type
(enumerator name: (identifier) @name) @definition.constant
(preproc_def name: (identifier) @name) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.function
(field_declaration declarator: (field_identifier) @name) @definition.field
(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(translation_unit (declaration declarator: (identifier) @name) @definition.variable)
(function_definition declarator: (function_declarator declarator: (qualified_identifier name: (identifier) @name))) @definition.method
(function_definition declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(namespace_definition name: (namespace_identifier) @name) @definition.module

; Supertypes: @supertype on a base class.
(base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @supertype)

; Imports: @import on an #include, @module on the file it names (a <system> header is outside the repository).
(preproc_include path: (string_literal (string_content) @module)) @import
(preproc_include path: (system_lib_string) @module) @import

; References: @reference.<kind> on a used name; @qualifier on the struct before `.`/`->`.
(call_expression function: (identifier) @reference.call)
(call_expression function: (qualified_identifier scope: (_) @qualifier name: (identifier) @reference.call))
(qualified_identifier scope: (namespace_identifier) @qualifier name: (type_identifier) @reference.type)
(call_expression function: (field_expression argument: (_) @qualifier field: (field_identifier) @reference.call))
(field_expression argument: (_) @qualifier field: (field_identifier) @reference.read)
(assignment_expression left: (identifier) @reference.write)
(type_identifier) @reference.type
(identifier) @reference.read

; Locals: @local.scope opens a scope, @local.definition declares a name in the innermost one.
[(function_definition) (compound_statement) (for_statement) (for_range_loop) (lambda_expression)] @local.scope
(parameter_declaration declarator: (identifier) @local.definition)
(parameter_declaration declarator: (pointer_declarator declarator: (identifier) @local.definition))
(declaration declarator: (identifier) @local.definition)
(declaration declarator: (init_declarator declarator: (identifier) @local.definition))
(declaration declarator: (pointer_declarator declarator: (identifier) @local.definition))
(declaration declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @local.definition)))
