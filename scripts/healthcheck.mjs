#!/usr/bin/env node
// The container image's HEALTHCHECK: exit 0 when this container's process is
// ready: GET /readyz (connected to NATS, not stopping) on SEXTANT_PORT for
// the gateway and embedded mode, on SEXTANT_HEALTH_PORT for a service.
const service = process.env.SERVICE ?? 'gateway';
const http = service === 'gateway' || service === 'embedded';
const port = http ? (process.env.SEXTANT_PORT ?? '9100') : process.env.SEXTANT_HEALTH_PORT;
if (!port) {
  console.error(`SERVICE=${service}: SEXTANT_HEALTH_PORT is not set, so there is nothing to probe`);
  process.exit(1);
}
const url = `http://127.0.0.1:${port}/readyz`;
try {
  const res = await fetch(url, { signal: AbortSignal.timeout(2_500) });
  if (!res.ok) console.error(`${url}: ${res.status} ${await res.text()}`);
  process.exit(res.ok ? 0 : 1);
} catch (error) {
  console.error(`${url}: ${error.message}`);
  process.exit(1);
}
