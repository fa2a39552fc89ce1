; Go: definitions, supertypes, imports, references and locals, in that order.
; Definitions: @definition.<kind> on the node, @name on its name.

(function_declaration name: (identifier) @name) @definition.function
(method_declaration name: (field_identifier) @name) @definition.method
(type_declaration (type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct)
(type_declaration (type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface)
(type_declaration (type_spec name: (type_identifier) @name type: [(type_identifier) (qualified_type) (function_type) (map_type) (slice_type) (array_type) (pointer_type) (channel_type) (generic_type)]) @definition.type)
(type_declaration (type_alias name: (type_identifier) @name) @definition.type)
(method_elem name: (field_identifier) @name) @definition.method
(field_declaration name: (field_identifier) @name) @definition.field
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))


; Supertypes: @supertype on an embedded type of a struct or interface (the enclosing definition's).
(field_declaration_list (field_declaration !name type: (_) @supertype))
(interface_type (type_elem (_) @supertype))
; Imports: @import on the spec, @module on the package path; @import.namespace for a named import, @import.all for a dot
; import (an unnamed import binds the path's last segment: language.json).
(import_spec name: (package_identifier) @import.namespace path: (interpreted_string_literal (interpreted_string_literal_content) @module)) @import
(import_spec name: (dot) @import.all path: (interpreted_string_literal (interpreted_string_literal_content) @module)) @import
(import_spec path: (interpreted_string_literal (interpreted_string_literal_content) @module)) @import

; References: @reference.<kind> on a used name; @qualifier on the operand of a selector (`pkg` in `pkg.Func`).
(call_expression function: (identifier) @reference.call)
(call_expression function: (selector_expression operand: (_) @qualifier field: (field_identifier) @reference.call))
(selector_expression operand: (_) @qualifier field: (field_identifier) @reference.read)
(qualified_type package: (package_identifier) @qualifier name: (type_identifier) @reference.type)
(type_identifier) @reference.type
(assignment_statement left: (expression_list (identifier) @reference.write))
(identifier) @reference.read
; A composite literal's key (`T{Name: v}`), also a use of the field (with @member: of a type the query does not say).
(keyed_element key: (literal_element (identifier) @reference.write @member))

; Locals: @local.scope opens a scope, @local.definition declares a name in the innermost one.
[(function_declaration) (method_declaration) (func_literal) (block) (for_statement) (if_statement) (expression_switch_statement) (type_switch_statement) (method_elem) (function_type)] @local.scope
(parameter_declaration name: (identifier) @local.definition)
(variadic_parameter_declaration name: (identifier) @local.definition)
(short_var_declaration left: (expression_list (identifier) @local.definition))
(var_spec name: (identifier) @local.definition)
(const_spec name: (identifier) @local.definition)
(range_clause left: (expression_list (identifier) @local.definition))
(type_switch_statement alias: (expression_list (identifier) @local.definition))

; Receiver types: @binding.local on a parameter (a method's receiver too) or variable whose type the file says
; (@binding.name, @binding.type: declared, or a composite literal's `T{…}` / `&T{…}`).
(parameter_declaration name: (identifier) @binding.name type: (_) @binding.type) @binding.local
(var_spec name: (identifier) @binding.name type: (_) @binding.type) @binding.local
(short_var_declaration left: (expression_list . (identifier) @binding.name) right: (expression_list . (composite_literal type: (_) @binding.type))) @binding.local
(short_var_declaration left: (expression_list . (identifier) @binding.name) right: (expression_list . (unary_expression operand: (composite_literal type: (_) @binding.type)))) @binding.local
; A composite literal's key, with @receiver on the literal's type: a field of that type.
(composite_literal type: (_) @receiver body: (literal_value (keyed_element key: (literal_element (identifier) @reference.write @member))))
; A range variable or an indexed element holds an element of another local (@binding.element: `for _, tt := range
; tests`, `tt := tests[i]`); what an expression gives (@binding.value): a call's declared result (`u, err := Parse(s)`,
; `c := s.conn()`), a field's declared type (`c := s.conn`), another name's type (`t := s`), an asserted type (`x.(T)`).
(range_clause left: (expression_list (identifier) . (identifier) @binding.name) right: (identifier) @binding.element) @binding.local
(short_var_declaration left: (expression_list . (identifier) @binding.name) right: (expression_list . (index_expression operand: (identifier) @binding.element))) @binding.local
(short_var_declaration left: (expression_list . (identifier) @binding.name) right: (expression_list . [(call_expression) (selector_expression) (identifier) (type_assertion_expression) (parenthesized_expression)] @binding.value)) @binding.local
(var_spec name: (identifier) @binding.name value: (expression_list . [(call_expression) (selector_expression) (identifier) (type_assertion_expression)] @binding.value)) @binding.local
(var_spec name: (identifier) @binding.name value: (expression_list . (composite_literal type: (_) @binding.type))) @binding.local
(var_spec name: (identifier) @binding.name value: (expression_list . (unary_expression operand: (composite_literal type: (_) @binding.type)))) @binding.local
; The keys of a literal whose type is elided (`[]T{{Name: v}}`, `map[K]T{k: {Name: v}}`): fields of the element type.
(composite_literal type: [(slice_type element: (_) @receiver) (array_type element: (_) @receiver) (implicit_length_array_type element: (_) @receiver)] body: (literal_value (literal_element (literal_value (keyed_element key: (literal_element (identifier) @reference.write @member))))))
(composite_literal type: (map_type value: (_) @receiver) body: (literal_value (keyed_element value: (literal_element (literal_value (keyed_element key: (literal_element (identifier) @reference.write @member)))))))
; A struct literal's key is the field only, not a use of a same-named variable (@skip); a map literal's is a value.
(composite_literal type: [(type_identifier) (qualified_type) (generic_type) (struct_type)] body: (literal_value (keyed_element key: (literal_element (identifier) @skip))))
(composite_literal type: [(slice_type) (array_type) (implicit_length_array_type)] body: (literal_value (literal_element (literal_value (keyed_element key: (literal_element (identifier) @skip))))))
(composite_literal type: (map_type) body: (literal_value (keyed_element value: (literal_element (literal_value (keyed_element key: (literal_element (identifier) @skip)))))))

; Declared results: @returns.type on a function's or method's result, @returns on the definition (what a call gives).
(function_declaration result: (_) @returns.type) @returns
(method_declaration result: (_) @returns.type) @returns
(method_elem result: (_) @returns.type) @returns
; A struct field's declared type (what reading it gives: `s.conn.Close()` with `conn *Conn`).
(field_declaration name: (field_identifier) type: (_) @returns.type) @returns
