export { VectorSearchModule, type VectorSearchModuleOptions } from './vector-search.module.js';
export { VectorSearchEnv, loadConfig, type VectorSearchConfig } from './config.js';
export type { Embedder, EmbedOptions } from './embedding/embedder.js';
export { EmbeddingError, EndpointEmbedder, type EndpointEmbedderOptions } from './embedding/endpoint-embedder.js';
export { HashingEmbedder } from './embedding/hashing-embedder.js';
export { LocalIndex, type ChunkSource } from './store/local-index.js';
export { termIndex } from './store/qdrant-index.js';
export { tokenize } from './lexical/tokenizer.js';
export { OnnxEmbedder, type OnnxEmbedderOptions } from './embedding/onnx-embedder.js';
