import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { directToolCall, toolCallError, toolCallResponse } from './direct-tool-call.js';

describe('direct tools/call', () => {
  it('recognizes a single plain tools/call', () => {
    assert.deepEqual(directToolCall({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'x', arguments: { a: 1 } } }), {
      id: 3,
      name: 'x',
      arguments: { a: 1 },
    });
    assert.deepEqual(directToolCall({ jsonrpc: '2.0', id: 'r', method: 'tools/call', params: { name: 'x', _meta: { trace: 1 } } }), {
      id: 'r',
      name: 'x',
      arguments: undefined,
    });
    // A call asking for progress may stream notifications: it goes to the SDK path (SSE).
    assert.equal(directToolCall({ jsonrpc: '2.0', id: 'r', method: 'tools/call', params: { name: 'x', _meta: { progressToken: 1 } } }), undefined);
  });

  it('leaves everything else to the SDK', () => {
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } };
    for (const other of [
      [call],
      { ...call, method: 'tools/list' },
      { ...call, jsonrpc: '1.0' },
      { ...call, id: undefined },
      { ...call, id: null },
      { ...call, id: 1.5 },
      { ...call, id: '' },
      { ...call, params: undefined },
      { ...call, params: { name: 7 } },
      { ...call, params: { name: 'x', arguments: [1] } },
      { ...call, params: { name: 'x', arguments: 'a' } },
      { ...call, params: { name: 'x', task: { ttl: 1 } } },
      { ...call, params: { name: 'x', _meta: 'm' } },
      null,
      'tools/call',
    ]) {
      assert.equal(directToolCall(other), undefined, JSON.stringify(other));
    }
  });

  it('writes the result with structuredContent equal to its text, and errors as the SDK does', () => {
    const body = { a: 'q"uote', n: [1, 2] };
    const text = JSON.stringify(body);
    const ok = JSON.parse(toolCallResponse(9, { content: [{ type: 'text', text }], structuredContent: body }));
    assert.deepEqual(ok, { result: { content: [{ type: 'text', text }], structuredContent: body }, jsonrpc: '2.0', id: 9 });
    const failed = JSON.parse(toolCallResponse('x', { content: [{ type: 'text', text }], structuredContent: body, isError: true }));
    assert.equal(failed.result.isError, true);
    assert.deepEqual(JSON.parse(toolCallError(1, new McpError(-32602, 'Unknown tool: y'))), {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'MCP error -32602: Unknown tool: y' },
    });
    assert.deepEqual(JSON.parse(toolCallError(1, new Error('secret path /srv'))), {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32603, message: 'Internal error' },
    });
  });
});
