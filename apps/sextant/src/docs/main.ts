/** `npm run docs`: writes the documents generated from the code (docs/configuration.md, docs/tools.md). */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GENERATED_DOCUMENTS } from './documents.js';

const root = new URL('../../../../', import.meta.url);
for (const { path, render } of GENERATED_DOCUMENTS) {
  writeFileSync(fileURLToPath(new URL(path, root)), render());
  console.log(`wrote ${path}`);
}
