export { infrastructure, type Infrastructure } from './infra.js';
export { createTestDatabase, queryOnce, type TestDatabase } from './databases.js';
export { cpuMs, freePort, memory, rssBytes, startNode, type RunningProcess, type StartOptions } from './processes.js';
export { embeddedDatabaseUrl, READY, startEmbedded, startGateway, startService, TEST_BUS_SECRET, type Sextant } from './sextant.js';
export {
  callTool,
  httpClient,
  leanCaller,
  postRaw,
  sdkCaller,
  stdioClient,
  type ErrorBody,
  type ToolCall,
  type ToolCaller,
} from './mcp.js';
export { FaultProxy } from './tcp-proxy.js';
export { buildImage, docker, DOCKER, engineMissing, giveToImageUser, nodeImage } from './docker.js';
export { OtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';
export { repoPath } from './paths.js';
export { BareRepository, GitDaemon, HangingServer, createSampleRepository, git, writeTree } from './git.js';
export { startFakeGitHub, type FakeGitHub, type GitHubFault } from './fake-github.js';
export { startFakeEmbeddings, type EmbeddingsFault, type FakeEmbeddings, type FakeEmbeddingsOptions } from './fake-embeddings.js';
export { NatsServer } from './nats-server.js';
export { startFakeQdrant, type FakeQdrant, type FakeQdrantOptions, type QdrantExchange } from './fake-qdrant.js';
export { checkQdrantExchanges } from './qdrant-schema.js';
export { writeTinyEmbeddingModel, type TinyModel } from './tiny-onnx-model.js';
export { TestIdentityProvider, type TokenOptions } from './identity-provider.js';
export { probe, startSlowloris, type Slowloris, type SlowlorisOptions, type SlowlorisReport } from './slowloris.js';
