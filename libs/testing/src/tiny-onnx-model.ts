import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What a test needs to expect the model's vectors: its vocabulary and each token's row. */
export interface TinyModel {
  vocab: Map<string, number>;
  /** Row i: token i's vector. */
  table: Float32Array[];
  dimension: number;
}

const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'];

/**
 * Writes a tiny sentence-embedding model in transformers.js's layout (no
 * model weights can be downloaded here): a BERT-style WordPiece tokenizer
 * over `words`, and an ONNX graph that looks each token up in a table and
 * zeroes padding (`last_hidden_state = Gather(table, input_ids) ×
 * attention_mask`). Mean pooling of its output is the mean of the tokens'
 * rows, which a test can compute on its own. The ONNX file is protobuf
 * written field by field (ModelProto, opset 13).
 */
export function writeTinyEmbeddingModel(dir: string, words: readonly string[], dimension = 16): TinyModel {
  const tokens = [...SPECIAL, ...new Set(words.map((w) => w.toLowerCase()))];
  const vocab = new Map(tokens.map((t, i) => [t, i]));
  const table = tokens.map((_, i) =>
    Float32Array.from({ length: dimension }, (_, j) => Math.sin((i + 1) * (j + 1) * 1.7) * (i === 0 ? 0 : 1)),
  );
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      model_type: 'bert',
      architectures: ['BertModel'],
      hidden_size: dimension,
      vocab_size: tokens.length,
      max_position_embeddings: 512,
    }),
  );
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    JSON.stringify({
      tokenizer_class: 'BertTokenizer',
      do_lower_case: true,
      model_max_length: 512,
      cls_token: '[CLS]',
      sep_token: '[SEP]',
      pad_token: '[PAD]',
      unk_token: '[UNK]',
    }),
  );
  writeFileSync(
    join(dir, 'tokenizer.json'),
    JSON.stringify({
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: SPECIAL.map((content, id) => ({
        id,
        content,
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: true,
      })),
      normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
      pre_tokenizer: { type: 'BertPreTokenizer' },
      post_processor: {
        type: 'TemplateProcessing',
        single: [
          { SpecialToken: { id: '[CLS]', type_id: 0 } },
          { Sequence: { id: 'A', type_id: 0 } },
          { SpecialToken: { id: '[SEP]', type_id: 0 } },
        ],
        pair: [
          { SpecialToken: { id: '[CLS]', type_id: 0 } },
          { Sequence: { id: 'A', type_id: 0 } },
          { SpecialToken: { id: '[SEP]', type_id: 0 } },
          { Sequence: { id: 'B', type_id: 1 } },
          { SpecialToken: { id: '[SEP]', type_id: 1 } },
        ],
        special_tokens: {
          '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] },
          '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] },
        },
      },
      decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
      model: {
        type: 'WordPiece',
        unk_token: '[UNK]',
        continuing_subword_prefix: '##',
        max_input_chars_per_word: 100,
        vocab: Object.fromEntries(vocab),
      },
    }),
  );
  writeFileSync(join(dir, 'onnx/model.onnx'), onnxModel(table, dimension));
  return { vocab, table, dimension };
}

// Protobuf, as much of it as ONNX's ModelProto needs.
const varint = (n: number | bigint): number[] => {
  let v = BigInt(n);
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return out;
};
const int = (field: number, n: number | bigint) => Buffer.from([...varint((field << 3) | 0), ...varint(n)]);
const bytes = (field: number, data: Buffer | string) => {
  const body = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  return Buffer.concat([Buffer.from([...varint((field << 3) | 2), ...varint(body.length)]), body]);
};
const message = (field: number, ...parts: Buffer[]) => bytes(field, Buffer.concat(parts));

const FLOAT = 1;
const INT64 = 7;

/** TensorProto: dims 1, data_type 2, name 8, raw_data 9. */
function tensor(field: number, name: string, type: number, dims: number[], raw: Buffer): Buffer {
  return message(field, ...dims.map((d) => int(1, d)), int(2, type), bytes(8, name), bytes(9, raw));
}

/** ValueInfoProto: name 1, type 2 → TypeProto.tensor_type 1 → elem_type 1, shape 2 → dim 1 → dim_value 1 | dim_param 2. */
function valueInfo(field: number, name: string, type: number, dims: Array<string | number>): Buffer {
  const shape = dims.map((d) => message(1, typeof d === 'number' ? int(1, d) : bytes(2, d)));
  return message(field, bytes(1, name), message(2, message(1, int(1, type), message(2, ...shape))));
}

/** NodeProto: input 1, output 2, name 3, op_type 4, attribute 5 (AttributeProto: name 1, i 3, type 20 = INT 2). */
function node(op: string, inputs: string[], outputs: string[], ints: Record<string, number> = {}): Buffer {
  return message(
    1,
    ...inputs.map((i) => bytes(1, i)),
    ...outputs.map((o) => bytes(2, o)),
    bytes(3, `${op}_${outputs[0]}`),
    bytes(4, op),
    ...Object.entries(ints).map(([name, value]) => message(5, bytes(1, name), int(3, value), int(20, 2))),
  );
}

function onnxModel(table: Float32Array[], dimension: number): Buffer {
  const rows = Buffer.alloc(table.length * dimension * 4);
  table.forEach((row, i) => row.forEach((v, j) => rows.writeFloatLE(v, (i * dimension + j) * 4)));
  const axes = Buffer.alloc(8);
  axes.writeBigInt64LE(2n);
  const graph = message(
    7,
    node('Gather', ['table', 'input_ids'], ['embedded']),
    node('Cast', ['attention_mask'], ['mask'], { to: FLOAT }),
    node('Unsqueeze', ['mask', 'axes'], ['mask3']),
    node('Mul', ['embedded', 'mask3'], ['last_hidden_state']),
    bytes(2, 'tiny-embedding'),
    tensor(5, 'table', FLOAT, [table.length, dimension], rows),
    tensor(5, 'axes', INT64, [1], axes),
    valueInfo(11, 'input_ids', INT64, ['batch', 'sequence']),
    valueInfo(11, 'attention_mask', INT64, ['batch', 'sequence']),
    valueInfo(12, 'last_hidden_state', FLOAT, ['batch', 'sequence', dimension]),
  );
  // ModelProto: ir_version 1, producer_name 2, graph 7, opset_import 8 (domain 1, version 2).
  return Buffer.concat([int(1, 8), bytes(2, 'sextant-tests'), graph, message(8, bytes(1, ''), int(2, 13))]);
}
