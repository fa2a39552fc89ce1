// Tracing first: runService starts it before it imports the service; import nothing else here.
import { runService } from '@sextant/runtime/main';

await runService({
  service: 'git-cache',
  env: process.env,
  load: () => import('./index.js'),
  settings: ({ loadConfig }, env) => loadConfig(env),
  module: ({ GitCacheModule }, config) => GitCacheModule.register(config),
});
