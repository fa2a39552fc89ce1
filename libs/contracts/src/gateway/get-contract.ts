import { z } from 'zod';
import { defineTool } from '../tool.js';

export const Request = z.strictObject({
  contract_id: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(200)
    .describe('Contract id, e.g. "tools" or "errors" (also accepts "tools.md" or "contract/tools.md").'),
});
export type Request = z.output<typeof Request>;
export const Response = z.object({
  contract_id: z.string(),
  uri: z.string(),
  mimeType: z.literal('text/markdown'),
  text: z.string(),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'get_contract',
  title: 'Get a contract document',
  description: 'Return one contract document (the same text as resource contract/<id>.md), e.g. "tools" or "errors".',
  service: 'gateway',
  subject: null,
  input: Request,
  output: Response,
});
