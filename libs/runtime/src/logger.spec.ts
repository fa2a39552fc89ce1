import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { JsonLogger } from './logger.js';

function lines(level: string, write: (logger: JsonLogger) => void): Array<{ level: string; context?: string; msg: unknown }> {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c.toString()));
  write(new JsonLogger('test', level, stream));
  return chunks
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { level: string; context?: string; msg: unknown });
}

describe('JsonLogger', () => {
  it("writes Nest's own start-up lines at debug level, everything else at its own", () => {
    const write = (logger: JsonLogger) => {
      logger.log('GatewayModule dependencies initialized', 'InstanceLoader');
      logger.log('Mapped {/mcp, ALL} route', 'RouterExplorer');
      logger.log('MCP endpoint ready', 'Bootstrap');
      logger.warn('something odd', 'InstanceLoader');
    };
    assert.deepEqual(
      lines('info', write).map((l) => [l.level, l.context]),
      [
        ['info', 'Bootstrap'],
        ['warn', 'InstanceLoader'],
      ],
    );
    assert.deepEqual(
      lines('debug', write).map((l) => l.level),
      ['debug', 'debug', 'info', 'warn'],
    );
  });
});
