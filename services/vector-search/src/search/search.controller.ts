import { Controller } from '@nestjs/common';
import { AskCode, SearchCode } from '@sextant/contracts';
import { ToolHandler } from '@sextant/messaging';
import { AskService } from '../answer/ask.service.js';
import { SearchService } from './search.service.js';

/** Thin bus adapter: one method per tool; `@ToolHandler` validates with the tool's contract. */
@Controller()
export class SearchController {
  constructor(
    private readonly search: SearchService,
    private readonly asker: AskService,
  ) {}

  @ToolHandler(SearchCode)
  async searchCode(input: SearchCode.Request): Promise<SearchCode.Response> {
    const found = await this.search.find({ ...input, query: input.query!, minScore: input.min_score });
    return {
      results: found.results.map((r) => ({
        repo: r.repo,
        score: Math.round(r.score * 10_000) / 10_000,
        path: r.path,
        startLine: r.startLine,
        endLine: r.endLine,
        snippet: r.content,
        ...(r.symbol ? { symbol: r.symbol } : {}),
        ...(r.language ? { language: r.language } : {}),
        ...(r.commit ? { commit: r.commit } : {}),
      })),
      meta: {
        scope: found.scope,
        topK: input.topK,
        pathPrefix: input.pathPrefix ?? null,
        collection: this.search.collection,
        mode: found.mode,
        ...(found.warnings.length > 0 ? { warnings: found.warnings } : {}),
        freshness: found.freshness,
        embeddings: this.search.embeddings,
        ...(found.lowConfidence ? { low_confidence: true } : {}),
      },
    };
  }

  @ToolHandler(AskCode)
  ask(input: AskCode.Request): Promise<AskCode.Response> {
    return this.asker.ask(input);
  }
}
