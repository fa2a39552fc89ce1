import { Controller } from '@nestjs/common';
import { VerifyApiKey } from '@sextant/contracts';
import { ToolHandler } from '@sextant/messaging';
import { ApiKeys } from './api-keys.js';

/** The gateway's question about a presented API key (by its SHA-256). */
@Controller()
export class ApiKeysController {
  constructor(private readonly keys: ApiKeys) {}

  @ToolHandler(VerifyApiKey)
  async verify(input: VerifyApiKey.Request): Promise<VerifyApiKey.Response> {
    return { key: await this.keys.verify(input.sha256) };
  }
}
