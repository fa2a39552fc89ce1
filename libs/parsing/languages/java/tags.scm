; Java: definitions, supertypes, imports, references and locals, in that order.
; Definitions: @definition.<kind> on the node, @name on its name.

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.constant
(enum_constant name: (identifier) @name) @definition.constant

; Supertypes: @supertype on a class a class extends (or an interface an interface extends), @implements on an implemented interface.
(superclass (_) @supertype)
(super_interfaces (type_list (_) @implements))
(extends_interfaces (type_list (_) @supertype))

; Imports: @import on the declaration, @module on the imported name; @import.name for the class it binds.
(import_declaration (scoped_identifier name: (identifier) @import.name) @module) @import
(import_declaration (scoped_identifier) @module) @import

; References: @reference.<kind> on a used name; @qualifier on the object of a member access; @skip on a name that is no use.
(method_invocation object: (_) @qualifier name: (identifier) @reference.call)
(method_invocation name: (identifier) @reference.call)
(object_creation_expression type: (type_identifier) @reference.call)
(field_access object: (_) @qualifier field: (identifier) @reference.read)
(assignment_expression left: (identifier) @reference.write)
(type_identifier) @reference.type
(identifier) @reference.read
; Package paths are names of no definition: each part but an import's last is skipped.
(scoped_identifier scope: (identifier) @skip)
(scoped_identifier scope: (scoped_identifier name: (identifier) @skip))
(package_declaration (scoped_identifier name: (identifier) @skip))
(package_declaration (identifier) @skip)

; Locals: @local.scope opens a scope, @local.definition declares a name in the innermost one.
[(method_declaration) (constructor_declaration) (lambda_expression) (block) (for_statement) (enhanced_for_statement) (catch_clause)] @local.scope
(formal_parameter name: (identifier) @local.definition)
(spread_parameter (variable_declarator name: (identifier) @local.definition))
(local_variable_declaration declarator: (variable_declarator name: (identifier) @local.definition))
(enhanced_for_statement name: (identifier) @local.definition)
(catch_formal_parameter name: (identifier) @local.definition)
(lambda_expression parameters: (identifier) @local.definition)
(inferred_parameters (identifier) @local.definition)
