; Python: definitions, imports. Captures: @definition.<kind> on the node, @name on its name;
; @import on an import, @module on the module it names.

(function_definition name: (identifier) @name) @definition.function
(class_definition name: (identifier) @name) @definition.class
(module (expression_statement (assignment left: (identifier) @name) @definition.variable))
(class_definition body: (block (expression_statement (assignment left: (identifier) @name) @definition.field)))

(import_statement name: (dotted_name) @module) @import
(import_statement name: (aliased_import name: (dotted_name) @module)) @import
(import_from_statement module_name: [(dotted_name) (relative_import)] @module) @import
