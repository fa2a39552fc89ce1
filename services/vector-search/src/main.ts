// Tracing first: runService starts it before it imports the service (and `pg`); import nothing else here.
import { runService } from '@sextant/runtime/main';

await runService({
  service: 'vector-search',
  env: process.env,
  load: () => import('./index.js'),
  settings: ({ loadConfig }, env) => loadConfig(env),
  database: (config) => config.database.url,
  module: ({ VectorSearchModule }, config) =>
    VectorSearchModule.register({ ...config, database: { ...config.database, url: config.database.url! } }),
});
