export { infrastructure, type Infrastructure } from './infra.js';
export { createTestDatabase, queryOnce, type TestDatabase } from './databases.js';
export { freePort, rssBytes, startNode, type RunningProcess, type StartOptions } from './processes.js';
export { READY, startEmbedded, startGateway, startService, type Sextant } from './sextant.js';
export { callTool, httpClient, postRaw, stdioClient, type ErrorBody, type ToolCall } from './mcp.js';
export { FaultProxy } from './tcp-proxy.js';
export { OtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';
export { repoPath } from './paths.js';
