import { Injectable } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LOCAL_PRINCIPAL, type Principal } from '@sextant/contracts';
import { SEXTANT_VERSION } from '@sextant/runtime';
import { ContractDocuments } from '../contracts/contract-documents.js';
import { guardParams } from './request-params.js';
import { ToolDispatcher } from './tool-dispatcher.js';

/** JSON-RPC code MCP uses for an unknown resource. */
const RESOURCE_NOT_FOUND = -32002;

const INSTRUCTIONS =
  "Sextant answers questions about the organization's code. Tools return JSON (structuredContent and text). " +
  'Failures carry {error, message, details}; `details.fields` names bad arguments. Contracts: resources contract/*.md.';

/**
 * Builds the MCP `Server` with Sextant's handlers. Streamable HTTP is
 * stateless, so the controller builds one per request; stdio builds one per process.
 */
/** `stdio`: the local, trusted transport; `principal`: the authenticated HTTP caller (stdio: the local user). */
interface ServerOptions {
  stdio: boolean;
  principal?: Principal;
  /** False: the caller's query text stays out of the audit trail. */
  auditQuery?: boolean;
}

@Injectable()
export class McpServerFactory {
  // The SDK builds an Ajv instance per Server unless given one (~0.5 ms a request);
  // Sextant validates with zod, so one shared instance serves every request.
  private readonly validator = new AjvJsonSchemaValidator();

  constructor(
    private readonly dispatcher: ToolDispatcher,
    private readonly documents: ContractDocuments,
  ) {}

  /**
   * A server connected to `transport`, with requests whose params are invalid
   * answered -32602 in one line. `stdio`: one long-lived client, which also
   * gets the progress of jobs it started without asking (ADR 0016).
   */
  async connect(transport: Transport, options: ServerOptions): Promise<Server> {
    const server = this.create(options);
    await server.connect(transport);
    guardParams(transport);
    return server;
  }

  create(options: ServerOptions): Server {
    const server = new Server(
      { name: 'sextant', title: 'Sextant', version: SEXTANT_VERSION },
      {
        capabilities: { tools: { listChanged: false }, resources: {}, prompts: {} },
        instructions: INSTRUCTIONS,
        jsonSchemaValidator: this.validator,
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.dispatcher.listTools(options.principal ?? LOCAL_PRINCIPAL) }));
    server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      this.dispatcher.call(request.params.name, request.params.arguments, {
        channel: {
          token: request.params._meta?.progressToken,
          send: (params) => extra.sendNotification({ method: 'notifications/progress', params }),
          signal: extra.signal,
          background: options.stdio,
        },
        principal: options.principal ?? LOCAL_PRINCIPAL,
        auditQuery: options.auditQuery,
      }),
    );
    server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: this.documents.list() }));
    server.setRequestHandler(ReadResourceRequestSchema, (request) => {
      const document = this.documents.read(request.params.uri);
      if (!document) throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${request.params.uri}`, { uri: request.params.uri });
      return { contents: [{ uri: document.info.uri, mimeType: document.info.mimeType, text: document.text }] };
    });
    server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [] }));
    return server;
  }
}
