import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ConnectionGuard, refuseBody } from './connection-guard.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ConnectionGuard', () => {
  let server: Server;
  let guard: ConnectionGuard;
  const waiting: Array<() => void> = [];
  const sockets: Socket[] = [];

  before(async () => {
    server = createServer((req, res) => {
      guard.request(req, res);
      if (req.url === '/slow') waiting.push(() => res.end('slow'));
      else if (req.url === '/refuse') {
        refuseBody(req, res);
        res.statusCode = 413;
        res.end('too large');
      }
      else if (req.url === '/vouch') {
        guard.vouch(req.socket);
        res.end('vouched');
      } else res.end('ok');
    });
    guard = new ConnectionGuard({ maxConnections: 4, maxConnectionsPerIp: 1_000 });
    guard.install(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const port = () => (server.address() as AddressInfo).port;
  /** A connection that sends `request` (if any) and records whether the server closed it. */
  async function open(request?: string): Promise<{ socket: Socket; closed: () => boolean; answer: () => string }> {
    const socket = connect(port(), '127.0.0.1');
    sockets.push(socket);
    let closed = false;
    let answer = '';
    socket.on('close', () => (closed = true));
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    await new Promise((resolve) => socket.once('connect', resolve));
    if (request) socket.write(`GET ${request} HTTP/1.1\r\nHost: x\r\n\r\n`);
    await sleep(30);
    return { socket, closed: () => closed, answer: () => answer };
  }

  it('at the cap, closes the least recently active idle connection, strangers before vouched ones, never a busy one', async () => {
    const busy = await open('/slow'); // a request in hand
    const vouched = await open('/vouch'); // idle, carried credentials
    const first = await open(); // idle strangers
    const second = await open();
    assert.equal(guard.size, 4);
    const third = await open();
    assert.deepEqual(
      [busy.closed(), vouched.closed(), first.closed(), second.closed(), third.closed()],
      [false, false, true, false, false],
    );
    const fourth = await open();
    assert.deepEqual([vouched.closed(), second.closed(), third.closed(), fourth.closed()], [false, true, false, false]);
    // Two more requests in hand: the strangers go first, then the vouched one, the only idle connection left.
    const slow = [await open('/slow'), await open('/slow')];
    assert.deepEqual([vouched.closed(), third.closed(), fourth.closed()], [false, true, true]);
    const last = await open();
    assert.deepEqual([busy.closed(), vouched.closed(), ...slow.map((s) => s.closed()), last.closed()], [false, true, false, false, false]);
    for (const answer of waiting.splice(0)) answer();
    await sleep(30);
    assert.match(busy.answer(), /slow$/);
    for (const s of sockets) s.destroy();
    await sleep(30);
    assert.equal(guard.size, 0);
  });

  it('refuses a new connection when every open one is busy', async () => {
    const held = [];
    for (let i = 0; i < 4; i++) held.push(await open('/slow'));
    const late = await open();
    assert.equal(late.closed(), true);
    assert.equal(held.filter((h) => h.closed()).length, 0);
    for (const answer of waiting.splice(0)) answer();
    for (const s of sockets) s.destroy();
    await sleep(30);
  });

  it('closes a connection whose request was answered before its body arrived, however slowly the body still comes', async () => {
    const socket = connect(port(), '127.0.0.1');
    sockets.push(socket);
    socket.on('error', () => undefined);
    const start = performance.now();
    socket.write('POST /livez HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n');
    const trickle = setInterval(() => socket.write(' '), 100);
    await new Promise((resolve) => socket.on('close', resolve));
    clearInterval(trickle);
    assert.ok(performance.now() - start < 2_000);
  });

  it('refusing a body it has not read, keeps reading what the client still sends for a while, so the client gets the answer, not a reset', async () => {
    const socket = connect({ port: port(), host: '127.0.0.1', allowHalfOpen: true });
    sockets.push(socket);
    let answer = '';
    let failed: Error | undefined;
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('error', (error) => (failed = error));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n');
    await new Promise((resolve) => socket.once('end', resolve)); // the answer is in and the server's side closed
    assert.match(answer, /^HTTP\/1\.1 413 .*\r\nConnection: close\r\n/is);
    // A client sending its body in one go is still writing: its data must not meet a closed socket.
    for (let i = 0; i < 20; i++) {
      socket.write(Buffer.alloc(32 * 1024, 120));
      await sleep(10);
    }
    assert.equal(failed, undefined, `the client's writes failed: ${failed?.message}`);
    socket.destroy();
  });
});

