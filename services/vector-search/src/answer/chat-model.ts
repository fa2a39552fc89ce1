import { ServiceError } from '@sextant/work';
import { EndpointUnreachable, endpointOf, postJson } from '../openai-endpoint.js';

/** An evidence as the model sees it: numbered from 1. */
export interface NumberedEvidence {
  n: number;
  repo: string;
  path: string;
  startLine: number;
  endLine: number;
  snippet: string;
}

/** The chat-model port of ask_code: a question and its evidence in, an answer that cites evidence by number out. */
export interface ChatModel {
  readonly model: string;
  answer(question: string, evidences: readonly NumberedEvidence[]): Promise<string>;
}

const SYSTEM = [
  'You answer questions about a codebase using only the numbered evidence given (code excerpts with their repository, path and lines).',
  'Cite the evidence you use as [1], [2] … right after the statement it supports. Cite nothing else.',
  'If the evidence does not answer the question, say so plainly. Do not invent code, files or behaviour.',
].join(' ');

/**
 * Any OpenAI-compatible chat completions endpoint (OpenAI, Ollama, vLLM …):
 * `LLM_URL` is its base (`…/v1`) or the full `…/chat/completions` URL.
 * Temperature 0; one attempt within a time budget (ask_code falls back to
 * an extractive answer when it fails).
 */
export class OpenAiChatModel implements ChatModel {
  private readonly endpoint: string;

  constructor(private readonly options: { url: string; model: string; apiKey: string | undefined; timeoutMs: number }) {
    this.endpoint = endpointOf(options.url, 'chat/completions');
  }

  get model(): string {
    return this.options.model;
  }

  async answer(question: string, evidences: readonly NumberedEvidence[]): Promise<string> {
    const context = evidences.map((e) => `[${e.n}] ${e.repo}:${e.path}:${e.startLine}-${e.endLine}\n${e.snippet}`).join('\n\n');
    let response: Response;
    try {
      response = await postJson(
        this.endpoint,
        this.options.apiKey,
        {
          model: this.options.model,
          temperature: 0,
          messages: [
            { role: 'system', content: SYSTEM },
            { role: 'user', content: `Evidence:\n\n${context}\n\nQuestion: ${question}` },
          ],
        },
        this.options.timeoutMs,
      );
    } catch (error) {
      if (!(error instanceof EndpointUnreachable)) throw error;
      throw ServiceError.of(
        error.timedOut ? 'timeout' : 'unavailable',
        `the model endpoint ${error.timedOut ? `did not answer within ${this.options.timeoutMs} ms` : 'could not be reached'}`,
      );
    }
    if (!response.ok) throw ServiceError.of('api_error', `the model endpoint answered ${response.status}`);
    const body = (await response.json().catch(() => undefined)) as { choices?: Array<{ message?: { content?: unknown } }> } | undefined;
    const content = body?.choices?.[0]?.message?.content;
    if (typeof content !== 'string' || !content.trim()) throw ServiceError.of('api_error', 'the model endpoint answered without a message');
    return content.trim();
  }
}
