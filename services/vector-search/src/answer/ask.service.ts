import type { AskCode } from '@sextant/contracts';
import { Logger } from '@nestjs/common';
import type { SearchService } from '../search/search.service.js';
import type { ChatModel, NumberedEvidence } from './chat-model.js';

/** Characters of an evidence's first line quoted in an extractive answer. */
const QUOTE_MAX = 160;

/**
 * ask_code: the best chunks in scope (hybrid search) at or above `minScore`
 * become numbered evidence; a configured chat model answers from them only,
 * else the answer is extractive (where each piece of evidence is and what
 * it starts with). Either way it cites only evidence it was given.
 */
export class AskService {
  private readonly log = new Logger('AskService');

  constructor(
    private readonly search: SearchService,
    private readonly chat: ChatModel | undefined,
  ) {}

  async ask(input: AskCode.Request): Promise<AskCode.Response> {
    const started = performance.now();
    const found = await this.search.find({ ...input, query: input.query!, mode: 'hybrid', topK: input.topK });
    const kept = found.results.filter((r) => r.score >= input.minScore);
    const evidences: NumberedEvidence[] = kept.map((r, i) => ({
      n: i + 1,
      repo: r.repo,
      path: r.path,
      startLine: r.startLine,
      endLine: r.endLine,
      snippet: r.content,
    }));
    const warnings = [...found.warnings];
    let answer: string;
    let llmModel = 'none';
    if (evidences.length === 0) {
      answer = `Nothing indexed in scope answers this: no code scored at least ${input.minScore}.`;
    } else if (this.chat) {
      try {
        answer = citeOnly(await this.chat.answer(input.query!, evidences), evidences);
        llmModel = this.chat.model;
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        this.log.warn(`ask_code: ${reason}; answering extractively`);
        warnings.push(`The language model (${this.chat.model}) failed (${reason}); this answer is extractive.`);
        answer = extractive(input.query!, evidences);
      }
    } else {
      answer = extractive(input.query!, evidences);
    }
    return {
      answer,
      evidences: kept.map((r) => ({
        repo: r.repo,
        score: r.score,
        path: r.path,
        startLine: r.startLine,
        endLine: r.endLine,
        snippet: r.content,
        ...(r.symbol ? { symbol: r.symbol } : {}),
        ...(r.commit ? { commit: r.commit } : {}),
      })),
      meta: {
        scope: found.scope,
        topK: input.topK,
        minScore: input.minScore,
        llmModel,
        collection: this.search.collection,
        totalMatches: found.total,
        contextsUsed: evidences.length,
        elapsedMs: Math.round(performance.now() - started),
        ...(warnings.length > 0 ? { warnings } : {}),
        freshness: found.freshness,
        embeddings: this.search.embeddings,
      },
    };
  }
}

/** Where each piece of evidence is and how it begins: nothing that is not in the evidence. */
export function extractive(question: string, evidences: readonly NumberedEvidence[]): string {
  const lines = evidences.map((e) => {
    const first =
      e.snippet
        .split('\n')
        .find((l) => l.trim())
        ?.trim() ?? '';
    const quoted = first.length > QUOTE_MAX ? `${first.slice(0, QUOTE_MAX - 1)}…` : first;
    return `[${e.n}] ${e.repo}:${e.path}:${e.startLine}-${e.endLine}: ${quoted}`;
  });
  return [
    `The code most relevant to "${question}" (no language model configured: these are the retrieved excerpts, best first):`,
    ...lines,
  ].join('\n');
}

/** A model's answer without citations of evidence it was not given; with a list of sources when it cited none. */
export function citeOnly(answer: string, evidences: readonly NumberedEvidence[]): string {
  const cleaned = answer.replace(/\[(\d+)\]/g, (all, n: string) => (Number(n) >= 1 && Number(n) <= evidences.length ? all : ''));
  if (/\[\d+\]/.test(cleaned)) return cleaned;
  return `${cleaned}\n\nSources: ${evidences.map((e) => `[${e.n}] ${e.path}:${e.startLine}-${e.endLine}`).join(', ')}`;
}
