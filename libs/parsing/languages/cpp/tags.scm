; C++: what it adds to C (language.json lists ../c/tags.scm first): definitions, supertypes, references, scopes.

(function_definition declarator: (function_declarator declarator: (qualified_identifier name: (identifier) @name))) @definition.method
(function_definition declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(namespace_definition name: (namespace_identifier) @name) @definition.module

; Supertypes: @supertype on a base class.
(base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @supertype)

; References through a namespace (`ns::f()`, `ns::T`): @qualifier on the namespace.
(call_expression function: (qualified_identifier scope: (_) @qualifier name: (identifier) @reference.call))
(qualified_identifier scope: (namespace_identifier) @qualifier name: (type_identifier) @reference.type)

; Scopes C does not have.
[(for_range_loop) (lambda_expression)] @local.scope
