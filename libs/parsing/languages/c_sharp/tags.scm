; C#: definitions, supertypes, imports, references and locals, in that order.
; Definitions: @definition.<kind> on the node, @name on its name.

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(struct_declaration name: (identifier) @name) @definition.struct
(enum_declaration name: (identifier) @name) @definition.enum
(delegate_declaration name: (identifier) @name) @definition.type
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(property_declaration name: (identifier) @name) @definition.property
(field_declaration (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field
(enum_member_declaration name: (identifier) @name) @definition.constant
(namespace_declaration name: (_) @name) @definition.module

; Supertypes: @supertype on each type of a base list (C# does not say which is the class).
(base_list (_) @supertype)

; Imports: @import on the directive, @module on the namespace it names.
(using_directive (qualified_name) @module) @import
(using_directive (identifier) @module) @import

; References: @reference.<kind> on a used name; @qualifier on the object of a member access; @skip on a name that is no use.
(invocation_expression function: (identifier) @reference.call)
(invocation_expression function: (member_access_expression expression: (_) @qualifier name: (identifier) @reference.call))
(object_creation_expression type: (identifier) @reference.call)
(member_access_expression expression: (_) @qualifier name: (identifier) @reference.read)
(assignment_expression left: (identifier) @reference.write)
(identifier) @reference.read
(using_directive (identifier) @skip)
(using_directive (qualified_name name: (identifier) @skip))
(qualified_name qualifier: (identifier) @skip)
(qualified_name qualifier: (qualified_name name: (identifier) @skip))

; Locals: @local.scope opens a scope, @local.definition declares a name in the innermost one.
[(method_declaration) (constructor_declaration) (lambda_expression) (block) (for_statement) (foreach_statement) (catch_clause)] @local.scope
(parameter name: (identifier) @local.definition)
(local_declaration_statement (variable_declaration (variable_declarator name: (identifier) @local.definition)))
(foreach_statement left: (identifier) @local.definition)
(catch_declaration name: (identifier) @local.definition)
(lambda_expression parameters: (implicit_parameter) @local.definition)
