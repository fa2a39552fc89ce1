/**
 * The slow client of `startSlowloris`, in a process of its own (so the
 * sockets' file descriptors and event-loop time are not the measuring
 * process's). argv[2]: its options as JSON. Prints one line of JSON with its
 * counts when done; stops by itself after `durationMs`.
 */
import { connect, type Socket } from 'node:net';
import type { SlowlorisOptions, SlowlorisReport } from './slowloris.js';

const options = JSON.parse(process.argv[2]) as Required<SlowlorisOptions>;
const { hostname, port } = new URL(options.url);
const host = `${hostname}:${port}`;
const deadline = Date.now() + options.durationMs;
const report: SlowlorisReport = { opened: 0, refused: 0, answered: 0, closedByServer: 0, maxOpen: 0, statuses: {} };
const open = new Set<Socket>();

function slot(i: number): void {
  if (Date.now() >= deadline) return;
  const slowHeaders = i % 2 === 1 && options.slowHeaders;
  const socket = connect({ host: hostname, port: Number(port) });
  let ticker: NodeJS.Timeout | undefined;
  let head = '';
  socket.setNoDelay(true);
  socket.on('connect', () => {
    report.opened++;
    open.add(socket);
    report.maxOpen = Math.max(report.maxOpen, open.size);
    socket.write(
      slowHeaders
        ? `POST /mcp HTTP/1.1\r\nHost: ${host}\r\n`
        : `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
            `Content-Length: ${options.contentLength}\r\n\r\n`,
    );
    // A byte at a time: of a header that never ends, or of the body.
    ticker = setInterval(() => socket.write(slowHeaders ? 'x' : ' '), options.byteEveryMs);
  });
  let counted = false;
  socket.on('data', (chunk: Buffer) => {
    if (counted) return;
    head += chunk.toString('latin1');
    const status = /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1];
    if (status || head.length > 64) counted = true;
    if (status) {
      report.answered++;
      report.statuses[status] = (report.statuses[status] ?? 0) + 1;
    }
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    clearInterval(ticker);
    if (open.delete(socket)) report.closedByServer += Date.now() < deadline ? 1 : 0;
    else report.refused++;
    // As an attacker does: open another one (after a pause, so the loop stays bounded).
    if (Date.now() < deadline) setTimeout(() => slot(i), options.reconnectMs + Math.random() * options.reconnectMs).unref();
  });
}

for (let i = 0; i < options.sockets; i++) setTimeout(() => slot(i), (i * options.rampMs) / options.sockets);
setTimeout(() => {
  for (const socket of open) socket.destroy();
  process.stdout.write(`${JSON.stringify(report)}\n`);
  process.exit(0);
}, options.durationMs + 100);
