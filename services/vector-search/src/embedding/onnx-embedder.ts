import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { lazy } from '../lazy.js';
import { normalize, type Embedder } from './embedder.js';

export interface OnnxEmbedderOptions {
  /** A model directory in transformers.js's layout: `config.json`, `tokenizer.json`, `onnx/model.onnx`. */
  dir: string;
  /** The model id collections record; default: the directory's name. */
  model?: string;
  /** Texts per inference call. */
  batchSize: number;
  /** Characters of a text embedded at most (the tokenizer truncates to the model's length too). */
  maxChars: number;
  /** ONNX Runtime threads per inference; default: the machine's cores. */
  threads?: number;
}

/** What the pipeline gives back: one row of `dims[1]` floats per text. */
interface Tensor {
  data: Float32Array;
  dims: number[];
}
type Extractor = (texts: string[], options: { pooling: 'mean'; normalize: boolean }) => Promise<Tensor>;

/**
 * A local embedding model (EMBEDDINGS_MODEL_DIR): a sentence-embedding ONNX
 * model such as all-MiniLM-L6-v2 that the user provides, run in this process
 * by `@huggingface/transformers` (an optional dependency) on ONNX Runtime's
 * CPU provider, mean-pooled and normalized. Nothing is downloaded: the
 * model's files are read from the directory only.
 */
export class OnnxEmbedder implements Embedder {
  readonly kind = 'semantic';
  readonly model: string;
  readonly dimension: number;

  constructor(private readonly options: OnnxEmbedderOptions) {
    const dir = resolve(options.dir);
    for (const file of ['config.json', 'tokenizer.json', 'onnx/model.onnx']) {
      if (!existsSync(join(dir, file))) {
        throw new Error(
          `EMBEDDINGS_MODEL_DIR ${dir} has no ${file}: it takes a model in transformers.js's layout (config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx)`,
        );
      }
    }
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { hidden_size?: number; dim?: number };
    const dimension = config.hidden_size ?? config.dim;
    if (typeof dimension !== 'number') throw new Error(`EMBEDDINGS_MODEL_DIR ${dir}: config.json names no hidden_size`);
    this.dimension = dimension;
    this.model = options.model ?? basename(dir);
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const extract = await this.load();
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.options.batchSize) {
      const batch = texts.slice(i, i + this.options.batchSize).map((t) => t.slice(0, this.options.maxChars));
      const { data, dims } = await extract(batch, { pooling: 'mean', normalize: true });
      if (dims[1] !== this.dimension) {
        throw new Error(`the model in EMBEDDINGS_MODEL_DIR gives ${dims[1]} dimensions; its config.json says ${this.dimension}`);
      }
      for (let j = 0; j < batch.length; j++) out.push(normalize(data.slice(j * this.dimension, (j + 1) * this.dimension)));
    }
    return out;
  }

  /** The pipeline, loaded once (first use): local files only, every core, every graph optimization. */
  private readonly load = lazy(async (): Promise<Extractor> => {
    let transformers: typeof import('@huggingface/transformers');
    try {
      transformers = await import('@huggingface/transformers');
    } catch (error) {
      throw new Error(
        `EMBEDDINGS_MODEL_DIR needs the optional package @huggingface/transformers (npm install @huggingface/transformers): ${(error as Error).message}`,
      );
    }
    const dir = resolve(this.options.dir);
    transformers.env.allowRemoteModels = false;
    transformers.env.allowLocalModels = true;
    transformers.env.localModelPath = `${dirname(dir)}/`;
    const extractor = await transformers.pipeline('feature-extraction', basename(dir), {
      local_files_only: true,
      dtype: 'fp32',
      device: 'cpu',
      session_options: { intraOpNumThreads: this.options.threads ?? availableParallelism(), graphOptimizationLevel: 'all' },
    });
    return extractor;
  });
}
