; JavaScript and TypeScript alike (both query lists name this file): imports, references and locals.

; Imports: @import (or @reexport for `export … from`) on the statement, @module on the module it names;
; @import.name (and @import.alias) for a named import, @import.default, @import.namespace, @import.all for `export *`.
; A named import's or export's match ends at its name: one waiting for the `source` after the list costs the square of
; the list's length (a bundle's `export {…2,000 names…}`: seconds). It takes the module of the statement's match with @module.
(import_statement (import_clause (named_imports (import_specifier name: (_) @import.name alias: (_)? @import.alias)))) @import
(import_statement (import_clause (identifier) @import.default) source: (string (string_fragment) @module)) @import
(import_statement (import_clause (namespace_import (identifier) @import.namespace)) source: (string (string_fragment) @module)) @import
(import_statement source: (string (string_fragment) @module)) @import
(export_statement (export_clause (export_specifier name: (_) @import.name alias: (_)? @import.alias))) @reexport
(export_statement (namespace_export (identifier) @import.namespace) source: (string (string_fragment) @module)) @reexport
(export_statement "*" @import.all source: (string (string_fragment) @module)) @reexport
(export_statement source: (string (string_fragment) @module)) @reexport
; A bare `export { a, b as c }` (@export.local): where `a` is imported, the file passes it on as `export … from` would.
(export_statement (export_clause (export_specifier name: (_) @export.name alias: (_)? @export.alias)) !source) @export.local
(variable_declarator name: (identifier) @import.namespace value: (call_expression function: (identifier) @_require arguments: (arguments . (string (string_fragment) @module))) (#eq? @_require "require")) @import
; `const {a, b} = require('m')`: each name's match ends at the name (as named imports do), the module is the declaration's.
(variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @import.name)) @import
(variable_declarator name: (object_pattern) value: (call_expression function: (identifier) @_require arguments: (arguments . (string (string_fragment) @module))) (#eq? @_require "require")) @import
(call_expression function: (identifier) @_require arguments: (arguments . (string (string_fragment) @module)) (#eq? @_require "require")) @import
; The file's default export (@export.default: the name of the definition it exports as `default`).
(export_statement "default" value: (identifier) @export.default)
(export_statement "default" declaration: [(class_declaration name: (_) @export.default) (function_declaration name: (_) @export.default) (generator_function_declaration name: (_) @export.default)])

; References: @reference.<kind> (call, type, write, read) on a used name; @qualifier on the object of a member access;
; @call.arguments on a call's arguments (how many: which of overloaded signatures the call takes).
(call_expression function: (identifier) @reference.call arguments: (_) @call.arguments)
(call_expression function: (member_expression object: (_) @qualifier property: [(property_identifier) (private_property_identifier)] @reference.call) arguments: (_) @call.arguments)
(new_expression constructor: (identifier) @reference.call arguments: (_)? @call.arguments)
(new_expression constructor: (member_expression object: (_) @qualifier property: (property_identifier) @reference.call) arguments: (_)? @call.arguments)
(member_expression object: (_) @qualifier property: [(property_identifier) (private_property_identifier)] @reference.read)
(assignment_expression left: (identifier) @reference.write)
(identifier) @reference.read
(shorthand_property_identifier) @reference.read
; Property keys, also uses of a member (with @member: of an object whose type the file does not say).
(pair key: (property_identifier) @reference.write @member)
(shorthand_property_identifier) @reference.write @member
(object_pattern (shorthand_property_identifier_pattern) @reference.read @member)
(pair_pattern key: (property_identifier) @reference.read @member)
; A destructured key, with @receiver.declaration on the declaration whose value is destructured: a member of its type
; (`const {a} = this.opts`). The value is not captured after the keys: each key's match would wait for it.
(variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @reference.read @member)) @receiver.declaration
(variable_declarator name: (object_pattern (pair_pattern key: (property_identifier) @reference.read @member))) @receiver.declaration

; Locals: @local.scope opens a scope, @local.definition declares a name in the innermost one (a use of it there is not a reference).
[(function_declaration) (function_expression) (arrow_function) (method_definition) (generator_function_declaration) (generator_function)
 (statement_block) (for_statement) (for_in_statement) (catch_clause)] @local.scope
(arrow_function parameter: (identifier) @local.definition)
(variable_declarator name: (identifier) @local.definition)
(object_pattern (shorthand_property_identifier_pattern) @local.definition)
(pair_pattern value: (identifier) @local.definition)
(array_pattern (identifier) @local.definition)
(rest_pattern (identifier) @local.definition)
(catch_clause parameter: (identifier) @local.definition)
(for_in_statement left: (identifier) @local.definition)

; Receiver types: @binding.local on a variable whose type the file says (@binding.name; @binding.type the type, or
; @binding.from another local name whose type it takes), @binding.field on a field of the class around it (`this.name`).
(variable_declarator name: (identifier) @binding.name value: (new_expression constructor: (_) @binding.type)) @binding.local
(assignment_expression left: (member_expression object: (this) property: [(property_identifier) (private_property_identifier)] @binding.name) right: (new_expression constructor: (_) @binding.type)) @binding.field
(assignment_expression left: (member_expression object: (this) property: [(property_identifier) (private_property_identifier)] @binding.name) right: (identifier) @binding.from) @binding.field
; What an expression gives (@binding.value): a call's declared result (`const x = f()`, `= this.load()`, `= await
; a.get()`), a member's declared type (`const d = this.def`), another name's type (`const y = x`); an element of
; another local (@binding.element: `for (const x of xs)`).
(variable_declarator name: (identifier) @binding.name value: [(call_expression) (member_expression) (await_expression) (parenthesized_expression) (identifier) (this)] @binding.value) @binding.local
(assignment_expression left: (member_expression object: (this) property: [(property_identifier) (private_property_identifier)] @binding.name) right: [(call_expression) (member_expression) (await_expression)] @binding.value) @binding.field
(for_in_statement left: (identifier) @binding.name "of" right: (identifier) @binding.element) @binding.local
; A default (`const p = given || fallback`, `?? fallback`): the type of what it prefers.
(variable_declarator name: (identifier) @binding.name value: (binary_expression left: [(call_expression) (member_expression) (identifier)] @binding.value operator: ["||" "??"])) @binding.local
; `this` in an object literal's method: the literal (@binding.literal), whose members are the definition's around it.
(object (method_definition) @binding.local) @binding.literal
; A destructured name is the member it is taken from (@binding.key): `const {gen, it} = cxt`, `const {a: b} = x`.
; (@binding.declaration: the value is the declaration's, not captured after the names: each name's match would wait for it.)
(variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @binding.name @binding.key)) @binding.local @binding.declaration
(variable_declarator name: (object_pattern (pair_pattern key: (property_identifier) @binding.key value: (identifier) @binding.name))) @binding.local @binding.declaration

; Documentation: @doc on a comment, whose `{@link Name}` tags are uses of the names they link to.
((comment) @doc (#match? @doc "@link"))
