import { Controller } from '@nestjs/common';
import { FindReferences, GetFileOutline, LocateSymbol } from '@sextant/contracts';
import { ToolHandler } from '@sextant/messaging';
import { SymbolService } from './symbol.service.js';

/** Thin bus adapter: one method per tool; `@ToolHandler` validates with the tool's contract. */
@Controller()
export class SymbolController {
  constructor(private readonly service: SymbolService) {}

  @ToolHandler(LocateSymbol)
  locate(input: LocateSymbol.Request): Promise<LocateSymbol.Response> {
    return this.service.locate(input);
  }

  @ToolHandler(GetFileOutline)
  outline(input: GetFileOutline.Request): Promise<GetFileOutline.Response> {
    return this.service.outline(input);
  }

  @ToolHandler(FindReferences)
  references(input: FindReferences.Request): Promise<FindReferences.Response> {
    return this.service.references(input);
  }
}
