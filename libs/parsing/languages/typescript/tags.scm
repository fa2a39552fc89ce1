; TypeScript (and TSX): definitions, supertypes, type references and parameters; imports, the other
; references and locals are in ../javascript/imports-references.scm, which language.json lists after this file.
; Definitions: @definition.<kind> on the node, @name on its name.

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


; Supertypes: @supertype on a type a class or interface extends, @implements on one a class implements (the enclosing definition's).
(class_heritage (extends_clause value: (_) @supertype))
(class_heritage (implements_clause (_) @implements))
(extends_type_clause type: (_) @supertype)
; A type alias's value (@alias): the named types of its unions and intersections are what the alias stands for.
(type_alias_declaration value: (_) @alias)
(export_statement "default" declaration: (abstract_class_declaration name: (_) @export.default))

; Type references: @reference.type on a used type name; @qualifier on its namespace.
(nested_type_identifier module: (_) @qualifier name: (type_identifier) @reference.type)
(type_identifier) @reference.type

; Parameters: @local.definition in the function's scope (@local.scope, ../javascript/imports-references.scm); a
; signature's parameters in the signature's own.
[(method_signature) (abstract_method_signature) (function_signature) (function_type) (call_signature) (construct_signature)] @local.scope
(required_parameter pattern: (identifier) @local.definition)
(optional_parameter pattern: (identifier) @local.definition)

; Receiver types: @binding.local on a parameter or variable whose type the file says (@binding.name; @binding.type the
; type), @binding.field on a field of the class around it (`this.name`); the JavaScript file adds `new` and `this.x = y`.
(required_parameter pattern: (identifier) @binding.name type: (type_annotation (_) @binding.type)) @binding.local
(required_parameter pattern: (this) @binding.name type: (type_annotation (_) @binding.type)) @binding.local
; A destructured parameter's names are members of its type (`function f({gen, opts}: Cxt)`), and so are its keys. The
; type is the parameter's (@binding.declaration, @receiver.declaration), not captured after the names: each name's match
; would wait for it.
(required_parameter pattern: (object_pattern (shorthand_property_identifier_pattern) @binding.name @binding.key)) @binding.local @binding.declaration
(required_parameter pattern: (object_pattern (pair_pattern key: (property_identifier) @binding.key value: (identifier) @binding.name))) @binding.local @binding.declaration
(required_parameter pattern: (object_pattern (shorthand_property_identifier_pattern) @reference.read @member)) @receiver.declaration
(required_parameter pattern: (object_pattern (pair_pattern key: (property_identifier) @reference.read @member))) @receiver.declaration
(optional_parameter pattern: (identifier) @binding.name type: (type_annotation (_) @binding.type)) @binding.local
(variable_declarator name: (identifier) @binding.name type: (type_annotation (_) @binding.type)) @binding.local
(required_parameter (accessibility_modifier) pattern: (identifier) @binding.name type: (type_annotation (_) @binding.type)) @binding.field
(optional_parameter (accessibility_modifier) pattern: (identifier) @binding.name type: (type_annotation (_) @binding.type)) @binding.field
(public_field_definition name: [(property_identifier) (private_property_identifier)] @binding.name type: (type_annotation (_) @binding.type)) @binding.field
(public_field_definition name: [(property_identifier) (private_property_identifier)] @binding.name value: (new_expression constructor: (_) @binding.type)) @binding.field
; What a TypeScript-only expression gives (../javascript/imports-references.scm has the others): `x!`, `x as T`.
(variable_declarator name: (identifier) @binding.name value: [(non_null_expression) (as_expression)] @binding.value) @binding.local
; An object literal's key, with @receiver on the type the literal is declared, asserted or checked as: a member of that type.
(variable_declarator type: (type_annotation (_) @receiver) value: (object (pair key: (property_identifier) @reference.write @member)))
(variable_declarator type: (type_annotation (_) @receiver) value: (object (shorthand_property_identifier) @reference.write @member))
(satisfies_expression (object (pair key: (property_identifier) @reference.write @member)) (_) @receiver)
(as_expression (object (pair key: (property_identifier) @reference.write @member)) (_) @receiver)
; An object literal a function returns (`return {…}` in its body, `=> ({…})`), with @receiver.result on the result the
; function declares: a member of that type (of `T`, for a `Promise<T>`).
(function_declaration return_type: (type_annotation (_) @receiver.result) body: (statement_block (return_statement (object (pair key: (property_identifier) @reference.write @member)))))
(function_declaration return_type: (type_annotation (_) @receiver.result) body: (statement_block (return_statement (object (shorthand_property_identifier) @reference.write @member))))
(function_expression return_type: (type_annotation (_) @receiver.result) body: (statement_block (return_statement (object (pair key: (property_identifier) @reference.write @member)))))
(function_expression return_type: (type_annotation (_) @receiver.result) body: (statement_block (return_statement (object (shorthand_property_identifier) @reference.write @member))))
(method_definition return_type: (type_annotation (_) @receiver.result) body: (statement_block (return_statement (object (pair key: (property_identifier) @reference.write @member)))))
(method_definition return_type: (type_annotation (_) @receiver.result) body: (statement_block (return_statement (object (shorthand_property_identifier) @reference.write @member))))
(arrow_function return_type: (type_annotation (_) @receiver.result) body: (statement_block (return_statement (object (pair key: (property_identifier) @reference.write @member)))))
(arrow_function return_type: (type_annotation (_) @receiver.result) body: (statement_block (return_statement (object (shorthand_property_identifier) @reference.write @member))))
(arrow_function return_type: (type_annotation (_) @receiver.result) body: (parenthesized_expression (object (pair key: (property_identifier) @reference.write @member))))
(arrow_function return_type: (type_annotation (_) @receiver.result) body: (parenthesized_expression (object (shorthand_property_identifier) @reference.write @member)))

; Declared results: @returns.type on a function's or method's return type, @returns on the definition (what a call gives).
(function_declaration return_type: (type_annotation (_) @returns.type)) @returns
(function_signature return_type: (type_annotation (_) @returns.type)) @returns
(method_definition return_type: (type_annotation (_) @returns.type)) @returns
(method_signature return_type: (type_annotation (_) @returns.type)) @returns
(abstract_method_signature return_type: (type_annotation (_) @returns.type)) @returns
(variable_declarator value: [(arrow_function return_type: (type_annotation (_) @returns.type)) (function_expression return_type: (type_annotation (_) @returns.type))]) @returns
; A property's or field's declared type (what reading it gives: `x.opts.port` with `opts: Options`).
(public_field_definition type: (type_annotation (_) @returns.type)) @returns
(property_signature type: (type_annotation (_) @returns.type)) @returns
; A variable's declared type (`@returns.value`: what reading it gives; an object literal's methods are that type's).
(variable_declarator type: (type_annotation (_) @returns.value)) @returns
