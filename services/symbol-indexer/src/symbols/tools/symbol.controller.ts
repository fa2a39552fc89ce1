import { Controller } from '@nestjs/common';
import {
  AnalyzeChangeImpact,
  FindReferences,
  FindRelatedSymbols,
  GetCodeContext,
  GetFileOutline,
  GetSymbolHierarchy,
  ListRecentFiles,
  LocateSymbol,
  SearchDependencies,
  ValidateImplementationSpec,
} from '@sextant/contracts';
import { ToolHandler } from '@sextant/messaging';
import { DependencyService } from './dependency.service.js';
import { SymbolService } from './symbol.service.js';

/** Thin bus adapter: one method per tool; `@ToolHandler` validates with the tool's contract. */
@Controller()
export class SymbolController {
  constructor(
    private readonly symbols: SymbolService,
    private readonly files: DependencyService,
  ) {}

  @ToolHandler(LocateSymbol)
  locate(input: LocateSymbol.Request): Promise<LocateSymbol.Response> {
    return this.symbols.locate(input);
  }

  @ToolHandler(GetFileOutline)
  outline(input: GetFileOutline.Request): Promise<GetFileOutline.Response> {
    return this.symbols.outline(input);
  }

  @ToolHandler(FindReferences)
  references(input: FindReferences.Request): Promise<FindReferences.Response> {
    return this.symbols.references(input);
  }

  @ToolHandler(GetSymbolHierarchy)
  hierarchy(input: GetSymbolHierarchy.Request): Promise<GetSymbolHierarchy.Response> {
    return this.symbols.hierarchy(input);
  }

  @ToolHandler(FindRelatedSymbols)
  related(input: FindRelatedSymbols.Request): Promise<FindRelatedSymbols.Response> {
    return this.symbols.related(input);
  }

  @ToolHandler(GetCodeContext)
  context(input: GetCodeContext.Request): Promise<GetCodeContext.Response> {
    return this.symbols.context(input);
  }

  @ToolHandler(SearchDependencies)
  dependencies(input: SearchDependencies.Request): Promise<SearchDependencies.Response> {
    return this.files.dependencies(input);
  }

  @ToolHandler(AnalyzeChangeImpact)
  impact(input: AnalyzeChangeImpact.Request): Promise<AnalyzeChangeImpact.Response> {
    return this.files.impact(input);
  }

  @ToolHandler(ValidateImplementationSpec)
  validate(input: ValidateImplementationSpec.Request): Promise<ValidateImplementationSpec.Response> {
    return this.files.validate(input);
  }

  @ToolHandler(ListRecentFiles)
  recent(input: ListRecentFiles.Request): Promise<ListRecentFiles.Response> {
    return this.files.recent(input);
  }
}
