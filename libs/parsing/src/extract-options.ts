/** Per-language facts the query cannot say (from `language.json`). */
export interface ExtractOptions {
  /** The name an import binds when it names none: Go's package (`lastSegment`), Python's `import a.b` (`module`). */
  moduleAlias?: 'lastSegment' | 'module';
  /** The local name of an import (`import {a as b}`, `import b from`) is also a use of what it imports (TypeScript's reading). */
  importAliasIsUse?: boolean;
  /**
   * Objects every file sees without declaring or importing them (JavaScript's `Object`, `Math`, `JSON`): a member
   * taken from one (`Object.keys`) is theirs, typed by that name, not a member of the index's of unknown type.
   */
  globals?: string[];
  /**
   * Where a method defined outside its type (`@definition.method` with no class around) names the type it belongs to:
   * `receiver`, its `receiver` field's type (Go's `func (s *Server) Start()` → `Server`); `impl`, the type of the
   * `impl` block around it (Rust's `impl Server { fn start() }`). Without it, such a method has no container.
   */
  methodOwner?: 'receiver' | 'impl';
}
