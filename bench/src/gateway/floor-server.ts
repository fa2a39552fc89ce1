/**
 * The floor of bench/gateway: the MCP SDK alone, stateless Streamable HTTP
 * exactly as the SDK documents it (a fresh Server and transport per request,
 * JSON responses), answering `get_project` inside the handler. Whatever
 * Sextant adds on top (routing, validation, the bus, a database) is measured
 * against this.
 */
import express from 'express';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const project = {
  id: '00000000-0000-4000-8000-000000000000',
  name: 'bench',
  description: null,
  repository_ids: [],
  repository_count: 0,
  created_at: new Date(0).toISOString(),
  updated_at: new Date(0).toISOString(),
};
const tools = [{ name: 'get_project', inputSchema: { type: 'object' as const, properties: { project: { type: 'string' } } } }];

const app = express();
app.use(express.json());
app.post('/mcp', async (req, res) => {
  const server = new Server({ name: 'floor', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async () => {
    const body = { project, metadata: { execution_time_ms: 0, request_id: 'r', trace_id: 't' } };
    return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
});
const listener = app.listen(0, '127.0.0.1', () => {
  const { port } = listener.address() as { port: number };
  process.stdout.write(`MCP gateway at http://127.0.0.1:${port}/mcp\n`);
});
