; Rust: definitions, supertypes, imports, references and locals, in that order.
; Definitions: @definition.<kind> on the node, @name on its name. A function in an `impl` block is a method of the impl's type.

(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(impl_item body: (declaration_list (function_item name: (identifier) @name) @definition.method))
(trait_item body: (declaration_list (function_signature_item name: (identifier) @name) @definition.method))
(trait_item body: (declaration_list (function_item name: (identifier) @name) @definition.method))
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
(mod_item name: (identifier) @name) @definition.module
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable
(macro_definition name: (identifier) @name) @definition.function
(field_declaration name: (field_identifier) @name) @definition.field
(enum_variant name: (identifier) @name) @definition.constant

; Supertypes: @supertype on a trait's supertraits; @impl on an `impl Trait for Type` block (@impl.trait, @impl.type): a type
; of this file implements the trait.
(trait_item bounds: (trait_bounds [(type_identifier) (scoped_type_identifier) (generic_type)] @supertype))
(impl_item trait: (_) @impl.trait type: (_) @impl.type) @impl

; Imports: @import (@reexport for a `pub use` at the top level) on the declaration, @module on what the symbol indexer's
; `rust` resolver reads. A `use`: the path as written up to the name it binds (`crate::a::b::C` binds `C`), or a group's
; path (`crate::a::b` of `use crate::a::b::{C, D as E, self}`, `self` binding its last segment as a namespace); a path
; nested in a group binds nothing (its group's path is kept). A `use` inside an inline module or a block only when it
; starts at `crate` (its `self` and `super` are not the file's module). A `mod name;` at the top level (a module in its
; own file): the whole declaration (`mod name;`, `pub mod name;`), its name bound as a namespace.
(source_file (mod_item !body name: (identifier) @import.namespace) @import @module)
(source_file (use_declaration (visibility_modifier) argument: [
    (identifier) @module
    (scoped_identifier name: (identifier) @import.name) @module
    (use_as_clause path: (identifier) @module alias: (identifier) @import.namespace)
    (use_as_clause path: (scoped_identifier name: (identifier) @import.name) @module alias: (identifier) @import.alias)
    (use_wildcard (_) @module) @import.all
    (scoped_use_list path: (_) @module list: (use_list [(identifier) @import.name (use_as_clause path: (identifier) @import.name alias: (identifier) @import.alias)]))
    (scoped_use_list path: (scoped_identifier name: (identifier) @import.namespace) @module list: (use_list (self)))
    (scoped_use_list path: (_) @module)
    (use_list [(scoped_identifier name: (identifier) @import.name) @module (use_as_clause path: (scoped_identifier name: (identifier) @import.name) @module alias: (identifier) @import.alias)])
  ]) @reexport)
(source_file (use_declaration argument: [
    (identifier) @module
    (scoped_identifier name: (identifier) @import.name) @module
    (use_as_clause path: (identifier) @module alias: (identifier) @import.namespace)
    (use_as_clause path: (scoped_identifier name: (identifier) @import.name) @module alias: (identifier) @import.alias)
    (use_wildcard (_) @module) @import.all
    (scoped_use_list path: (_) @module list: (use_list [(identifier) @import.name (use_as_clause path: (identifier) @import.name alias: (identifier) @import.alias)]))
    (scoped_use_list path: (scoped_identifier name: (identifier) @import.namespace) @module list: (use_list (self)))
    (scoped_use_list path: (_) @module)
    (use_list [(scoped_identifier name: (identifier) @import.name) @module (use_as_clause path: (scoped_identifier name: (identifier) @import.name) @module alias: (identifier) @import.alias)])
  ]) @import (#not-match? @import "^pub"))
(declaration_list (use_declaration argument: [
    (identifier) @module
    (scoped_identifier name: (identifier) @import.name) @module
    (use_as_clause path: (identifier) @module alias: (identifier) @import.namespace)
    (use_as_clause path: (scoped_identifier name: (identifier) @import.name) @module alias: (identifier) @import.alias)
    (use_wildcard (_) @module) @import.all
    (scoped_use_list path: (_) @module list: (use_list [(identifier) @import.name (use_as_clause path: (identifier) @import.name alias: (identifier) @import.alias)]))
    (scoped_use_list path: (scoped_identifier name: (identifier) @import.namespace) @module list: (use_list (self)))
    (scoped_use_list path: (_) @module)
    (use_list [(scoped_identifier name: (identifier) @import.name) @module (use_as_clause path: (scoped_identifier name: (identifier) @import.name) @module alias: (identifier) @import.alias)])
  ]) @import (#match? @module "^crate(::|$)"))
(block (use_declaration argument: [
    (identifier) @module
    (scoped_identifier name: (identifier) @import.name) @module
    (use_as_clause path: (identifier) @module alias: (identifier) @import.namespace)
    (use_as_clause path: (scoped_identifier name: (identifier) @import.name) @module alias: (identifier) @import.alias)
    (use_wildcard (_) @module) @import.all
    (scoped_use_list path: (_) @module list: (use_list [(identifier) @import.name (use_as_clause path: (identifier) @import.name alias: (identifier) @import.alias)]))
    (scoped_use_list path: (scoped_identifier name: (identifier) @import.namespace) @module list: (use_list (self)))
    (scoped_use_list path: (_) @module)
    (use_list [(scoped_identifier name: (identifier) @import.name) @module (use_as_clause path: (scoped_identifier name: (identifier) @import.name) @module alias: (identifier) @import.alias)])
  ]) @import (#match? @module "^crate(::|$)"))
(extern_crate_declaration name: (identifier) @module) @import

; References: @reference.<kind> on a used name; @qualifier on the value or path before it.
(call_expression function: (identifier) @reference.call)
(call_expression function: (field_expression value: (_) @qualifier field: (field_identifier) @reference.call))
(call_expression function: (scoped_identifier path: (_) @qualifier name: (identifier) @reference.call))
(macro_invocation macro: (identifier) @reference.call)
(field_expression value: (_) @qualifier field: (field_identifier) @reference.read)
(scoped_type_identifier path: (_) @qualifier name: (type_identifier) @reference.type)
(type_identifier) @reference.type
(assignment_expression left: (identifier) @reference.write)
(identifier) @reference.read

; Locals: @local.scope opens a scope, @local.definition declares a name in the innermost one.
[(function_item) (closure_expression) (block) (for_expression) (match_arm)] @local.scope
(parameter pattern: (identifier) @local.definition)
(let_declaration pattern: (identifier) @local.definition)
(closure_parameters (identifier) @local.definition)
(for_expression pattern: (identifier) @local.definition)
(tuple_pattern (identifier) @local.definition)
